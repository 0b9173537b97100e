import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { TIMESERIES_RESOURCES, type TimeseriesResource } from '../../src/health-data/registry';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { waitFor } from '../helpers/webhook-receiver';

/**
 * Timeseries ingestion (`POST /v2/timeseries/{user_id}/{resource}`) read back through the SDK
 * (`client.vitals.*Grouped` and the legacy arrays): the replacement rule, validation, bounds,
 * large batches, paging and team scoping. Every SDK call parses the response, so each one is a
 * shape check too.
 */
describe('health data: timeseries', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let client: VitalClient;
  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });
  const createUser = async (extra: object = {}) => {
    const response = await api('POST', '/v2/user', { body: { client_user_id: `hd-${randomUUID()}`, ...extra } });
    expect(response.status).toBe(200);
    return response.body.user_id as string;
  };
  const ingest = (userId: string, resource: string, body: object) => api('POST', `/v2/timeseries/${userId}/${resource}`, { body });
  const day = '2026-11-20';

  beforeAll(async () => {
    // The relay turns gathered timeseries events into outbox rows (nothing is delivered: no endpoint).
    stack = await startStack({
      worker: false,
      events: { relay: true, delivery: false },
      env: { HEALTH_DATA_PAGE_SIZE: '500', HEALTH_DATA_EVENT_WINDOW: '0s' },
    });
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  });
  afterAll(() => stack.close());

  it('a provider slug named like an object property (__proto__, constructor) is a provider like any other', async () => {
    const userId = await createUser();
    for (const provider of ['__proto__', 'constructor']) {
      const stored = await ingest(userId, 'heartrate', { provider, data: [{ timestamp: `${day}T10:00:00Z`, value: 70 }] });
      expect(stored.status).toBe(200);
    }
    const grouped = await api('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&end_date=${day}`);
    expect(grouped.status).toBe(200);
    expect(Object.keys(grouped.body.groups).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(grouped.body.groups, '__proto__')?.value[0].data[0].value).toBe(70);

    const introspected = await api('GET', `/v2/introspect/resources?user_id=${userId}`);
    expect(introspected.status).toBe(200);
    expect(Object.keys(introspected.body.data[0].provider).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(introspected.body.data[0].provider, '__proto__')?.value.heartrate.sent_count).toBe(1);
    const pulls = await api('GET', `/v2/introspect/historical_pull?user_id=${userId}`);
    expect(pulls.status).toBe(200);
    expect(Object.keys(pulls.body.data[0].provider).sort()).toEqual(['__proto__', 'constructor']);
    // Nothing leaked onto Object.prototype in the API process (it shares this one in tests).
    expect(({} as Record<string, unknown>).heartrate).toBeUndefined();
  });

  it('stores heart rate and reads it grouped by provider and source through the SDK', async () => {
    const userId = await createUser();
    const samples = [0, 1, 2].map((minute) => ({ timestamp: `${day}T08:0${minute}:00Z`, value: 60 + minute, unit: 'bpm' }));
    const stored = await ingest(userId, 'heartrate', { provider: 'oura', source_type: 'ring', data: samples });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ resource: 'heartrate', stored: 3, created: 3, updated: 0 });
    await ingest(userId, 'heartrate', { data: [{ timestamp: `${day}T09:00:00Z`, value: 90 }] });

    const grouped = await client.vitals.heartrateGrouped(userId, { startDate: day, endDate: day });
    expect(Object.keys(grouped.groups).sort()).toEqual(['manual', 'oura']);
    expect(grouped.groups.oura[0].source).toMatchObject({ provider: 'oura', type: 'ring' });
    expect(grouped.groups.oura[0].data.map((s) => s.value)).toEqual([60, 61, 62]);
    expect(grouped.groups.oura[0].data[0]).toMatchObject({ unit: 'bpm', timezoneOffset: 0 });
    expect(grouped.groups.oura[0].data[0].timestamp.toISOString()).toBe(`${day}T08:00:00.000Z`);
    expect(grouped.groups.manual[0].data.map((s) => s.value)).toEqual([90]);

    // Written as JSON text by the service (JsonText), served as Fastify serves JSON.
    const raw = await api('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&end_date=${day}`);
    expect(raw.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(raw.body).toMatchObject({ groups: { oura: [{ data: [{ value: 60 }, { value: 61 }, { value: 62 }] }] }, next_cursor: null });

    const onlyOura = await client.vitals.heartrateGrouped(userId, { startDate: day, provider: 'oura' });
    expect(Object.keys(onlyOura.groups)).toEqual(['oura']);
    const legacy = await client.vitals.heartrate(userId, { startDate: day, endDate: day });
    expect(legacy.map((s) => s.value)).toEqual([60, 61, 62, 90]);
  });

  it('stores and serves every registry resource in the shape its SDK method parses', async () => {
    const userId = await createUser();
    const at = `${day}T10:00:00Z`;
    const sampleOf = (resource: TimeseriesResource): Record<string, unknown> => {
      const sample: Record<string, unknown> =
        resource.kind === 'blood_pressure'
          ? { timestamp: at, systolic: 120, diastolic: 80 }
          : resource.kind === 'note'
            ? { start: at, end: at, value: 'note' }
            : resource.kind === 'interval'
              ? { start: at, end: `${day}T10:01:00Z`, value: 1 }
              : { timestamp: at, value: 1 };
      if (resource.sampleType?.required) sample.type = resource.sampleType.values?.[0] ?? 'lead_1';
      return sample;
    };
    const vitals = client.vitals as unknown as Record<
      string,
      (user: string, request: object) => Promise<{ groups: Record<string, Array<{ data: Array<{ unit: string }> }>> }>
    >;
    for (const resource of TIMESERIES_RESOURCES) {
      const stored = await ingest(userId, resource.slug, { data: [sampleOf(resource)] });
      expect({ resource: resource.slug, status: stored.status }).toEqual({ resource: resource.slug, status: 200 });
      // client.vitals.<camelCase slug>Grouped, e.g. forcedExpiratoryVolume1Grouped.
      const method = `${resource.slug.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Grouped`;
      const grouped = await vitals[method].call(client.vitals, userId, { startDate: day, endDate: day });
      expect({ resource: resource.slug, unit: grouped.groups.manual[0].data[0].unit }).toEqual({ resource: resource.slug, unit: resource.unit });
    }
    expect(TIMESERIES_RESOURCES).toHaveLength(51);
  });

  it('keeps the latest value per key: repeated and out-of-order samples replace, never duplicate', async () => {
    const userId = await createUser();
    const at = (hour: number) => ({ start: `${day}T${String(hour).padStart(2, '0')}:00:00Z`, end: `${day}T${String(hour).padStart(2, '0')}:59:59Z` });
    await ingest(userId, 'steps', {
      provider: 'fitbit',
      source_type: 'watch',
      data: [
        { ...at(10), value: 100 },
        { ...at(8), value: 80 },
      ],
    });
    // Later request: an earlier bucket completed (out of order), one repeated twice in the batch.
    const second = await ingest(userId, 'steps', {
      provider: 'fitbit',
      source_type: 'watch',
      data: [
        { ...at(8), value: 85 },
        { ...at(9), value: 90 },
        { ...at(8), value: 88 },
      ],
    });
    expect(second.body).toMatchObject({ stored: 2, created: 1, updated: 1 });
    // The same timestamp from another source type is another sample.
    await ingest(userId, 'steps', { provider: 'fitbit', source_type: 'phone', data: [{ ...at(8), value: 7 }] });

    const grouped = await client.vitals.stepsGrouped(userId, { startDate: day, endDate: day });
    const bySource = Object.fromEntries(
      grouped.groups.fitbit.map((group) => [group.source.type, group.data.map((s) => [s.start.toISOString().slice(11, 13), s.value])]),
    );
    expect(bySource).toEqual({
      phone: [['08', 7]],
      watch: [
        ['08', 88],
        ['09', 90],
        ['10', 100],
      ],
    });
    expect(grouped.groups.fitbit[1].data[0]).toMatchObject({ unit: 'count' });
  });

  it('serves blood pressure, cholesterol by type and the legacy sub-routes', async () => {
    const userId = await createUser();
    await ingest(userId, 'blood_pressure', { data: [{ timestamp: `${day}T07:00:00Z`, systolic: 121, diastolic: 79 }] });
    const bp = await client.vitals.bloodPressureGrouped(userId, { startDate: day });
    expect(bp.groups.manual[0].data[0]).toMatchObject({ systolic: 121, diastolic: 79, unit: 'mmHg' });
    const bpLegacy = await client.vitals.bloodPressure(userId, { startDate: day });
    expect(bpLegacy[0]).toMatchObject({ systolic: 121, diastolic: 79 });

    const at = `${day}T07:30:00Z`;
    await ingest(userId, 'cholesterol', {
      data: [
        { timestamp: at, value: 100, type: 'ldl' },
        { timestamp: at, value: 55, type: 'hdl' },
      ],
    });
    const all = await client.vitals.cholesterolGrouped(userId, { startDate: day });
    expect(all.groups.manual[0].data.map((s) => [s.type, s.value]).sort()).toEqual([
      ['hdl', 55],
      ['ldl', 100],
    ]);
    expect((await client.vitals.cholesterolLdl(userId, { startDate: day })).map((s) => s.value)).toEqual([100]);
    expect((await client.vitals.cholesterolHdl(userId, { startDate: day })).map((s) => s.value)).toEqual([55]);

    await ingest(userId, 'body_temperature', { data: [{ start: at, end: at, value: 36.6, sensor_location: 'wrist' }] });
    const temperature = await client.vitals.bodyTemperatureGrouped(userId, { startDate: day });
    expect(temperature.groups.manual[0].data[0]).toMatchObject({ value: 36.6, sensorLocation: 'wrist', unit: '\u00B0C' });
    await ingest(userId, 'note', { data: [{ start: at, end: at, value: 'felt dizzy', tags: ['food'] }] });
    const notes = await client.vitals.noteGrouped(userId, { startDate: day });
    expect(notes.groups.manual[0].data[0]).toMatchObject({ value: 'felt dizzy', tags: ['food'] });
  });

  it('refuses a batch with a bad sample, naming it, and writes nothing of it', async () => {
    const userId = await createUser();
    const response = await ingest(userId, 'glucose', {
      data: [
        { timestamp: `${day}T08:00:00Z`, value: 5.4 },
        { timestamp: 'yesterday', value: 5 },
        { timestamp: `${day}T08:10:00Z`, value: 'high' },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'data', 1, 'timestamp'],
      ['body', 'data', 2, 'value'],
    ]);
    const unit = await ingest(userId, 'glucose', { data: [{ timestamp: `${day}T08:00:00Z`, value: 97, unit: 'mg/dL' }] });
    expect(unit.status).toBe(422);
    expect(unit.body.detail[0]).toMatchObject({ loc: ['body', 'data', 0, 'unit'] });
    const interval = await ingest(userId, 'steps', { data: [{ start: `${day}T09:00:00Z`, end: `${day}T08:00:00Z`, value: 5 }] });
    expect(interval.body.detail[0]).toMatchObject({ loc: ['body', 'data', 0, 'end'] });
    const grouped = await client.vitals.glucoseGrouped(userId, { startDate: day });
    expect(grouped.groups).toEqual({});
    expect((await ingest(userId, 'no_such_resource', { data: [] })).status).toBe(404);
  });

  it("honours the user's ingestion bounds and fallback time zone", async () => {
    const userId = await createUser({ ingestion_start: '2026-11-19', ingestion_end: '2026-11-20', fallback_time_zone: 'America/New_York' });
    const response = await ingest(userId, 'water', {
      data: [
        { timestamp: '2026-11-18T12:00:00Z', value: 100 },
        { timestamp: '2026-11-19T12:00:00', value: 200 },
        { timestamp: '2026-11-21T12:00:00Z', value: 300 },
      ],
    });
    expect(response.body).toMatchObject({ stored: 1, outside_ingestion_bounds: 2 });
    const water = await client.vitals.water(userId, { startDate: '2026-11-01', endDate: '2026-11-30' });
    // Local noon in New York (offset-less timestamp) is 17:00 UTC; the offset is stamped.
    expect(water).toHaveLength(1);
    expect(water[0].timestamp.toISOString()).toBe('2026-11-19T17:00:00.000Z');
    expect(water[0].timezoneOffset).toBe(-5 * 3600);
  });

  it('accepts tens of thousands of samples in one request and pages them with next_cursor', async () => {
    const userId = await createUser();
    const start = Date.parse('2026-10-25T00:00:00Z');
    const data = Array.from({ length: 30_000 }, (_, i) => ({ timestamp: new Date(start + i * 60_000).toISOString(), value: 50 + (i % 60) }));
    const response = await ingest(userId, 'heartrate', { provider: 'apple_health_kit', source_type: 'watch', time_zone: 'Europe/Berlin', data });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ stored: 30_000, created: 30_000 });

    // One day (1,440 minutes) in pages of 500.
    const values: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.vitals.heartrateGrouped(userId, { startDate: '2026-11-01', endDate: '2026-11-01', nextCursor: cursor });
      for (const group of page.groups.apple_health_kit ?? []) values.push(...group.data.map((s) => s.value));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(values).toHaveLength(1440);
  });

  it("answers 404 for another team's user, on writes and reads", async () => {
    const userId = await createUser();
    const foreign = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: other.apiKey, body });
    expect((await foreign('POST', `/v2/timeseries/${userId}/heartrate`, { data: [{ timestamp: `${day}T08:00:00Z`, value: 60 }] })).status).toBe(404);
    expect((await foreign('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}`)).status).toBe(404);
    expect((await foreign('GET', `/v2/timeseries/${userId}/heartrate?start_date=${day}`)).status).toBe(404);
    // The grouped read checks the user while it reads: the user's samples still never reach
    // another team, and the user check answers first whatever else is wrong with the query.
    expect((await ingest(userId, 'heartrate', { data: [{ timestamp: `${day}T08:00:00Z`, value: 60 }] })).status).toBe(200);
    const grouped = await foreign('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&end_date=${day}`);
    expect(grouped).toMatchObject({ status: 404, body: { detail: 'User not found.' } });
    expect(JSON.stringify(grouped.body)).not.toContain('groups');
    const badCursor = await foreign('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&next_cursor=nope`);
    expect(badCursor).toMatchObject({ status: 404, body: { detail: 'User not found.' } });
    const backwards = await foreign('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&end_date=2026-11-01`);
    expect(backwards).toMatchObject({ status: 404, body: { detail: 'User not found.' } });
    expect((await api('GET', `/v2/timeseries/${userId}/heartrate/grouped?start_date=${day}&next_cursor=nope`)).status).toBe(422);
  });

  it('records timeseries events created then updated, and the end of a backfill after its samples', async () => {
    const userId = await createUser();
    const data = [
      { timestamp: `${day}T08:00:00Z`, value: 5.5 },
      { timestamp: `${day}T08:05:00Z`, value: 5.9 },
    ];
    await ingest(userId, 'glucose', { provider: 'freestyle_libre', data });
    await ingest(userId, 'glucose', { provider: 'freestyle_libre', data: [{ timestamp: `${day}T08:05:00Z`, value: 6.1 }] });
    await ingest(userId, 'body_weight', { stage: 'historical', start_date: '2026-11-01', end_date: day, data: [{ timestamp: `${day}T06:00:00Z`, value: 70 }] });
    // Gathered for HEALTH_DATA_EVENT_WINDOW (0 s here), then written to the outbox by the relay.
    const rows: Array<{ event_type: string }> = await waitFor(async () => {
      const written: Array<{ event_type: string }> = await stack.db.query(`SELECT event_type FROM event_outbox WHERE user_id = $1 ORDER BY created_at, id`, [
        userId,
      ]);
      return written.length >= 4 && written;
    });
    expect(rows.map((row) => row.event_type)).toEqual([
      'daily.data.glucose.created',
      'daily.data.glucose.updated',
      'daily.data.weight.created',
      'historical.data.weight.created',
    ]);
  });
});
