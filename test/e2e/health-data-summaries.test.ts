import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Summaries (`POST /v2/summary/{resource}/{user_id}`) read back through the SDK
 * (`client.activity.get`, `client.sleep.get`, ...), streams, devices, introspection and
 * providers. Each SDK call parses what it gets, so each is a shape check.
 */
describe('health data: summaries, streams, introspection', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let client: VitalClient;
  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });
  const createUser = async () => {
    const response = await api('POST', '/v2/user', { body: { client_user_id: `hd-${randomUUID()}` } });
    return response.body.user_id as string;
  };
  const ingest = (userId: string, type: string, body: object) => api('POST', `/v2/summary/${type}/${userId}`, { body });
  const day = '2026-11-20';

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  });
  afterAll(() => stack.close());

  it('replaces an activity day by its latest version and emits created then updated', async () => {
    const userId = await createUser();
    const first = await ingest(userId, 'activity', { provider: 'fitbit', data: [{ calendar_date: day, steps: 4000, calories_total: 1800 }] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ stored: 1, created: 1 });
    await ingest(userId, 'activity', { provider: 'fitbit', data: [{ calendar_date: day, steps: 9000, calories_total: 2100 }] });
    await ingest(userId, 'activity', { provider: 'fitbit', data: [{ calendar_date: '2026-11-21', steps: 100 }] });

    const { activity } = await client.activity.get(userId, { startDate: day, endDate: day });
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({ userId, calendarDate: day, steps: 9000, caloriesTotal: 2100, source: { provider: 'fitbit' } });
    expect(activity[0].date.toISOString()).toBe(`${day}T00:00:00.000Z`);
    const raw = await client.activity.getRaw(userId, { startDate: day, endDate: '2026-11-21' });
    expect(raw.activity.map((a) => a.data.steps)).toEqual([9000, 100]);

    const events: Array<{ event_type: string; subject_id: string }> = await stack.db.query(
      `SELECT event_type, subject_id FROM event_outbox WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    expect(events.map((e) => e.event_type)).toEqual(['daily.data.activity.created', 'daily.data.activity.updated', 'daily.data.activity.created']);
    expect(events[0].subject_id).toBe(activity[0].id);
    expect(events[1].subject_id).toBe(activity[0].id);
  });

  it('serves sleep with its stream from the timeseries of the same night', async () => {
    const userId = await createUser();
    const sleep = {
      calendar_date: day,
      bedtime_start: '2026-11-19T23:00:00Z',
      bedtime_stop: '2026-11-20T07:00:00Z',
      duration: 28_800,
      total: 27_000,
      awake: 1_800,
      light: 14_000,
      rem: 6_000,
      deep: 7_000,
    };
    expect((await ingest(userId, 'sleep', { provider: 'oura', source_type: 'ring', data: [sleep] })).status).toBe(200);
    await api('POST', `/v2/timeseries/${userId}/hypnogram`, {
      body: { provider: 'oura', source_type: 'ring', data: [{ start: '2026-11-19T23:00:00Z', end: '2026-11-19T23:30:00Z', value: 2 }] },
    });
    await api('POST', `/v2/timeseries/${userId}/heartrate`, {
      body: {
        provider: 'oura',
        source_type: 'ring',
        data: [
          { timestamp: '2026-11-20T03:00:00Z', value: 52 },
          { timestamp: '2026-11-20T12:00:00Z', value: 80 },
        ],
      },
    });
    const { sleep: nights } = await client.sleep.get(userId, { startDate: day });
    expect(nights).toHaveLength(1);
    expect(nights[0]).toMatchObject({ total: 27_000, type: 'long_sleep', source: { provider: 'oura', type: 'ring' } });
    const stream = await client.sleep.getStreamBySleepId(nights[0].id);
    expect(stream.hypnogram?.map((s) => s.value)).toEqual([2]);
    expect(stream.heartrate?.map((s) => s.value)).toEqual([52]);
    expect((await client.sleep.getRaw(userId, { startDate: day })).sleep).toHaveLength(1);
  });

  it('serves workouts with their stream, body, profile and devices', async () => {
    const userId = await createUser();
    const workout = {
      calendar_date: day,
      time_start: `${day}T17:00:00Z`,
      time_end: `${day}T17:45:00Z`,
      provider_id: 'run-1',
      title: 'Evening run',
      sport: { id: 1, name: 'Running', slug: 'running' },
      stream: { time: [0, 60, 120], heartrate: [120, 140, 150], distance: [0, 180, 370] },
    };
    await ingest(userId, 'workouts', { provider: 'garmin', data: [workout] });
    const { workouts } = await client.workouts.get(userId, { startDate: day });
    expect(workouts[0]).toMatchObject({ providerId: 'run-1', title: 'Evening run', sport: { slug: 'running' } });
    const stream = await client.workouts.getByWorkoutId(workouts[0].id);
    expect(stream).toMatchObject({ time: [0, 60, 120], heartrate: [120, 140, 150] });
    expect((await client.workouts.getRaw(userId, { startDate: day })).workouts[0].sport.slug).toBe('running');

    await ingest(userId, 'body', { provider: 'withings', data: [{ calendar_date: day, weight: 71.5, fat: 18.2 }] });
    expect((await client.body.get(userId, { startDate: day })).body[0]).toMatchObject({ weight: 71.5, fat: 18.2 });

    await ingest(userId, 'profile', { data: [{ height: 178, birth_date: '1990-01-02' }] });
    expect(await client.profile.get(userId)).toMatchObject({ userId, height: 178, source: { provider: 'manual' } });
    expect((await client.profile.getRaw(userId)).profile.userId).toBe(userId);

    await ingest(userId, 'devices', { provider: 'garmin', data: [{ provider_id: 'fenix-7', name: 'Fenix 7' }] });
    const devices = await client.devices.getRaw(userId);
    expect(devices.devices[0]).toMatchObject({ providerId: 'fenix-7', data: { name: 'Fenix 7' }, source: { slug: 'garmin' } });

    // The same devices as the user's devices (ClientFacingDevice).
    await ingest(userId, 'devices', {
      provider: 'withings',
      source_type: 'scale',
      data: [{ provider_id: 'body-plus', device_manufacturer: 'Withings', model: 'Body+', firmware_version: '1.2' }],
    });
    const listed = await client.user.getDevices(userId);
    expect(listed.map((device) => device.provider).sort()).toEqual(['garmin', 'withings']);
    const scale = listed.find((device) => device.provider === 'withings')!;
    expect(scale).toEqual({
      id: expect.any(String),
      userId,
      provider: 'withings',
      sourceType: 'scale',
      deviceManufacturer: 'Withings',
      deviceModel: 'Body+',
      deviceVersion: '1.2',
      deviceId: 'body-plus',
    });
    expect(listed.find((device) => device.provider === 'garmin')).toMatchObject({ sourceType: 'unknown', deviceId: 'fenix-7' });
    expect(await client.user.getDevice(userId, scale.id)).toEqual(scale);
    const otherUser = await createUser();
    expect((await call(stack.apiUrl, 'GET', `/v2/user/${otherUser}/device/${scale.id}`, { key: tenant.apiKey })).status).toBe(404);
    expect((await call(stack.apiUrl, 'GET', `/v2/user/${otherUser}/device`, { key: tenant.apiKey })).body).toEqual([]);
    expect((await call(stack.apiUrl, 'GET', `/v2/user/${userId}/device/not-a-uuid`, { key: tenant.apiKey })).status).toBe(422);
  });

  it('serves meals, menstrual cycles, electrocardiograms and sleep cycles', async () => {
    const userId = await createUser();
    await ingest(userId, 'meal', { data: [{ provider_id: 'lunch-1', timestamp: `${day}T12:00:00Z`, name: 'Lunch', energy: { unit: 'kcal', value: 650 } }] });
    expect((await client.meal.get(userId, { startDate: day })).meals[0]).toMatchObject({ name: 'Lunch', providerId: 'lunch-1' });
    await ingest(userId, 'menstrual_cycle', {
      provider: 'apple_health_kit',
      source_type: 'phone',
      data: [{ period_start: '2026-11-02', period_end: '2026-11-06' }],
    });
    expect((await client.menstrualCycle.get(userId, { startDate: '2026-11-01' })).menstrualCycle[0]).toMatchObject({
      periodStart: '2026-11-02',
      sourceProvider: 'apple_health_kit',
    });
    await ingest(userId, 'electrocardiogram', {
      provider: 'apple_health_kit',
      source_type: 'watch',
      data: [{ session_start: `${day}T10:00:00Z`, session_end: `${day}T10:00:30Z`, voltage_sample_count: 15_360, classification: 'sinus_rhythm' }],
    });
    expect((await client.electrocardiogram.get(userId, { startDate: day })).electrocardiogram[0]).toMatchObject({ voltageSampleCount: 15_360 });
    const sleepId = randomUUID();
    await ingest(userId, 'sleep_cycle', {
      data: [
        {
          sleep_id: sleepId,
          session_start: `${day}T00:00:00Z`,
          session_end: `${day}T06:00:00Z`,
          stage_start_offset_second: [0, 600],
          stage_end_offset_second: [600, 1200],
          stage_type: [1, 2],
        },
      ],
    });
    expect((await client.sleepCycle.get(userId, { startDate: day })).sleepCycle[0]).toMatchObject({ sleepId, stageType: [1, 2] });
  });

  it('refuses a summary missing what the type needs, naming it', async () => {
    const userId = await createUser();
    const response = await ingest(userId, 'sleep', { data: [{ calendar_date: day, bedtime_start: 'late' }] });
    expect(response.status).toBe(422);
    const locs = response.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.data.0.bedtime_start', 'body.data.0.bedtime_stop', 'body.data.0.total']));
    expect((await ingest(userId, 'unknown_type', { data: [] })).status).toBe(404);
  });

  it('introspects what is stored and lists providers', async () => {
    const userId = await createUser();
    await ingest(userId, 'activity', { provider: 'oura', data: [{ calendar_date: day, steps: 10 }] });
    await api('POST', `/v2/timeseries/${userId}/body_fat`, { body: { provider: 'withings', data: [{ timestamp: `${day}T06:00:00Z`, value: 19 }] } });
    const resources = await client.introspect.getUserResources({ userId });
    expect(resources.data[0].userId).toBe(userId);
    expect(resources.data[0].provider.oura.activity.sentCount).toBe(1);
    expect(resources.data[0].provider.withings.fat.newestData?.toISOString()).toBe(`${day}T06:00:00.000Z`);
    const pulls = await client.introspect.getUserHistoricalPulls({ userId });
    expect(pulls.data[0].provider.oura.pulled.activity.status).toBe('success');
    const page = await client.introspect.getUserResources({ userLimit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.nextCursor).toBeTruthy();
    const second = await client.introspect.getUserResources({ userLimit: 1, nextCursor: page.nextCursor! });
    expect(second.data[0].userId).not.toBe(page.data[0].userId);
    // A cursor it never returned is refused, not read as the first page.
    const forged = await api('GET', '/v2/introspect/resources?user_limit=1&next_cursor=abc');
    expect(forged.status).toBe(422);
    expect(forged.body.detail[0].loc).toEqual(['query', 'next_cursor']);
    expect((await api('GET', '/v2/introspect/historical_pull?cursor=-1')).body.detail[0].loc).toEqual(['query', 'cursor']);

    const providers = await client.providers.getAll();
    expect(providers.map((p) => p.slug)).toEqual(expect.arrayContaining(['oura', 'fitbit', 'freestyle_libre', 'apple_health_kit', 'manual']));
  });

  it('filters providers by source type; an unknown source type is a 422 naming it', async () => {
    const slugs = async (sourceType: string) => (await client.providers.getAll({ sourceType })).map((p) => p.slug).sort();
    expect(await slugs('app')).toEqual(['apple_health_kit', 'health_connect', 'manual', 'samsung_health']);
    expect(await slugs('provider')).toEqual(['abbott_libreview', 'dexcom', 'dexcom_v3', 'fitbit', 'freestyle_libre', 'garmin', 'oura', 'whoop_v2', 'withings']);
    expect(await slugs('lab')).toEqual([]);
    expect(await slugs('ble')).toEqual(['accuchek_ble', 'beurer_ble', 'contour_ble', 'freestyle_libre_ble', 'omron_ble', 'onetouch_ble']);
    const all = await client.providers.getAll();
    expect([...(await slugs('app')), ...(await slugs('provider')), ...(await slugs('ble'))].sort()).toEqual(all.map((p) => p.slug).sort());

    const wrong = await call(stack.apiUrl, 'GET', '/v2/providers?source_type=watch', { key: tenant.apiKey });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail).toHaveLength(1);
    expect(wrong.body.detail[0]).toMatchObject({ loc: ['query', 'source_type'], type: 'enum', input: 'watch' });
  });

  it("answers 404 for another team's user and its summaries", async () => {
    const userId = await createUser();
    await ingest(userId, 'workouts', { data: [{ calendar_date: day, time_start: `${day}T17:00:00Z`, time_end: `${day}T18:00:00Z`, provider_id: 'w' }] });
    const { workouts } = await client.workouts.get(userId, { startDate: day });
    const foreign = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: other.apiKey, body });
    expect((await foreign('GET', `/v2/summary/activity/${userId}?start_date=${day}`)).status).toBe(404);
    expect((await foreign('POST', `/v2/summary/activity/${userId}`, { data: [] })).status).toBe(404);
    expect((await foreign('GET', `/v2/timeseries/workouts/${workouts[0].id}/stream`)).status).toBe(404);
    expect((await foreign('GET', `/v2/introspect/resources?user_id=${userId}`)).status).toBe(404);
  });
});
