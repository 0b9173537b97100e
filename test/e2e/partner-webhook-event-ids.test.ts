import { startApiProxy } from '../helpers/api-proxy';
import { PartnerWebhookClient, PartnerWebhookUnavailable } from '../../src/adapters/sandbox-callbacks/partner-webhook-client';
import { signPartnerWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../src/adapters/partner-signature';
import { appointmentWorkflowId, orderWorkflowId } from '../../workflows/contract';
import {
  createUser,
  eventually,
  ORDER_TEST_ENV,
  orderReaches,
  outboxEvents,
  PARTNER_SECRET,
  partnerWebhook,
  patientAddress,
  patientDetails,
  someStartDate,
  WALK_IN_CMP,
} from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';

/**
 * Partner webhooks take the sender's `event_id` (issue 40): when labflow took a report but the
 * partner never got the answer, the partner resends it with the same id, and labflow answers it
 * as before without applying it again. Different ids with the same content follow the order's
 * own rules (partial results may repeat).
 */
const LABCORP_CBC_WALK_IN = '1ab7e570-0000-4000-8000-000000000004';
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
const PHOENIX_ADDRESS = { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };
const lows = (order: { events: Array<{ status: string }> }) => order.events.map((event) => event.status.split('.')[2]);

async function walkInOrder(stack: TestStack, tenant: Tenant, labTestId = LABCORP_CBC_WALK_IN): Promise<string> {
  const userId = await createUser(stack, tenant);
  const response = await call(stack.apiUrl, 'POST', '/v3/order', {
    key: tenant.apiKey,
    body: { user_id: userId, lab_test_id: labTestId, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
  });
  expect(response.status).toBe(200);
  const orderId = response.body.order.id as string;
  await orderReaches(stack, tenant, orderId, 'appointment_pending');
  return orderId;
}

async function labSignals(stack: TestStack, orderId: string): Promise<number> {
  const events = (await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory()).events ?? [];
  return events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'labUpdate').length;
}

/** A proxy that forwards each request to the API and, the first `drops` times, hangs up instead of answering. */
async function answerLosingProxy(target: string, drops: number): Promise<{ url: string; forwarded: number[]; close(): Promise<void> }> {
  const forwarded: number[] = [];
  let dropped = 0;
  const proxy = await startApiProxy(target, (_request, answer) => {
    forwarded.push(answer.statusCode ?? 0);
    if (dropped >= drops) return 'forward';
    dropped += 1;
    return 'drop';
  });
  return { ...proxy, forwarded };
}

describe('partner webhooks: a resent report (same event_id) is answered as before and applied once', () => {
  let stack: TestStack;
  let tenant: Tenant;

  beforeAll(async () => {
    // The sandbox providers confirm nothing on their own here: the test sends their callbacks.
    stack = await startStack({ env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '1h' } });
    tenant = await createTenant(stack.db, { environment: 'production' });
  });
  afterAll(() => stack?.close());

  it('the same signed lab report twice: one status change, one event; a different id with the same content follows the order (partials repeat)', async () => {
    const orderId = await walkInOrder(stack, tenant);
    const partial = { order_id: orderId, status: 'partial_results', event_id: `lab-${orderId}-1` };
    const first = await partnerWebhook(stack, 'lab', partial);
    const again = await partnerWebhook(stack, 'lab', partial);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'accepted', order_id: orderId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    await orderReaches(stack, tenant, orderId, 'partial_results');
    expect(await labSignals(stack, orderId)).toBe(1);

    // Another report (another id) with the same content: a second partial, as the order allows.
    expect((await partnerWebhook(stack, 'lab', { ...partial, event_id: `lab-${orderId}-2` })).body).toEqual({ status: 'accepted', order_id: orderId });
    const completed = { order_id: orderId, status: 'completed', interpretation: 'normal', event_id: `lab-${orderId}-3` };
    expect((await partnerWebhook(stack, 'lab', completed)).status).toBe(200);
    expect((await partnerWebhook(stack, 'lab', completed)).status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'partial_results', 'partial_results', 'completed']);
    await eventually(async () => ((await labSignals(stack, orderId)) === 3 ? true : undefined), 'three labUpdate signals');
    await eventually(async () => {
      const events = await outboxEvents(stack, tenant.teamId, orderId);
      expect(events.filter((event) => event.status.endsWith('.completed'))).toHaveLength(1);
      return true;
    }, "the order's one completed event");
    const receipts = await stack.db.query(`SELECT kind, partner, answer FROM partner_webhook_receipts WHERE event_id LIKE $1 ORDER BY event_id`, [
      `lab-${orderId}-%`,
    ]);
    expect(receipts).toEqual([1, 2, 3].map(() => ({ kind: 'lab', partner: 'sandbox', answer: { status: 'accepted', order_id: orderId } })));
  });

  it('the same event id at another partner kind is another report; a report without an id is applied as before', async () => {
    const orderId = await walkInOrder(stack, tenant);
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'partial_results' })).status).toBe(200);
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'partial_results' })).status).toBe(200);
    await eventually(async () => ((await labSignals(stack, orderId)) === 2 ? true : undefined), 'two labUpdate signals');
    // An unknown order is refused, and its id stays unused: the corrected report is taken.
    const missing = await partnerWebhook(stack, 'lab', { order_id: '00000000-0000-4000-8000-000000000000', status: 'completed', event_id: `retry-${orderId}` });
    expect(missing.status).toBe(404);
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'completed', event_id: `retry-${orderId}` })).body).toEqual({
      status: 'accepted',
      order_id: orderId,
    });
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'partial_results', 'partial_results', 'completed']);
  });

  it('the API killed after the signal and before the receipt committed: the resend signals again, and the order changes once', async () => {
    const orderId = await walkInOrder(stack, tenant);
    const partial = { order_id: orderId, status: 'partial_results', event_id: `crash-${orderId}` };
    expect((await partnerWebhook(stack, 'lab', partial)).body).toEqual({ status: 'accepted', order_id: orderId });
    await orderReaches(stack, tenant, orderId, 'partial_results');
    // What the crash leaves: the workflow has the signal, partner_webhook_receipts has no row for it.
    await stack.db.query(`DELETE FROM partner_webhook_receipts WHERE kind = 'lab' AND event_id = $1`, [partial.event_id]);
    expect((await partnerWebhook(stack, 'lab', partial)).body).toEqual({ status: 'accepted', order_id: orderId });
    // A signal that comes while a workflow task is in flight joins the history when the task completes.
    await eventually(async () => ((await labSignals(stack, orderId)) === 2 ? true : undefined), 'the resend signalled again (two labUpdate signals)');
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'completed', event_id: `crash-done-${orderId}` })).status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'partial_results', 'completed']);
    expect(await labSignals(stack, orderId)).toBe(3);
    // Partial results send no webhook unless the team asks for them: the completed one is sent once.
    await eventually(async () => {
      const events = await outboxEvents(stack, tenant.teamId, orderId);
      expect(events.filter((event) => event.status.endsWith('.completed'))).toHaveLength(1);
      return true;
    }, "the order's one completed event");
  });

  it('the same report sent twice at once: one is applied, the other waits for it and gets its answer', async () => {
    const orderId = await walkInOrder(stack, tenant);
    const partial = { order_id: orderId, status: 'partial_results', event_id: `race-${orderId}` };
    const answers = await Promise.all([partnerWebhook(stack, 'lab', partial), partnerWebhook(stack, 'lab', partial)]);
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, { status: 'accepted', order_id: orderId }],
      [200, { status: 'accepted', order_id: orderId }],
    ]);
    await orderReaches(stack, tenant, orderId, 'partial_results');
    expect(await labSignals(stack, orderId)).toBe(1);
  });

  it('the answer is lost on the way back: the partner client retries with the same id, and the order changes once', async () => {
    const orderId = await walkInOrder(stack, tenant);
    const proxy = await answerLosingProxy(stack.apiUrl, 1);
    try {
      const client = new PartnerWebhookClient(proxy.url, PARTNER_SECRET);
      const report = { path: '/v3/webhooks/lab/sandbox', body: { order_id: orderId, status: 'partial_results' }, eventId: `sandbox-lost-${orderId}` };
      // labflow took it (the proxy saw 200), but the partner saw the connection drop: it retries, as Temporal retries its activity.
      await expect(client.post(report)).rejects.toBeInstanceOf(PartnerWebhookUnavailable);
      expect(proxy.forwarded).toEqual([200]);
      expect(await client.post(report)).toBe('accepted');
      expect(proxy.forwarded).toEqual([200, 200]);
      expect(
        await client.post({ path: '/v3/webhooks/lab/sandbox', body: { order_id: orderId, status: 'completed' }, eventId: `sandbox-done-${orderId}` }),
      ).toBe('accepted');
      const order = await orderReaches(stack, tenant, orderId, 'completed');
      expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'partial_results', 'completed']);
      expect(await labSignals(stack, orderId)).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('the same signed appointment confirmation twice: the appointment is confirmed once, the order scheduled once', async () => {
    const orderId = await walkInOrder(stack, tenant, WALK_IN_CMP);
    const availability = await call(
      stack.apiUrl,
      'POST',
      `/v3/order/psc/appointment/availability?lab=quest&zip_code=10001&radius=25&start_date=${someStartDate()}`,
      {
        key: tenant.apiKey,
      },
    );
    expect(availability.status).toBe(200);
    const slot = availability.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots)[0];
    const booked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book?async_confirmation=true`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(booked.status).toBe(200);
    expect(booked.body.status).toBe('pending');
    const [row]: Array<{ provider_slug: string; provider_id: string }> = await stack.db.query(
      `SELECT provider_slug, provider_id FROM appointments WHERE order_id = $1`,
      [orderId],
    );
    const confirmation = { provider_id: row.provider_id, status: 'confirmed', event_id: `confirm-${orderId}` };
    const send = () => {
      const timestamp = Math.floor(Date.now() / 1000);
      return call(stack.apiUrl, 'POST', `/v3/webhooks/appointments/${row.provider_slug}`, {
        body: confirmation,
        headers: { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: signPartnerWebhook(PARTNER_SECRET, timestamp, confirmation) },
      });
    };
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'accepted', appointment_id: booked.body.id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const confirmed = await eventually(async () => {
      const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/psc/appointment`, { key: tenant.apiKey });
      return response.body.status === 'confirmed' ? response.body : undefined;
    }, 'the appointment to be confirmed');
    expect(confirmed.events.map((event: { status: string }) => event.status)).toEqual(['pending', 'scheduled']);
    const order = await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled']);
    const history = (await stack.temporal.workflow.getHandle(appointmentWorkflowId(orderId, 1)).fetchHistory()).events ?? [];
    expect(history.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'appointmentProviderUpdate')).toHaveLength(1);

    // The API killed after the signal and before the receipt committed: the resend signals again; the run takes the id once.
    await stack.db.query(`DELETE FROM partner_webhook_receipts WHERE kind = 'appointments' AND event_id = $1`, [confirmation.event_id]);
    expect((await send()).body).toEqual(first.body);
    const handle = stack.temporal.workflow.getHandle(appointmentWorkflowId(orderId, 1));
    // Once the run has handled the second signal (a workflow task completed after it), it did nothing with it: no activity scheduled.
    const afterSignal = await eventually(async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const signals = events.flatMap((event, index) =>
        event.workflowExecutionSignaledEventAttributes?.signalName === 'appointmentProviderUpdate' ? [index] : [],
      );
      const rest = events.slice((signals[1] ?? events.length) + 1);
      return signals.length === 2 && rest.some((event) => event.workflowTaskCompletedEventAttributes) ? rest : undefined;
    }, 'the run to handle the resent report');
    expect(afterSignal.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
    const after = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/psc/appointment`, { key: tenant.apiKey });
    expect(after.body.events.map((event: { status: string }) => event.status)).toEqual(['pending', 'scheduled']);
    expect(lows(await orderReaches(stack, tenant, orderId, 'appointment_scheduled'))).toEqual([
      'ordered',
      'requisition_created',
      'appointment_pending',
      'appointment_scheduled',
    ]);
    // `HISTORY_NAMES=1`: the workflow id, for npm run history:export (the replay fixture of this path).
    if (process.env.HISTORY_NAMES === '1') console.log(`appointment provider report twice: ${handle.workflowId}`);
  });
});
