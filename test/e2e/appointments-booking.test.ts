import { randomBytes } from 'node:crypto';
import { bookingKeySecret, signBookingKey } from '../../src/appointments/booking-key';
import { SandboxPhlebotomyProvider } from '../../src/appointments/providers/sandbox-phlebotomy.provider';
import { appointmentWorkflowId, orderWorkflowId } from '../../workflows/contract';
import {
  createUser,
  eventually,
  ORDER_TEST_ENV,
  orderReaches,
  outboxEvents,
  partnerWebhook,
  patientAddress,
  patientDetails,
  someStartDate,
  startReplaceableWorker,
  THYROID_AT_HOME,
  WALK_IN_CMP,
} from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';

const CMP_WALK_IN = WALK_IN_CMP;
/** Seeded Labcorp walk-in lab test (complete blood count). */
const LABCORP_CBC_WALK_IN = '1ab7e570-0000-4000-8000-000000000004';
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
const PHOENIX_ADDRESS = { ...patientAddress(), first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };

const lows = (order: { events: Array<{ status: string }> }) => order.events.map((event) => event.status.split('.')[2]);

async function createAppointmentOrder(stack: TestStack, tenant: Tenant, labTestId: string): Promise<string> {
  const userId = await createUser(stack, tenant);
  const response = await call(stack.apiUrl, 'POST', '/v3/order', {
    key: tenant.apiKey,
    body: { user_id: userId, lab_test_id: labTestId, patient_details: patientDetails(), patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN },
  });
  expect(response.status).toBe(200);
  return response.body.order.id as string;
}

/** Bookable slots from availability, in order. */
async function phlebotomySlots(stack: TestStack, tenant: Tenant): Promise<Array<{ booking_key: string; start: string }>> {
  const response = await call(stack.apiUrl, 'POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
    key: tenant.apiKey,
    body: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
  });
  expect(response.status).toBe(200);
  return response.body.slots.flatMap((day: { slots: Array<{ booking_key: string; start: string }> }) => day.slots);
}

async function pscSlots(stack: TestStack, tenant: Tenant): Promise<Array<{ booking_key: string; start: string }>> {
  const response = await call(stack.apiUrl, 'POST', `/v3/order/psc/appointment/availability?lab=quest&zip_code=10001&radius=25&start_date=${someStartDate()}`, {
    key: tenant.apiKey,
  });
  expect(response.status).toBe(200);
  return response.body.slots.flatMap((day: { slots: Array<{ booking_key: string; start: string }> }) => day.slots);
}

async function appointmentRows(stack: TestStack, orderId: string): Promise<Array<{ n: number; status: string }>> {
  return stack.db.query(`SELECT n, status FROM appointments WHERE order_id = $1 ORDER BY n`, [orderId]);
}

