import { randomBytes } from 'node:crypto';
import { serialization, type Vital, VitalClient, VitalError } from '@tryvital/vital-node';
import { bookingKeySecret, signBookingKey } from '../../src/appointments/booking-key';
import { createSdkOrderInPhoenix, ORDER_TEST_ENV, orderReaches, PHOENIX, someStartDate, THYROID_AT_HOME, WALK_IN_CMP } from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * At-home phlebotomy and walk-in (PSC) appointments through the official Junction SDK
 * (@tryvital/vital-node). Every SDK call parses labflow's answer with the SDK's own schemas
 * (AppointmentAvailabilitySlots, ClientFacingAppointment, ClientFacingAppointmentCancellationReason,
 * ClientFacingOrder), so each await is a shape check. The SDK parses responses with
 * `allowUnrecognizedEnumValues: true`, so enum fields are additionally checked against the SDK's
 * enums with a strict parse of the raw JSON (`strictly` below).
 */
describe('appointments through @tryvital/vital-node', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let client: VitalClient;

  async function createOrder(labTestId: string): Promise<string> {
    const orderId = await createSdkOrderInPhoenix(client, stack, tenant, labTestId);
    await orderReaches(stack, tenant, orderId, 'appointment_pending');
    return orderId;
  }

  /** The low-level status (third part) of the order's last event, read through the SDK. */
  const lastLow = async (orderId: string) => (await client.labTests.getOrder(orderId)).events.at(-1)?.status.split('.')[2];

  const slotsOf = (availability: Vital.AppointmentAvailabilitySlots) => availability.slots.flatMap((day) => day.slots);

  /** Parses the raw JSON of GET `path` with `schema`, refusing values outside the SDK's enums. */
  async function strictly<T>(schema: { parseOrThrow(raw: unknown, options?: object): T }, path: string, method = 'GET'): Promise<T> {
    const response = await call(stack.apiUrl, method, path, { key: tenant.apiKey });
    expect(response.status).toBe(200);
    return schema.parseOrThrow(response.body, { unrecognizedObjectKeys: 'passthrough', allowUnrecognizedEnumValues: false });
  }

  const rejection = async (pending: Promise<unknown>): Promise<VitalError> => {
    const error = await pending.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(VitalError);
    return error as VitalError;
  };

  beforeAll(async () => {
    stack = await startStack({ env: { ...ORDER_TEST_ENV } });
    tenant = await createTenant(stack.db, { environment: 'production' });
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0, timeoutInSeconds: 20 });
  });
  afterAll(() => stack?.close());

  it('at-home: availability, book, reschedule twice, read, cancel with a listed reason; the order follows', async () => {
    const orderId = await createOrder(THYROID_AT_HOME);
    const startDate = someStartDate();
    const availability = await client.labTests.getPhlebotomyAppointmentAvailability({ startDate, body: { ...PHOENIX, zipCode: '85004' } });
    const slots = slotsOf(availability);
    expect(slots.length).toBeGreaterThan(5);
    for (const slot of slots) {
      expect(slot.bookingKey).toEqual(expect.any(String));
      expect(slot.start).toBeInstanceOf(Date);
      expect(slot.end.getTime()).toBeGreaterThan(slot.start.getTime());
      expect(slot.numAppointmentsAvailable).toBeGreaterThan(0);
    }
    expect(availability.slots[0].date >= startDate).toBe(true);

    const booked = await client.labTests.bookPhlebotomyAppointment(orderId, { bookingKey: slots[0].bookingKey! });
    expect(booked).toMatchObject({
      orderId,
      type: 'phlebotomy',
      provider: 'getlabs',
      status: 'confirmed',
      eventStatus: 'scheduled',
      canReschedule: true,
      ianaTimezone: 'America/Phoenix',
      address: { zipCode: '85004', city: 'Phoenix' },
    });
    expect(booked.startAt).toEqual(slots[0].start);
    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    expect(await lastLow(orderId)).toBe('appointment_scheduled');

    for (const index of [3, 5]) {
      const moved = await client.labTests.reschedulePhlebotomyAppointment(orderId, { bookingKey: slots[index].bookingKey! });
      expect(moved).toMatchObject({ id: booked.id, status: 'confirmed', eventStatus: 'scheduled', canReschedule: true });
      expect(moved.startAt).toEqual(slots[index].start);
    }

    const current = await client.labTests.getPhlebotomyAppointment(orderId);
    expect(current).toMatchObject({ id: booked.id, orderId, type: 'phlebotomy', provider: 'getlabs', status: 'confirmed' });
    expect(current.startAt).toEqual(slots[5].start);
    expect(current.events.map((event) => event.status)).toEqual(['scheduled', 'scheduled', 'scheduled']);
    expect(current.events.every((event) => event.createdAt instanceof Date)).toBe(true);
    expect((await strictly(serialization.ClientFacingAppointment, `/v3/order/${orderId}/phlebotomy/appointment`)).id).toBe(booked.id);

    const reasons = await client.labTests.getPhlebotomyAppointmentCancellationReason();
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons[0]).toEqual({ id: expect.any(String), name: expect.any(String), isRefundable: expect.any(Boolean) });

    const cancelled = await client.labTests.cancelPhlebotomyAppointment(orderId, { cancellationReasonId: reasons[0].id });
    expect(cancelled).toMatchObject({ id: booked.id, status: 'cancelled', eventStatus: 'cancelled', canReschedule: false });
    expect(cancelled.events.at(-1)?.status).toBe('cancelled');
    await orderReaches(stack, tenant, orderId, 'appointment_cancelled');
    const order = await client.labTests.getOrder(orderId);
    expect(order.events.at(-1)?.status).toBe('collecting_sample.at_home_phlebotomy.appointment_cancelled');
    expect(order.details.type).toBe('at_home_phlebotomy');
    expect((await client.labTests.getPhlebotomyAppointment(orderId)).status).toBe('cancelled');
  });

  it('rejects an expired or a forged booking key with a 400 {detail}, and books nothing', async () => {
    const orderId = await createOrder(THYROID_AT_HOME);
    const [slot] = slotsOf(await client.labTests.getPhlebotomyAppointmentAvailability({ startDate: someStartDate(), body: { ...PHOENIX, zipCode: '85004' } }));
    const payload = JSON.parse(Buffer.from(slot.bookingKey!.split('.')[1], 'base64url').toString());
    const expired = signBookingKey(bookingKeySecret(stack.config.phiEncryptionKey), { ...payload, expires_at: new Date(Date.now() - 1000).toISOString() });
    const forged = signBookingKey(bookingKeySecret(randomBytes(32)), payload);
    for (const [bookingKey, detail] of [
      [expired, /expired/],
      [forged, /not valid/],
    ] as const) {
      const error = await rejection(client.labTests.bookPhlebotomyAppointment(orderId, { bookingKey }));
      expect(error.statusCode).toBe(400);
      expect(error.body).toEqual({ detail: expect.stringMatching(detail) });
    }
    expect((await rejection(client.labTests.getPhlebotomyAppointment(orderId))).statusCode).toBe(404);
    expect(await lastLow(orderId)).toBe('appointment_pending');
  });

  it('walk-in: PSC availability near 10001, book, read back; the order is scheduled', async () => {
    const orderId = await createOrder(WALK_IN_CMP);
    const availability = await client.labTests.getPscAppointmentAvailability({ lab: 'quest', zipCode: '10001', radius: '25', startDate: someStartDate() });
    const slots = slotsOf(availability);
    expect(slots.length).toBeGreaterThan(0);
    const day = availability.slots.find((candidate) => candidate.slots.length > 0)!;
    expect(day.location).toMatchObject({ code: expect.any(String), name: expect.any(String), address: { zipCode: expect.any(String) } });

    const booked = await client.labTests.bookPscAppointment(orderId, { bookingKey: slots[0].bookingKey! });
    expect(booked).toMatchObject({
      orderId,
      type: 'patient_service_center',
      provider: 'quest',
      status: 'confirmed',
      eventStatus: 'scheduled',
      canReschedule: true,
    });
    expect(booked.startAt).toEqual(slots[0].start);

    const read = await client.labTests.getPscAppointment(orderId);
    expect(read).toMatchObject({ id: booked.id, type: 'patient_service_center', provider: 'quest', status: 'confirmed' });
    expect(read.startAt).toEqual(slots[0].start);
    expect((await strictly(serialization.ClientFacingAppointment, `/v3/order/${orderId}/psc/appointment`)).type).toBe('patient_service_center');

    await orderReaches(stack, tenant, orderId, 'appointment_scheduled');
    const order = await client.labTests.getOrder(orderId);
    expect(order.events.at(-1)?.status).toBe('collecting_sample.walk_in_test.appointment_scheduled');
    expect(order.details.type).toBe('walk_in_test');

    // The SDK sends this cancel body camelCase ({cancellationReasonId, note}), unlike the at-home one.
    const reasons = await client.labTests.getPscAppointmentCancellationReason();
    const noReason = await call(stack.apiUrl, 'PATCH', `/v3/order/${orderId}/psc/appointment/cancel`, { key: tenant.apiKey, body: { note: 'why?' } });
    expect(noReason.status).toBe(422);
    expect(noReason.body.detail[0].loc).toEqual(['body', 'cancellation_reason_id']);
    const cancelled = await client.labTests.cancelPscAppointment(orderId, { cancellationReasonId: reasons[0].id, note: 'Moved away' });
    expect(cancelled).toMatchObject({ id: booked.id, status: 'cancelled', eventStatus: 'cancelled', canReschedule: false });
    await orderReaches(stack, tenant, orderId, 'appointment_cancelled');
    await expect(client.labTests.cancelPscAppointment(orderId, { cancellationReasonId: 'no-such-reason' })).rejects.toMatchObject({ statusCode: 422 });
  });
});
