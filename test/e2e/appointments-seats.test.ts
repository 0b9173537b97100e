import { randomUUID } from 'node:crypto';
import { createUser, ORDER_TEST_ENV, orderReaches, patientAddress, patientDetails, someStartDate, THYROID_AT_HOME, WALK_IN_CMP } from '../helpers/orders';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

const PHLEBOTOMY = '/v3/order/phlebotomy/appointment/availability';
const PSC = '/v3/order/psc/appointment/availability';
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
/** The second sandbox phlebotomy zip (the booking tests book in 85004). */
const ONALASKA = { first_line: '100 Main St', city: 'Onalaska', state: 'WI', zip_code: '54650' };
/** A service center the booking tests do not book (they take the first slots of the nearest one). */
const PSC_SITE = 'QSB-NJ-0001';

interface Slot {
  booking_key: string;
  start: string;
  num_appointments_available: number;
}
interface Day {
  date: string;
  location?: { code: string };
  slots: Slot[];
}

const slotsOf = (answer: HttpResult) => (answer.body.slots as Day[]).flatMap((day) => day.slots);
const at = (answer: HttpResult, start: string) => slotsOf(answer).find((slot) => slot.start === start);

/**
 * Availability subtracts the seats labflow's appointments hold (appointment_slot_reservations)
 * from each slot's capacity and leaves out full slots, on every answer: `direct` answers with
 * the Redis availability cache off, `cached` (a second API on the same database and Redis, no
 * worker) with it on, so its answers after the first are cache hits holding the grid from
 * before the booking.
 */