describe('appointments: at-home phlebotomy and walk-in orders on the order workflow', () => {
  let stack: TestStack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack({ env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '300ms' } });
    tenant = await createTenant(stack.db, { environment: 'production' });
  });
  afterAll(() => stack?.close());

  it('at-home: book, reschedule twice with new notes, cancel and rebook, draw, results: every step on the order and the appointment', async () => {
    const orderId = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    let order = await orderReaches(stack, tenant, orderId, 'appointment_pending');
    expect(order.details.type).toBe('at_home_phlebotomy');
    expect(order.status).toBe('collecting_sample');
    const slots = await phlebotomySlots(stack, tenant);

    const booked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slots[0].booking_key, appointment_notes: 'Gate code 1234' },
    });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({
      order_id: orderId,
      type: 'phlebotomy',
      provider: 'getlabs',
      status: 'confirmed',
      event_status: 'scheduled',
      can_reschedule: true,
      appointment_notes: 'Gate code 1234',
      iana_timezone: 'America/Phoenix',
      address: { zip_code: '85004', city: 'Phoenix' },
    });
    expect(Date.parse(booked.body.start_at)).toBe(Date.parse(slots[0].start));
    order = await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    expect(order.details.data.appointment_id).toBe(booked.body.id);

    for (const [index, notes] of [
      [3, 'Ring twice'],
      [5, 'Side door'],
    ] as const) {
      const moved = await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/phlebotomy/appointment/reschedule`, {
        key: tenant.apiKey,
        body: { booking_key: slots[index].booking_key, appointment_notes: notes },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ id: booked.body.id, status: 'confirmed', appointment_notes: notes });
      expect(Date.parse(moved.body.start_at)).toBe(Date.parse(slots[index].start));
    }

    const reasons = await call(stack.apiUrl, 'GET', '/v3/order/phlebotomy/appointment/cancellation-reasons', { key: tenant.apiKey });
    expect(reasons.status).toBe(200);
    expect(reasons.body[0]).toEqual({ id: expect.any(String), name: expect.any(String), is_refundable: expect.any(Boolean) });
    const unknownReason = await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/phlebotomy/appointment/cancel`, {
      key: tenant.apiKey,
      body: { cancellation_reason_id: 'no-such-reason' },
    });
    expect(unknownReason.status).toBe(422);
    const cancelled = await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/phlebotomy/appointment/cancel`, {
      key: tenant.apiKey,
      body: { cancellation_reason_id: reasons.body[0].id, notes: 'Patient travelling until June' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: booked.body.id, status: 'cancelled', event_status: 'cancelled', can_reschedule: false });
    // The provider is told why, with the client's notes.
    expect(stack.api.get(SandboxPhlebotomyProvider).cancellations).toContainEqual(
      expect.objectContaining({ appointmentId: booked.body.id, cancellationReasonId: reasons.body[0].id, notes: 'Patient travelling until June' }),
    );
    await orderReaches(stack, tenant, orderId, 'appointment_cancelled');

    const rebooked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slots[7].booking_key },
    });
    expect(rebooked.status).toBe(200);
    expect(rebooked.body.id).not.toBe(booked.body.id);
    expect(rebooked.body.appointment_notes).toBeNull();
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    const current = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/phlebotomy/appointment`, { key: tenant.apiKey });
    expect(current.body).toMatchObject({ id: rebooked.body.id, status: 'confirmed' });

    const drawn = await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/draw_completed`, { key: tenant.apiKey });
    expect(drawn.status).toBe(200);
    expect(drawn.body.order.last_event.status).toBe('collecting_sample.at_home_phlebotomy.draw_completed');
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'partial_results' })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'partial_results');
    expect((await partnerWebhook(stack, 'lab', { order_id: orderId, status: 'completed', interpretation: 'normal' })).status).toBe(200);
    order = await orderReaches(stack, tenant, orderId, 'completed');

    expect(lows(order)).toEqual([
      'ordered',
      'requisition_created',
      'appointment_pending',
      'appointment_scheduled',
      'appointment_scheduled',
      'appointment_scheduled',
      'appointment_cancelled',
      'appointment_scheduled',
      'draw_completed',
      'partial_results',
      'completed',
    ]);
    expect((await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey })).status).toBe(200);
    expect(await appointmentRows(stack, orderId)).toEqual([
      { n: 1, status: 'cancelled' },
      { n: 2, status: 'completed' },
    ]);
    const first = await stack.db.query(`SELECT events FROM appointments WHERE id = $1`, [booked.body.id]);
    expect(first[0].events.map((event: { status: string }) => event.status)).toEqual(['scheduled', 'scheduled', 'scheduled', 'cancelled']);

    // Webhooks: the order's transitions (partial results are off for this team) and each appointment change.
    await eventually(async () => {
      const events = await outboxEvents(stack, tenant.teamId, orderId);
      const appointmentEvents = events.filter((event) => event.event_type.startsWith('labtest.appointment.'));
      // Appointment 1: created, rescheduled twice, cancelled; appointment 2: created, completed.
      return appointmentEvents.length === 6 ? events : undefined;
    }, 'appointment events in the outbox');
    const updates = (await outboxEvents(stack, tenant.teamId, orderId)).filter((event) => event.event_type === 'labtest.order.updated');
    expect(updates.map((event) => event.status.split('.')[2])).not.toContain('partial_results');
    expect(updates.map((event) => event.status.split('.')[2])).toContain('draw_completed');

    // Temporal: the order and each appointment are workflows of their own, linked as parent and child.
    const child = await stack.temporal.workflow.getHandle(appointmentWorkflowId(orderId, 1)).describe();
    expect(child.parentExecution?.workflowId).toBe(orderWorkflowId(orderId));
    expect(child.status.name).toBe('COMPLETED');
  });

  it('refuses an expired or forged booking key before anything is written', async () => {
    const orderId = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const [slot] = await phlebotomySlots(stack, tenant);
    const body = JSON.parse(Buffer.from(slot.booking_key.split('.')[1], 'base64url').toString());
    const expired = signBookingKey(bookingKeySecret(stack.config.phiEncryptionKey), { ...body, expires_at: new Date(Date.now() - 1000).toISOString() });
    const forged = signBookingKey(bookingKeySecret(randomBytes(32)), body);
    for (const [key, detail] of [
      [expired, /expired/],
      [forged, /not valid/],
    ] as const) {
      const response = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, { key: tenant.apiKey, body: { booking_key: key } });
      expect(response.status).toBe(400);
      expect(response.body.detail).toMatch(detail);
    }
    expect(await appointmentRows(stack, orderId)).toEqual([]);
  });

  it('double-booking one slot concurrently: one order gets it, the other a 409 and no appointment', async () => {
    const [a, b] = await Promise.all([createAppointmentOrder(stack, tenant, THYROID_AT_HOME), createAppointmentOrder(stack, tenant, THYROID_AT_HOME)]);
    await Promise.all([orderReaches(stack, tenant, a, 'appointment_pending'), orderReaches(stack, tenant, b, 'appointment_pending')]);
    const slots = await phlebotomySlots(stack, tenant);
    const slot = slots[slots.length - 1];
    const answers = await Promise.all(
      [a, b].map((orderId) =>
        call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, { key: tenant.apiKey, body: { booking_key: slot.booking_key } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.findIndex((answer) => answer.status === 409);
    expect(answers[loser].body.detail).toMatch(/no longer available/);
    expect(await appointmentRows(stack, [a, b][loser])).toEqual([]);
    expect((await call(stack.apiUrl, 'GET', `/v3/order/${[a, b][loser]}`, { key: tenant.apiKey })).body.last_event.status).toBe(
      'collecting_sample.at_home_phlebotomy.appointment_pending',
    );
  });

  it('PSC booking with x-idempotency-key: concurrent retries make one appointment; the key with another body is refused', async () => {
    const orderId = await createAppointmentOrder(stack, tenant, CMP_WALK_IN);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const [slot, other] = await pscSlots(stack, tenant);
    const key = `book-${randomBytes(6).toString('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(stack.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book`, {
          key: tenant.apiKey,
          headers: { 'x-idempotency-key': key },
          body: { booking_key: slot.booking_key },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers[0].body).toMatchObject({ type: 'patient_service_center', provider: 'quest', status: 'confirmed' });
    expect(await appointmentRows(stack, orderId)).toEqual([{ n: 1, status: 'confirmed' }]);
    const replay = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book`, {
      key: tenant.apiKey,
      headers: { 'x-idempotency-key': key },
      body: { booking_key: slot.booking_key },
    });
    expect(replay.body.id).toBe(answers[0].body.id);
    const misuse = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book`, {
      key: tenant.apiKey,
      headers: { 'x-idempotency-key': key },
      body: { booking_key: other.booking_key },
    });
    expect(misuse.status).toBe(400);
    expect(misuse.body.detail).toMatch(/different request/);
  });

  it('cancelling an at-home order cancels its appointment; a walk-in order keeps its service-center visit; a cancelled order refuses bookings', async () => {
    const home = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    const walkIn = await createAppointmentOrder(stack, tenant, CMP_WALK_IN);
    await orderReaches(stack, tenant, home, 'appointment_pending');
    await orderReaches(stack, tenant, walkIn, 'appointment_pending');
    const homeSlots = await phlebotomySlots(stack, tenant);
    const pscSlot = (await pscSlots(stack, tenant))[4];
    expect(
      (
        await call(stack.apiUrl, 'POST', `/v3/order/${home}/phlebotomy/appointment/book`, {
          key: tenant.apiKey,
          body: { booking_key: homeSlots[9].booking_key },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(stack.apiUrl, 'POST', `/v3/order/${walkIn}/psc/appointment/book`, { key: tenant.apiKey, body: { booking_key: pscSlot.booking_key } })).status,
    ).toBe(200);

    const homeCancelled = await call(stack.apiUrl, 'POST', `/v3/order/${home}/cancel`, { key: tenant.apiKey });
    expect(homeCancelled.status).toBe(200);
    expect(lows(homeCancelled.body.order).slice(-3)).toEqual(['appointment_scheduled', 'appointment_cancelled', 'cancelled']);
    expect(await appointmentRows(stack, home)).toEqual([{ n: 1, status: 'cancelled' }]);

    const walkInCancelled = await call(stack.apiUrl, 'POST', `/v3/order/${walkIn}/cancel`, { key: tenant.apiKey });
    expect(walkInCancelled.status).toBe(200);
    expect(walkInCancelled.body.order.last_event.status).toBe('cancelled.walk_in_test.cancelled');
    expect(await appointmentRows(stack, walkIn)).toEqual([{ n: 1, status: 'confirmed' }]);

    const refused = await call(stack.apiUrl, 'POST', `/v3/order/${home}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: homeSlots[11].booking_key },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/cancelled/);
    expect(await appointmentRows(stack, home)).toEqual([{ n: 1, status: 'cancelled' }]);
  });

  it("refuses a Quest service-center booking for another lab's walk-in order, and writes nothing", async () => {
    const labcorpWalkIn = await createAppointmentOrder(stack, tenant, LABCORP_CBC_WALK_IN);
    await orderReaches(stack, tenant, labcorpWalkIn, 'appointment_pending');
    const [slot] = await pscSlots(stack, tenant);
    const refused = await call(stack.apiUrl, 'POST', `/v3/order/${labcorpWalkIn}/psc/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/quest orders only.*lab labcorp/);
    expect(await appointmentRows(stack, labcorpWalkIn)).toEqual([]);
    const order = await call(stack.apiUrl, 'GET', `/v3/order/${labcorpWalkIn}`, { key: tenant.apiKey });
    expect(order.body.last_event.status).toBe('collecting_sample.walk_in_test.appointment_pending');
  });

  it('sends walk-in routes and at-home routes only to orders of their kind', async () => {
    const walkIn = await createAppointmentOrder(stack, tenant, CMP_WALK_IN);
    const [slot] = await phlebotomySlots(stack, tenant);
    const wrong = await call(stack.apiUrl, 'POST', `/v3/order/${walkIn}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toMatch(/walk_in_test order/);
    const none = await call(stack.apiUrl, 'GET', `/v3/order/${walkIn}/psc/appointment`, { key: tenant.apiKey });
    expect(none.status).toBe(404);
  });
});

describe('appointments: asynchronous confirmation survives a worker restart', () => {
  let stack: TestStack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack({ worker: false, sandboxCallbacks: true, env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '1500ms' } });
    tenant = await createTenant(stack.db, { environment: 'production' });
  });
  afterAll(() => stack?.close());

  it('a PSC booking stays pending until the provider confirms, also when the confirmation arrives while no worker runs', async () => {
    let worker = await startReplaceableWorker(stack);
    try {
      const orderId = await createAppointmentOrder(stack, tenant, CMP_WALK_IN);
      await orderReaches(stack, tenant, orderId, 'appointment_pending');
      const [slot] = await pscSlots(stack, tenant);
      const booked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book?async_confirmation=true`, {
        key: tenant.apiKey,
        body: { booking_key: slot.booking_key, appointment_notes: 'Wheelchair access' },
      });
      expect(booked.status).toBe(200);
      expect(booked.body).toMatchObject({ status: 'pending', event_status: 'pending', appointment_notes: 'Wheelchair access' });

      await worker.stop();
      // The provider's confirmation is a signed callback to labflow; it lands in the appointment's
      // workflow history even while no worker runs.
      await eventually(async () => {
        const history = await stack.temporal.workflow.getHandle(appointmentWorkflowId(orderId, 1)).fetchHistory();
        return history.events?.some((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'appointmentProviderUpdate') ? true : undefined;
      }, 'the provider confirmation signal');
      worker = await startReplaceableWorker(stack);

      const confirmed = await eventually(async () => {
        const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/psc/appointment`, { key: tenant.apiKey });
        return response.body.status === 'confirmed' ? response.body : undefined;
      }, 'the appointment to be confirmed');
      expect(confirmed.events.map((event: { status: string }) => event.status)).toEqual(['pending', 'scheduled']);
      const order = await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
      expect(lows(order)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled']);
    } finally {
      await worker.stop();
    }
  });
});

describe('appointments: sandbox simulation and provider-side scheduling', () => {
  let stack: TestStack;

  beforeAll(async () => {
    // A step of the provider's own takes 1 s: longer than a request takes on a loaded machine, so
    // the provider-managed test still sees the appointment pending before the provider picks a
    // time (at 300 ms a run under load once answered the request after the pick).
    stack = await startStack({ sandboxCallbacks: true, env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '1s' } });
  });
  afterAll(() => stack?.close());

  it.each([
    [
      THYROID_AT_HOME,
      'at_home_phlebotomy',
      ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed', 'partial_results', 'completed'],
    ],
    [CMP_WALK_IN, 'walk_in_test', ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'partial_results', 'completed']],
  ])('POST /v3/order/{id}/test walks a %s (%s) order along its success path, booking and completing its appointment', async (labTestId, method, path) => {
    const tenant = await createTenant(stack.db);
    // This team enabled partial-results webhooks (management API field partial_webhooks_enabled).
    await stack.db.query(`UPDATE teams SET partial_webhooks_enabled = true WHERE id = $1`, [tenant.teamId]);
    const orderId = await createAppointmentOrder(stack, tenant, labTestId);
    const simulated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: { interpretation: 'normal' } });
    expect(simulated.status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    expect(lows(order)).toEqual(path);
    expect(order.events.map((event: { status: string }) => event.status.split('.')[1])).toEqual(path.map(() => method));
    const appointment = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/${method === 'walk_in_test' ? 'psc' : 'phlebotomy'}/appointment`, {
      key: tenant.apiKey,
    });
    expect(appointment.body.status).toBe('completed');
    expect(appointment.body.events.map((event: { status: string }) => event.status)).toEqual(['scheduled', 'in_progress', 'completed']);
    const updates = await eventually(async () => {
      const events = (await outboxEvents(stack, tenant.teamId, orderId)).filter((event) => event.event_type === 'labtest.order.updated');
      return events.length === path.length - 1 ? events : undefined;
    }, 'one labtest.order.updated per transition');
    expect(updates.map((event) => event.status.split('.')[2])).toEqual(path.slice(1));
  });

  it.each([
    [CMP_WALK_IN, 'redraw_available', 'collecting_sample.walk_in_test.redraw_available'],
    [THYROID_AT_HOME, 'sample_error', 'failed.at_home_phlebotomy.sample_error'],
  ])('a sandbox %s order simulated to %s ends there after its appointment', async (labTestId, finalStatus, eventStatus) => {
    const tenant = await createTenant(stack.db);
    const orderId = await createAppointmentOrder(stack, tenant, labTestId);
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=${finalStatus}`, { key: tenant.apiKey })).status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, finalStatus);
    expect(order.last_event.status).toBe(eventStatus);
    expect(lows(order).slice(0, 4)).toEqual(['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled']);
    const result = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    if (finalStatus === 'redraw_available') {
      // Final results with biomarkers missing through a lab error: a redraw may follow.
      expect(result.status).toBe(200);
      expect(result.body.missing_results.length).toBeGreaterThan(0);
      expect(order.has_missing_results).toBe(true);
    } else {
      expect(result.status).toBe(404);
    }
  });

  it('a sandbox order heading for appointment_scheduled stops there with a confirmed appointment', async () => {
    const tenant = await createTenant(stack.db);
    const orderId = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    const refused = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=appointment_cancelled`, { key: tenant.apiKey });
    expect(refused.status).toBe(400);
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=appointment_scheduled`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    const appointment = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/phlebotomy/appointment`, { key: tenant.apiKey });
    expect(appointment.body).toMatchObject({ status: 'confirmed', can_reschedule: true });
    // The order recorded appointment_scheduled on the child's report; in the workflow task that
    // sent it the child would have started its next simulated step's timer (1 s) if it were
    // going on. Its only timer is the no-show deadline, a day after the appointment's end.
    const history = await stack.temporal.workflow.getHandle(appointmentWorkflowId(orderId, 1)).fetchHistory();
    const events = history.events ?? [];
    const lastActivity = events.map((event) => Boolean(event.activityTaskCompletedEventAttributes)).lastIndexOf(true);
    expect(lastActivity).toBeGreaterThan(0);
    const timers = events
      .slice(lastActivity)
      .flatMap((event) => (event.timerStartedEventAttributes ? [Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds)] : []));
    expect(timers.length).toBe(1);
    expect(timers[0]).toBeGreaterThan(24 * 3600);
  });

  it('provider-managed scheduling: a requested at-home appointment is pending until the provider picks a time', async () => {
    const tenant = await createTenant(stack.db, { environment: 'production' });
    const orderId = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const wrongProvider = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/request`, {
      key: tenant.apiKey,
      body: { address: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' }, provider: 'quest' },
    });
    expect(wrongProvider.status).toBe(422);
    const requested = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/request`, {
      key: tenant.apiKey,
      body: {
        address: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
        provider: 'getlabs',
        appointment_notes: 'Mornings only',
      },
    });
    expect(requested.status).toBe(200);
    expect(requested.body).toMatchObject({ status: 'pending', provider: 'getlabs', appointment_notes: 'Mornings only' });
    expect(requested.body.start_at).toBeUndefined();
    const confirmed = await eventually(async () => {
      const response = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/phlebotomy/appointment`, { key: tenant.apiKey });
      return response.body.status === 'confirmed' ? response.body : undefined;
    }, 'the provider to confirm with a time');
    expect(confirmed.start_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(new Date(confirmed.start_at).toLocaleString('en-US', { timeZone: 'America/Phoenix', hour: '2-digit', minute: '2-digit', hour12: false })).toBe(
      '08:00',
    );
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
  });

  it('a provider-side cancellation reaches the appointment and the order, which can then be booked again', async () => {
    const tenant = await createTenant(stack.db, { environment: 'production' });
    const orderId = await createAppointmentOrder(stack, tenant, THYROID_AT_HOME);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    const slots = await phlebotomySlots(stack, tenant);
    const booked = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slots[0].booking_key, appointment_notes: 'Please call first [sandbox:provider_cancel]' },
    });
    expect(booked.status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'appointment_cancelled');
    const cancelled = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/phlebotomy/appointment`, { key: tenant.apiKey });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', event_data: { cancelled_by: 'provider' } });
    const again = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slots[0].booking_key },
    });
    expect(again.status).toBe(200);
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
  });
});
