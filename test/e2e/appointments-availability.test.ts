import { randomUUID } from 'node:crypto';
import { VitalClient } from '@tryvital/vital-node';
import { SandboxPhlebotomyProvider } from '../../src/appointments/providers/sandbox-phlebotomy.provider';
import { SandboxPscProvider } from '../../src/appointments/providers/sandbox-psc.provider';
import { AppointmentAvailabilityService } from '../../src/appointments/appointment-availability.service';
import { addDays } from '../../src/appointments/zoned-time';
import { dstWeek, someStartDate } from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

const PHLEBOTOMY = '/v3/order/phlebotomy/appointment/availability';
const PSC = '/v3/order/psc/appointment/availability';
// A week around the start of daylight saving time that no other test books in (slots are shared).
const { start: START, friday: FRIDAY, sunday: SUNDAY, monday: MONDAY } = dstWeek();
const DATES = Array.from({ length: 14 }, (_, i) => addDays(START, i));

describe('appointment availability (phlebotomy and PSC)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });
  // A unique second_line gives every test its own cache entry (Redis is shared between runs).
  const address = (zip = '85004') => ({ first_line: '1 Main St', second_line: randomUUID(), city: 'Phoenix', state: 'AZ', zip_code: zip });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { APPOINTMENT_AVAILABILITY_CACHE_TTL: '1500ms' } });
    tenant = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  it('PSC: 14 days per site, 07:00–15:00 New York time every 20 minutes across the DST change', async () => {
    const response = await api('POST', `${PSC}?lab=quest&start_date=${START}&zip_code=10001&radius=10&site_codes=QSB-NYC-0002`);
    expect(response.status).toBe(200);
    expect(response.body.timezone).toBe('America/New_York');
    const days = response.body.slots as Array<{ date: string; location: { code: string }; slots: Array<{ start: string; end: string; booking_key: string }> }>;
    expect(days.map((day) => day.date)).toEqual(DATES);
    expect(new Set(days.map((day) => day.location.code))).toEqual(new Set(['QSB-NYC-0002']));
    const monday = days.find((day) => day.date === MONDAY)!;
    const friday = days.find((day) => day.date === FRIDAY)!;
    expect(friday.slots[0].start).toBe(`${FRIDAY}T07:00:00-05:00`);
    expect(monday.slots[0].start).toBe(`${MONDAY}T07:00:00-04:00`);
    expect(monday.slots.at(-1)!.end).toBe(`${MONDAY}T15:00:00-04:00`);
    expect(new Date(friday.slots[0].start).toISOString()).toBe(`${FRIDAY}T12:00:00.000Z`);
    expect(new Date(monday.slots[0].start).toISOString()).toBe(`${MONDAY}T11:00:00.000Z`);
    expect(days.find((day) => day.date === SUNDAY)!.slots).toEqual([]);
    const verified = stack.api.get(AppointmentAvailabilityService).bookingKeys.verifyBookingKey(monday.slots[0].booking_key);
    expect(verified).toMatchObject({ kind: 'psc', site: 'QSB-NYC-0002', team_id: tenant.teamId, start: monday.slots[0].start });
  });

  it('phlebotomy: covered zips answer 14 days; others 404', async () => {
    const phoenix = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body: address('85004') });
    expect(phoenix.status).toBe(200);
    expect(phoenix.body.timezone).toBe('America/Phoenix');
    expect(phoenix.body.slots.map((day: { date: string }) => day.date)).toEqual(DATES);
    expect(phoenix.body.slots[0].slots[0]).toMatchObject({ start: `${START}T07:00:00-07:00`, is_priority: true });

    // ZIP+4 is in its 5-digit zip's area.
    const phoenixPlus4 = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body: address('85004-1234') });
    expect(phoenixPlus4.status).toBe(200);
    expect(phoenixPlus4.body.timezone).toBe('America/Phoenix');
    expect(phoenixPlus4.body.slots.map((day: { date: string }) => day.date)).toEqual(DATES);

    const chicago = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body: address('54650') });
    expect(chicago.status).toBe(200);
    expect(chicago.body.timezone).toBe('America/Chicago');

    const uncovered = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body: address('10001') });
    expect(uncovered.status).toBe(404);
    expect(uncovered.body.detail).toMatch(/coverage/);
    const nearPlus4 = await api('POST', `${PSC}?lab=quest&zip_code=10001-2062&radius=10&start_date=${START}`);
    expect(nearPlus4.status).toBe(200);
    expect(nearPlus4.body.timezone).toBe('America/New_York');
    const farAway = await api('POST', `${PSC}?lab=quest&zip_code=85004&radius=100&start_date=${START}`);
    expect(farAway.status).toBe(404);
    expect(typeof farAway.body.detail).toBe('string');
  });

  it('defaults start_date to today and refuses bad input with 422', async () => {
    const today = await api('POST', PHLEBOTOMY, { body: address() });
    expect(today.status).toBe(200);
    expect(today.body.slots).toHaveLength(14);

    const cases: Array<[string, unknown]> = [
      [`${PHLEBOTOMY}?start_date=2020-01-01`, address()],
      [`${PHLEBOTOMY}?start_date=2027-02-30`, address()],
      [`${PHLEBOTOMY}?start_date=${START}`, { ...address(), zip_code: '8500' }],
      [`${PHLEBOTOMY}?start_date=${START}`, { ...address(), zip_code: '85004-12' }],
      [`${PHLEBOTOMY}?start_date=${START}`, { ...address(), zip_code: '850041234' }],
      [`${PHLEBOTOMY}?start_date=${START}`, { city: 'Phoenix' }],
      [`${PSC}?lab=quest&zip_code=1000`, undefined],
      [`${PSC}?lab=quest&zip_code=10001&radius=7`, undefined],
      [`${PSC}?lab=labcorp&zip_code=10001`, undefined],
      [`${PSC}?lab=quest`, undefined],
      [`${PSC}?lab=quest&zip_code=10001&start_date=2020-01-01`, undefined],
    ];
    for (const [path, body] of cases) {
      const response = await api('POST', path, body === undefined ? {} : { body });
      expect({ path, status: response.status }).toEqual({ path, status: 422 });
      expect(Array.isArray(response.body.detail)).toBe(true);
    }
  });

  it('needs a team API key', async () => {
    const response = await call(stack.apiUrl, 'POST', `${PSC}?lab=quest&zip_code=10001`);
    expect(response.status).toBe(401);
  });

  it('serves a repeat query from the Redis cache', async () => {
    const provider = stack.api.get(SandboxPhlebotomyProvider);
    const body = address();
    const before = provider.calls;
    const first = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body });
    expect(first.headers.get('x-labflow-cache')).toBe('miss');
    const second = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body });
    expect(second.headers.get('x-labflow-cache')).toBe('hit');
    expect(provider.calls).toBe(before + 1);
    // Same slots, freshly signed booking keys.
    const strip = (days: Array<{ slots: Array<{ start: string }> }>) => days.map((day) => day.slots.map((slot) => slot.start));
    expect(strip(second.body.slots)).toEqual(strip(first.body.slots));
  });

  it('allow_stale=true serves an expired copy at once and refreshes it in the background', async () => {
    const provider = stack.api.get(SandboxPhlebotomyProvider);
    const body = address('54650');
    await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body });
    const afterFirst = provider.calls;
    await sleep(1700); // past the 1.5 s TTL
    const stale = await api('POST', `${PHLEBOTOMY}?start_date=${START}&allow_stale=true`, { body });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-labflow-cache')).toBe('stale');
    expect(stale.body.slots).toHaveLength(14);
    // The background refresh lands; the next call is a fresh hit without computing again.
    const deadline = Date.now() + 5000;
    while (provider.calls === afterFirst && Date.now() < deadline) await sleep(20);
    expect(provider.calls).toBe(afterFirst + 1);
    await sleep(100);
    const fresh = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body });
    expect(fresh.headers.get('x-labflow-cache')).toBe('hit');
    expect(provider.calls).toBe(afterFirst + 1);

    // Without allow_stale an expired copy is recomputed before answering.
    await sleep(1700);
    const recomputed = await api('POST', `${PHLEBOTOMY}?start_date=${START}`, { body });
    expect(recomputed.headers.get('x-labflow-cache')).toBe('miss');
    expect(provider.calls).toBe(afterFirst + 2);
  });

  it('PSC answers are cached per query (site_codes order does not matter)', async () => {
    const provider = stack.api.get(SandboxPscProvider);
    const date = someStartDate(); // a query no earlier run cached
    const first = await api('POST', `${PSC}?lab=quest&start_date=${date}&site_codes=QSB-BOS-0001&site_codes=QSB-NJ-0001`);
    expect(first.status).toBe(200);
    const before = provider.calls;
    const second = await api('POST', `${PSC}?lab=quest&start_date=${date}&site_codes=QSB-NJ-0001,QSB-BOS-0001`);
    expect(second.status).toBe(200);
    expect(provider.calls).toBe(before);
    expect(second.body.slots).toHaveLength(28);
  });

  describe('through the Junction SDK', () => {
    const client = () => new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });

    it('getPhlebotomyAppointmentAvailability parses the answer', async () => {
      const result = await client().labTests.getPhlebotomyAppointmentAvailability({
        startDate: START,
        body: { firstLine: '1 Main St', city: 'Phoenix', state: 'AZ', zipCode: '85004' },
      });
      expect(result.timezone).toBe('America/Phoenix');
      expect(result.slots).toHaveLength(14);
      const slot = result.slots[0].slots[0];
      expect(slot.start).toBeInstanceOf(Date);
      expect(slot.start.toISOString()).toBe(`${START}T14:00:00.000Z`);
      expect(slot.expiresAt).toBeInstanceOf(Date);
      expect(typeof slot.bookingKey).toBe('string');
      // One phlebotomist per slot: a slot takes one appointment.
      expect(slot).toMatchObject({ isPriority: true, numAppointmentsAvailable: 1 });
    });

    it('getPscAppointmentAvailability parses the answer, locations included', async () => {
      const result = await client().labTests.getPscAppointmentAvailability({
        lab: 'quest',
        startDate: START,
        zipCode: '10001',
        radius: '10',
        siteCodes: ['QSB-NYC-0001'],
      });
      expect(result.timezone).toBe('America/New_York');
      expect(result.slots.map((day) => day.date)).toEqual(DATES);
      expect(result.slots[0].location).toMatchObject({ code: 'QSB-NYC-0001', ianaTimezone: 'America/New_York', address: { zipCode: '10001' } });
      expect(result.slots.find((day) => day.date === MONDAY)!.slots[0].start.toISOString()).toBe(`${MONDAY}T11:00:00.000Z`);
    });
  });

  describe('where a patient can be served (area info, PSC info)', () => {
    const client = () => new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });

    it('area info: at-home phlebotomy in Phoenix, Quest service centers around New York, per lab', async () => {
      const phoenix = await client().labTests.getAreaInfo({ zipCode: '85004' });
      expect(phoenix.zipCode).toBe('85004');
      expect(phoenix.phlebotomy).toEqual({ isServed: true, providers: [{ name: 'getlabs', serviceTypes: ['appointment-ready', 'appointment-request'] }] });
      expect(Object.keys(phoenix.centralLabs).sort()).toEqual(['bioreference', 'labcorp', 'quest', 'sonora_quest']);
      expect(phoenix.centralLabs.quest.patientServiceCenters).toEqual({
        appointmentWithVital: true,
        withinRadius: 0,
        radius: '20',
        capabilities: ['appointment_scheduling_via_junction'],
      });

      const newYork = await client().labTests.getAreaInfo({ zipCode: '10001', radius: '10', labs: ['quest', 'labcorp'] });
      expect(newYork.phlebotomy).toEqual({ isServed: false, providers: [] });
      expect(Object.keys(newYork.centralLabs).sort()).toEqual(['labcorp', 'quest']);
      // Chelsea, Union Square and Jersey City are within 10 miles; Boston is not.
      expect(newYork.centralLabs.quest).toMatchObject({
        labId: 1,
        patientServiceCenters: { withinRadius: 3, radius: '10' },
        supportedBillTypes: expect.arrayContaining(['client_bill']),
      });
      expect(newYork.centralLabs.labcorp.patientServiceCenters).toMatchObject({
        appointmentWithVital: false,
        withinRadius: 0,
        capabilities: ['appointment_scheduling_with_lab'],
      });
      const boston = await api('GET', '/v3/order/area/info?zip_code=02108&radius=10&lab=quest');
      expect(boston.status).toBe(200);
      expect(Object.keys(boston.body.central_labs)).toEqual(['quest']);
      expect(boston.body.central_labs.quest.patient_service_centers.within_radius).toBe(1);

      // A lab account narrows the answer to its lab and its bill types.
      const questPlatform = '1ab0acc0-0000-4000-8000-000000000001';
      const [account] = (await api('GET', `/v3/lab_test/lab_account?lab_account_id=${questPlatform}`)).body.data;
      const byAccount = await api('GET', `/v3/order/area/info?zip_code=10001&lab_account_id=${questPlatform}`);
      expect(Object.keys(byAccount.body.central_labs)).toEqual(['quest']);
      expect(byAccount.body.central_labs.quest.supported_bill_types).toEqual([...account.allowed_billing].sort());
      const wrongLab = await api('GET', `/v3/order/psc/info?zip_code=10001&lab_id=2&lab_account_id=${questPlatform}`);
      expect(wrongLab.status).toBe(422);
      expect(wrongLab.body.detail[0].loc).toEqual(['query', 'lab_account_id']);
    });

    it('PSC info: the lab’s centers nearest first, with distance, bill types and capabilities; the same for an order’s patient', async () => {
      const info = await client().labTests.getPscInfo({ zipCode: '10001', labId: 1, radius: '10' });
      expect(info).toMatchObject({ labId: 1, slug: 'quest' });
      expect(info.patientServiceCenters.map((site) => site.siteCode)).toEqual(['QSB-NYC-0001', 'QSB-NYC-0002', 'QSB-NJ-0001']);
      expect(info.patientServiceCenters[0]).toMatchObject({
        metadata: { name: 'Quest Diagnostics Sandbox - Chelsea', firstLine: '360 W 31st St', city: 'New York', state: 'NY', zipCode: '10001' },
        location: { lat: 40.7484, lng: -73.9967 },
        capabilities: ['appointment_scheduling_via_junction'],
      });
      expect(info.patientServiceCenters[0].distance).toBeLessThan(info.patientServiceCenters[1].distance);
      expect(info.patientServiceCenters[0].supportedBillTypes).toContain('client_bill');
      // A capability no site has leaves none.
      expect((await api('GET', '/v3/order/psc/info?zip_code=10001&lab_id=1&capabilities=stat')).body.patient_service_centers).toEqual([]);
      expect((await api('GET', '/v3/order/psc/info?zip_code=10001&lab_id=2')).body).toEqual({ lab_id: 2, slug: 'labcorp', patient_service_centers: [] });

      const user = await api('POST', '/v2/user', { body: { client_user_id: `psc-${randomUUID()}` } });
      const order = await api('POST', '/v3/order', {
        body: {
          user_id: user.body.user_id,
          lab_test_id: '1ab7e570-0000-4000-8000-000000000003',
          patient_details: { first_name: 'Ann', last_name: 'Lee', dob: '1990-01-01', gender: 'female', phone_number: '+12125550100', email: 'ann@example.com' },
          patient_address: { first_line: '1 W 34th St', city: 'New York', state: 'NY', zip: '10001', country: 'US' },
          physician: { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' },
        },
      });
      expect(order.status).toBe(200);
      const forOrder = await client().labTests.getOrderPscInfo(order.body.order.id, { radius: '25' });
      expect(forOrder.patientServiceCenters.map((site) => site.siteCode)).toEqual(['QSB-NYC-0001', 'QSB-NYC-0002', 'QSB-NJ-0001']);
      const other = await createTenant(stack.db);
      expect((await call(stack.apiUrl, 'GET', `/v3/order/${order.body.order.id}/psc/info`, { key: other.apiKey })).status).toBe(404);
    });

    it('refuses bad questions with a 422 naming the parameter', async () => {
      const cases: Array<[string, string[]]> = [
        ['/v3/order/area/info', ['query', 'zip_code']],
        ['/v3/order/area/info?zip_code=1000', ['query', 'zip_code']],
        ['/v3/order/area/info?zip_code=10001&radius=7', ['query', 'radius']],
        ['/v3/order/area/info?zip_code=10001&lab=nolab', ['query', 'lab']],
        ['/v3/order/area/info?zip_code=10001&lab_account_id=nope', ['query', 'lab_account_id']],
        ['/v3/order/psc/info?zip_code=10001', ['query', 'lab_id']],
        ['/v3/order/psc/info?zip_code=10001&lab_id=999', ['query', 'lab_id']],
        ['/v3/order/psc/info?zip_code=10001&lab_id=1&capabilities=teleport', ['query', 'capabilities', 0]] as unknown as [string, string[]],
      ];
      for (const [path, loc] of cases) {
        const response = await api('GET', path);
        expect({ path, status: response.status, loc: response.body.detail?.[0]?.loc }).toEqual({ path, status: 422, loc });
      }
    });
  });
});