describe('appointment availability counts the seats labflow holds', () => {
  let direct: TestStack;
  let cached: TestStack;
  let tenant: Tenant;

  beforeAll(async () => {
    direct = await startStack({ env: { ...ORDER_TEST_ENV, APPOINTMENT_PROVIDER_STEP_DELAY: '300ms', APPOINTMENT_AVAILABILITY_CACHE_TTL: '0s' } });
    cached = await startStack({ worker: false, env: { APPOINTMENT_AVAILABILITY_CACHE_TTL: '10m' } });
    tenant = await createTenant(direct.db, { environment: 'production' });
  });
  afterAll(async () => {
    await cached?.close();
    await direct?.close();
  });

  async function orderFor(labTestId: string, address: Record<string, unknown>): Promise<string> {
    const userId = await createUser(direct, tenant);
    const response = await call(direct.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: { user_id: userId, lab_test_id: labTestId, patient_details: patientDetails(), patient_address: address, physician: PHYSICIAN },
    });
    expect(response.status).toBe(200);
    const orderId = response.body.order.id as string;
    await orderReaches(direct, tenant, orderId, 'appointment_pending');
    return orderId;
  }

  /** The same availability request to both APIs; checks each answer's status, cache outcome and 14 days. */
  async function availability(path: string, body: unknown, cachedOutcomes: string[]): Promise<{ direct: HttpResult; cached: HttpResult }> {
    const options = { key: tenant.apiKey, ...(body === undefined ? {} : { body }) };
    const answers = { direct: await call(direct.apiUrl, 'POST', path, options), cached: await call(cached.apiUrl, 'POST', path, options) };
    for (const answer of Object.values(answers)) {
      expect(answer.status).toBe(200);
      // Days whose slots are all gone stay: always 14 days per site.
      expect(answer.body.slots).toHaveLength(14);
    }
    expect(answers.direct.headers.get('x-labflow-cache')).toBe('off');
    expect(cachedOutcomes).toContain(answers.cached.headers.get('x-labflow-cache'));
    return answers;
  }

  it('at-home: a booked slot (one phlebotomist) leaves availability and comes back when the appointment is cancelled', async () => {
    // A ZIP+4 patient: seats are counted per coverage area, the 5-digit zip.
    const zipPlus4 = `${ONALASKA.zip_code}-4411`;
    const orderId = await orderFor(THYROID_AT_HOME, {
      ...patientAddress(),
      first_line: ONALASKA.first_line,
      city: ONALASKA.city,
      state: ONALASKA.state,
      zip: zipPlus4,
    });
    // Its own cache entry: the cache key includes the whole address.
    const path = `${PHLEBOTOMY}?start_date=${someStartDate()}`;
    const address = { ...ONALASKA, zip_code: zipPlus4, second_line: randomUUID() };

    const before = await availability(path, address, ['miss']);
    const day = (before.direct.body.slots as Day[]).find((candidate) => candidate.slots.length === 10)!;
    const slot = day.slots[6];
    expect(slot.num_appointments_available).toBe(1);
    expect(at(before.cached, slot.start)).toMatchObject({ num_appointments_available: 1 });

    const booked = await call(direct.apiUrl, 'POST', `/v3/order/${orderId}/phlebotomy/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(booked.status).toBe(200);
    expect(Date.parse(booked.body.start_at)).toBe(Date.parse(slot.start));
    expect(booked.body.address.zip_code).toBe(zipPlus4);

    const full = await availability(path, address, ['hit']);
    for (const answer of [full.direct, full.cached]) {
      expect(at(answer, slot.start)).toBeUndefined();
      const sameDay = (answer.body.slots as Day[]).find((candidate) => candidate.date === day.date)!;
      expect(sameDay.slots.map((free) => free.start)).toEqual(day.slots.filter((free) => free.start !== slot.start).map((free) => free.start));
      expect(slotsOf(answer)).toHaveLength(slotsOf(before.direct).length - 1);
    }
    const fiveDigits = await availability(path, { ...address, zip_code: ONALASKA.zip_code }, ['miss']);
    for (const answer of [fiveDigits.direct, fiveDigits.cached]) expect(at(answer, slot.start)).toBeUndefined();

    const cancelled = await call(direct.apiUrl, 'PATCH', `/v3/order/${orderId}/phlebotomy/appointment/cancel`, {
      key: tenant.apiKey,
      body: { cancellation_reason_id: 'patient_request' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');

    const freed = await availability(path, address, ['hit']);
    for (const answer of [freed.direct, freed.cached]) {
      expect(at(answer, slot.start)).toMatchObject({ num_appointments_available: 1 });
      expect(slotsOf(answer)).toHaveLength(slotsOf(before.direct).length);
    }
  });

  it("PSC: a booked seat leaves two of the slot's three, cached answer included; rescheduling moves the seat", async () => {
    const orderId = await orderFor(WALK_IN_CMP, patientAddress());
    const path = `${PSC}?lab=quest&site_codes=${PSC_SITE}&start_date=${someStartDate()}`;

    // A query an earlier run may have cached (the grid does not change): a miss or a hit.
    const before = await availability(path, undefined, ['miss', 'hit']);
    const day = (before.direct.body.slots as Day[]).find((candidate) => candidate.slots.length === 24)!;
    expect(day.location?.code).toBe(PSC_SITE);
    const [slot, later] = [day.slots[11], day.slots[17]];
    for (const answer of [before.direct, before.cached]) {
      expect(at(answer, slot.start)).toMatchObject({ num_appointments_available: 3 });
      expect(at(answer, later.start)).toMatchObject({ num_appointments_available: 3 });
    }

    const booked = await call(direct.apiUrl, 'POST', `/v3/order/${orderId}/psc/appointment/book`, {
      key: tenant.apiKey,
      body: { booking_key: slot.booking_key },
    });
    expect(booked.status).toBe(200);
    expect(booked.body.status).toBe('confirmed');

    const one = await availability(path, undefined, ['hit']);
    for (const answer of [one.direct, one.cached]) {
      expect(at(answer, slot.start)).toMatchObject({ num_appointments_available: 2 });
      expect(at(answer, later.start)).toMatchObject({ num_appointments_available: 3 });
      // Every other slot of the window still has all three seats.
      expect(
        slotsOf(answer)
          .filter((free) => free.start !== slot.start)
          .every((free) => free.num_appointments_available === 3),
      ).toBe(true);
    }

    const moved = await call(direct.apiUrl, 'PATCH', `/v3/order/${orderId}/psc/appointment/reschedule`, {
      key: tenant.apiKey,
      body: { booking_key: later.booking_key },
    });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.start_at)).toBe(Date.parse(later.start));

    const after = await availability(path, undefined, ['hit']);
    for (const answer of [after.direct, after.cached]) {
      expect(at(answer, slot.start)).toMatchObject({ num_appointments_available: 3 });
      expect(at(answer, later.start)).toMatchObject({ num_appointments_available: 2 });
    }
  });
});
