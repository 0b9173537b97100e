import { temporal } from '@temporalio/proto';
import { writeFileSync } from 'node:fs';
import { codecOf } from '../../src/temporal/payload-codec';
import { startApiProxy } from '../helpers/api-proxy';
import { reminderHistory } from '../helpers/reminder-history';
import { appointmentWorkflowId, orderWorkflowId, sandboxPartnersWorkflowId } from '../../workflows/contract';
import { createUser, ORDER_TEST_ENV, orderReaches, patientAddress, patientDetails, THYROID_AT_HOME, WALK_IN_CMP } from '../helpers/orders';
import { call, createTenant, runUntilStopped, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Walk-in and at-home sandbox orders on orderWorkflowV2 (issue 40): `POST /v3/order/{id}/test`
 * has the sandbox partners play, and they reach the order only through the paths their real
 * counterparts use, over HTTP: the appointment provider's signed callback
 * (`/v3/webhooks/appointments/<provider>`), the lab's signed event webhook (`/v3/webhooks/lab/
 * sandbox`); the patient books an early free slot through the order's booking update. The
 * worker's partners call the API through a recording proxy here, so every report is seen on the
 * wire; the workflow histories hold the partners' signals and no simulation.
 */
const EventType = temporal.api.enums.v1.EventType;
const LABCORP_CBC_WALK_IN = '1ab7e570-0000-4000-8000-000000000004';
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
const PHOENIX_ADDRESS = { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };
const lows = (order: { events: Array<{ status: string }> }) => order.events.map((event) => event.status.split('.')[2]);

/** Workflow ids worth keeping as replay fixtures (`npm run history:export`), when asked for. */
const fixtures: Record<string, string> = {};
afterAll(() => {
  if (process.env.ORDER_FIXTURE_IDS) writeFileSync(process.env.ORDER_FIXTURE_IDS, JSON.stringify(fixtures, null, 2));
});

interface Summary {
  type: string;
  signals: string[];
  updatesAccepted: string[];
  activities: string[];
  /** Every timer the run started, in seconds. */
  timerSeconds: number[];
}

async function summary(stack: TestStack, workflowId: string): Promise<Summary> {
  const events = (await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    type: events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
    signals: events.flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName ?? ''] : [],
    ),
    updatesAccepted: events.flatMap((event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes ? [event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name ?? ''] : [],
    ),
    activities: events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : [],
    ),
    timerSeconds: events.flatMap((event) =>
      event.eventType === EventType.EVENT_TYPE_TIMER_STARTED ? [Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0)] : [],
    ),
  };
}

/** A proxy in front of the API that records each request's method, path and answer status. */
async function recordingProxy(
  target: string,
): Promise<{ url: string; seen: Array<{ path: string; status: number; signed: boolean }>; close(): Promise<void> }> {
  const seen: Array<{ path: string; status: number; signed: boolean }> = [];
  const proxy = await startApiProxy(target, (request, answer) => {
    seen.push({ path: request.url ?? '', status: answer.statusCode ?? 0, signed: typeof request.headers['x-labflow-signature'] === 'string' });
    return 'forward';
  });
  return { ...proxy, seen };
}

describe('sandbox appointment orders: /test has the partners play over HTTP (orderWorkflowV2)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let stopWorker: () => Promise<void>;

  beforeAll(async () => {
    stack = await startStack({ env: ORDER_TEST_ENV, worker: false });
    proxy = await recordingProxy(stack.apiUrl);
    const { createLabflowWorker } = await import('../../src/temporal-worker');
    const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE as string;
    const { worker, connection } = await createLabflowWorker(stack.api, stack.config, {
      taskQueue: stack.taskQueue,
      workflowBundle: { codePath },
      partnersApiUrl: proxy.url,
    });
    stopWorker = runUntilStopped(worker, connection);
    tenant = await createTenant(stack.db);
  });
  afterAll(async () => {
    await stopWorker?.();
    await proxy?.close();
    await stack?.close();
  });

  const createOrder = async (labTestId: string): Promise<string> => {
    const userId = await createUser(stack, tenant);
    const response = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: { user_id: userId, lab_test_id: labTestId, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
    });
    expect(response.status).toBe(200);
    return response.body.order.id as string;
  };

  it.each([
    [
      'walk-in',
      WALK_IN_CMP,
      'psc',
      'sandbox_psc',
      ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'partial_results', 'completed'],
    ],
    [
      'at-home',
      THYROID_AT_HOME,
      'phlebotomy',
      'sandbox_phlebotomy',
      ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed', 'partial_results', 'completed'],
    ],
  ])(
    '%s: booked as a patient would, the provider reports the visit through its signed callback, the lab its results; no simulation in any history',
    async (name, labTestId, kind, providerSlug, path) => {
      const orderId = await createOrder(labTestId);
      fixtures[`order-v2--${name}-sandbox-partners`] = orderWorkflowId(orderId);
      fixtures[`appointment-v2--${name}-sandbox-provider`] = appointmentWorkflowId(orderId, 1);
      fixtures[`sandbox-partners--${name}`] = sandboxPartnersWorkflowId(orderId);
      // labflow's own steps without /test.
      await orderReaches(stack, tenant, orderId, 'appointment_pending');
      const before = proxy.seen.length;

      expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: { interpretation: 'normal' } })).status).toBe(200);
      const order = await orderReaches(stack, tenant, orderId, 'completed');
      expect(lows(order)).toEqual(path);
      const appointment = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/${kind}/appointment`, { key: tenant.apiKey });
      expect(appointment.body.status).toBe('completed');
      expect(appointment.body.events.map((event: { status: string }) => event.status)).toEqual(['scheduled', 'in_progress', 'completed']);

      // On the wire: the provider's callbacks and the lab's events, signed, each accepted.
      const reports = proxy.seen.slice(before);
      expect(reports.filter((request) => request.path === `/v3/webhooks/appointments/${providerSlug}`).map((request) => request.status)).toEqual([200, 200]);
      expect(reports.filter((request) => request.path === '/v3/webhooks/lab/sandbox').map((request) => request.status)).toEqual([200, 200]);
      expect(reports.every((request) => request.signed && request.path.startsWith('/v3/webhooks/'))).toBe(true);

      const orderHistory = await summary(stack, orderWorkflowId(orderId));
      expect(orderHistory.type).toBe('orderWorkflowV2');
      expect(orderHistory.updatesAccepted).toEqual(['bookAppointment']);
      expect(orderHistory.signals).not.toContain('simulate');
      expect(orderHistory.signals.filter((signal) => signal === 'labUpdate')).toHaveLength(2);
      expect(orderHistory.signals.filter((signal) => signal === 'appointmentReport')).toEqual(['appointmentReport', 'appointmentReport', 'appointmentReport']);
      // Its only timers are the patient reminders' (each named after its reminder), none a
      // simulation's step. Not their lengths: a reminder due an hour before an early slot can be
      // minutes away, depending on the time of day the test runs.
      const history = await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory();
      const reminderTimers = (await reminderHistory(history, codecOf(stack.config))).timers;
      expect(reminderTimers.length).toBe(orderHistory.timerSeconds.length);
      expect(reminderTimers.every((timer) => /reminder/i.test(timer.summary))).toBe(true);

      const appointmentHistory = await summary(stack, appointmentWorkflowId(orderId, 1));
      expect(appointmentHistory.type).toBe('appointmentWorkflowV2');
      expect(appointmentHistory.signals).toEqual(['appointmentProviderUpdate', 'appointmentProviderUpdate']);
      expect(appointmentHistory.activities).toEqual(['createAppointment', 'changeAppointment', 'changeAppointment']);
      // The no-show deadline, a day after the appointment, is the only kind of timer it starts.
      expect(appointmentHistory.timerSeconds.length).toBeGreaterThan(0);
      expect(appointmentHistory.timerSeconds.every((seconds) => seconds > 24 * 3600)).toBe(true);

      const partnersHistory = await summary(stack, sandboxPartnersWorkflowId(orderId));
      expect(partnersHistory.type).toBe('sandboxPartnersWorkflow');
      expect(partnersHistory.activities.filter((activity) => activity === 'sandboxLabReports')).toHaveLength(2);
      expect(partnersHistory.activities).toContain('sandboxProviderStep');
      expect(partnersHistory.activities).not.toContain('sandboxCourierReports');
    },
  );

  it('at-home heading for appointment_scheduled: the provider confirms nothing more, the appointment stays confirmed', async () => {
    const orderId = await createOrder(THYROID_AT_HOME);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=appointment_scheduled`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    const done = await stack.temporal.workflow.getHandle(sandboxPartnersWorkflowId(orderId)).result();
    expect(done).toBeUndefined();
    const appointment = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/phlebotomy/appointment`, { key: tenant.apiKey });
    expect(appointment.body).toMatchObject({ status: 'confirmed' });
    expect((await summary(stack, appointmentWorkflowId(orderId, 1))).signals).toEqual([]);
  });

  it('walk-in at a lab whose service centers labflow does not schedule: the patient walks in, the lab reports', async () => {
    const orderId = await createOrder(LABCORP_CBC_WALK_IN);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const before = proxy.seen.length;
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} })).status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'partial_results', 'completed']);
    const reports = proxy.seen.slice(before);
    expect(reports.some((request) => request.path.startsWith('/v3/webhooks/appointments/'))).toBe(false);
    expect(reports.filter((request) => request.path === '/v3/webhooks/lab/sandbox').map((request) => request.status)).toEqual([200, 200]);
    const appointment = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/psc/appointment`, { key: tenant.apiKey });
    expect(appointment.status).toBe(404);
  });
});
