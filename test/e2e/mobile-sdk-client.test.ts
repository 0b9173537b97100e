import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { androidQuantitySample, CHUNK_SAMPLES, iosQuantitySample, MobileSdkClient, swiftDate as whole } from '../helpers/mobile-sdk-client';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * A phone's whole session, its calls made as the mobile SDKs' sources make them
 * (test/helpers/mobile-sdk-client.ts), the data read back by the team through
 * `@tryvital/vital-node`. The phone signs in through a second stack on the same database whose
 * MOBILE_ACCESS_TOKEN_TTL is 0s: its first access token has expired when it is first used, so
 * the first call answers 401, and the SDK refreshes (at the usual stack) and retries.
 * mobile-sign-in.test.ts has the sign-in's refusals; this file what one session sends.
 */
let stack: TestStack;
let expiring: TestStack;
let tenant: Tenant;
let client: VitalClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  expiring = await startStack({ worker: false, env: { MOBILE_ACCESS_TOKEN_TTL: '0s' } });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await expiring?.close();
  await stack?.close();
});

async function signedInPhone(): Promise<MobileSdkClient> {
  const created = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `phone-${randomUUID()}` } });
  expect(created.status).toBe(200);
  const { signInToken } = await client.user.getUserSignInToken(created.body.user_id);
  const phone = await MobileSdkClient.signIn(signInToken, { api: stack.apiUrl, auth: expiring.apiUrl });
  phone.useAuthHost(stack.apiUrl);
  return phone;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A sleep stage as iOS sends it: a LocalQuantitySample whose value is the stage, unit `stage`. */
const stage = (startMs: number, minutes: number) => iosQuantitySample(1, 'stage', startMs, startMs + minutes * 60_000);

test('an iOS session: sign-in, a 401 refreshed, connect, sync state, historical stage then daily gzip chunks in the SDK’s own shapes, progress; read back through vital-node', async () => {
  const phone = await signedInPhone();
  const userId = phone.userId;

  // The first call carries the expired access token: 401, a refresh, the same call again.
  expect(await phone.connect('apple_health_kit')).toEqual({ status: 200, body: { success: true } });
  expect(phone.calls).toEqual([
    { method: 'POST', path: '/v1/token', status: 200 },
    { method: 'POST', path: '/v2/link/provider/manual/apple_health_kit', status: 401 },
    { method: 'POST', path: '/v1/token', status: 200 },
    { method: 'POST', path: '/v2/link/provider/manual/apple_health_kit', status: 200 },
  ]);

  const state = await phone.syncState('apple_health_kit', { tzinfo: 'Europe/London' });
  expect(state.status).toBe(200);
  expect(state.body.status).toBe('active');
  const { request_start_date: rangeStart, request_end_date: rangeEnd } = state.body;
  expect(await phone.startHistoricalStage({ range_start: rangeStart, range_end: rangeEnd, backfill_type: 'heartrate' })).toEqual({
    status: 200,
    body: { success: true },
  });

  // The historical stage: two full chunks of heart rate from the watch (LocalQuantitySample as
  // iOS encodes it), then a night of sleep (SleepPatch.Sleep).
  const first = Math.floor((Date.now() - 2 * 86_400_000) / 60_000) * 60_000;
  const samples = Array.from({ length: 2 * CHUNK_SAMPLES }, (_, i) => iosQuantitySample(50 + (i % 40), 'bpm', first + i * 5_000));
  // The envelope's dates as iOS writes its Dates: date-times in whole seconds (labflow keeps their UTC days).
  const historical = { stage: 'historical', start_date: rangeStart, end_date: rangeEnd, time_zone: 'Europe/London', provider: 'apple_health_kit' } as const;
  const chunks = await phone.uploadTimeseries('heartrate', historical, samples);
  expect(chunks.map((answer) => [answer.status, answer.body.stored])).toEqual([
    [200, CHUNK_SAMPLES],
    [200, CHUNK_SAMPLES],
  ]);
  const night = dayOf(first);
  const bedtime = Date.parse(`${night}T22:00:00Z`);
  const woke = dayOf(bedtime + 8 * 3_600_000);
  const nightReading = bedtime + 3_602_000;
  const sleep = {
    id: randomUUID().toUpperCase(),
    start_date: whole(bedtime),
    end_date: whole(bedtime + 8 * 3_600_000),
    source_bundle: 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E',
    product_type: 'Watch7,1',
    heart_rate_minimum: 47,
    heart_rate_mean: 54,
    // The night's heart rate: stored as the watch's heartrate (off the chunks' 5 s grid, and a value they do not have).
    heart_rate: [iosQuantitySample(130, 'bpm', nightReading)],
    heart_rate_variability: [],
    respiratory_rate: [],
    wrist_temperature: [],
    sleep_stages: {
      unspecified_sleep_samples: [],
      deep_sleep_samples: [stage(bedtime, 120)],
      light_sleep_samples: [stage(bedtime + 120 * 60_000, 230)],
      awake_sleep_samples: [stage(bedtime + 350 * 60_000, 30)],
      rem_sleep_samples: [stage(bedtime + 380 * 60_000, 100)],
      in_bed_sleep_samples: [stage(bedtime - 600_000, 490)],
      unknown_sleep_samples: [],
    },
    metadata: {},
  };
  expect((await phone.uploadSummary('sleep', historical, [sleep])).status).toBe(200);

  // Then the daily stage: what the phone recorded since.
  const daily = { stage: 'daily', time_zone: 'Europe/London', provider: 'apple_health_kit' } as const;
  const latest = whole(Date.now() - 60_000);
  // The phone's own reading this time: kept under source type phone beside the watch's.
  const fromPhone = iosQuantitySample(99, 'bpm', Date.parse(latest), Date.parse(latest), { product_type: 'iPhone16,1' });
  expect((await phone.uploadTimeseries('heartrate', daily, [fromPhone]))[0]).toMatchObject({ status: 200, body: { stored: 1 } });
  const today = dayOf(Date.now());
  const activity = {
    day_summary: { calendar_date: today, active_energy_burned_sum: 300.5, basal_energy_burned_sum: 1_500, steps_sum: 4321, avg_heart_rate: 72 },
    active_energy_burned: [],
    basal_energy_burned: [],
    steps: [],
    floors_climbed: [],
    distance_walking_running: [],
    vo2_max: [],
  };
  expect((await phone.uploadSummary('activity', daily, [activity])).status).toBe(200);
  // BodyPatch and ProfilePatch: one object each, not a list.
  const weighed = Date.now() - 3_600_000;
  const body = {
    body_mass: [iosQuantitySample(72.4, 'kg', weighed, weighed, { source_bundle: 'com.withings.wiScaleNG', product_type: 'iPhone16,1' })],
    body_fat_percentage: [iosQuantitySample(18.2, '%', weighed, weighed, { source_bundle: 'com.withings.wiScaleNG', product_type: 'iPhone16,1' })],
    body_mass_index: [],
    waist_circumference: [],
    lean_body_mass: [],
    time_zones: [[dayOf(weighed), 'Europe/London']],
  };
  expect((await phone.uploadSummary('body', daily, body)).status).toBe(200);
  const profile = { biological_sex: 'female', date_of_birth: '1990-04-02T00:00:00Z', height: 168, time_zone: 'Europe/London' };
  expect((await phone.uploadSummary('profile', daily, profile)).status).toBe(200);

  const progress = {
    sync_progress: { backfill_types: { heartrate: { syncs: [{ start: rangeStart, status: 'completed' }] } } },
    device_info: { os_version: '18.1', model: 'iPhone', app_bundle: 'com.example.app', app_version: '2.0', app_build: '42' },
  };
  expect(await phone.reportSyncProgress(progress)).toEqual({ status: 200, body: { success: true } });

  // The team reads it back through the SDK.
  const fromWatchAndPhone = await client.vitals.heartrate(userId, { startDate: whole(first), endDate: whole(Date.now()), provider: 'apple_health_kit' });
  const heartrate = fromWatchAndPhone.filter((sample) => sample.value !== 130);
  expect(heartrate).toHaveLength(2 * CHUNK_SAMPLES + 1);
  expect(heartrate.slice(0, 3).map((sample) => sample.value)).toEqual([50, 51, 52]);
  expect(heartrate.reduce((sum, sample) => sum + sample.value, 0)).toBe(samples.reduce((sum: number, _sample, i) => sum + 50 + (i % 40), 0) + 99);
  expect(heartrate[heartrate.length - 1].value).toBe(99);
  // The watch's last three readings and the phone's, each under its source type.
  const lastThree = whole(first + (2 * CHUNK_SAMPLES - 3) * 5_000);
  const grouped = await client.vitals.heartrateGrouped(userId, { startDate: lastThree, endDate: whole(Date.now()), provider: 'apple_health_kit' });
  expect(grouped.groups.apple_health_kit.map((group) => [group.source.type, group.data.length]).sort()).toEqual([
    ['phone', 1],
    ['watch', 3],
  ]);
  const duringTheNight = await client.vitals.heartrateGrouped(userId, {
    startDate: whole(nightReading),
    endDate: whole(nightReading + 1_000),
    provider: 'apple_health_kit',
  });
  expect(duringTheNight.groups.apple_health_kit.map((group) => [group.source.type, group.data.map((sample) => [sample.value, sample.timestamp])])).toEqual([
    ['watch', [[130, new Date(nightReading)]]],
  ]);
  // The night counts for the day it ended; its stages are the sums of the stage samples (in bed is not asleep).
  const slept = await client.sleep.get(userId, { startDate: woke, endDate: woke, provider: 'apple_health_kit' });
  expect(slept.sleep.map((entry) => [entry.id, entry.calendarDate, entry.duration, entry.total, entry.deep, entry.light, entry.rem, entry.awake])).toEqual([
    [sleep.id.toLowerCase(), woke, 28_800, 27_000, 7_200, 13_800, 6_000, 1_800],
  ]);
  expect([slept.sleep[0].hrLowest, slept.sleep[0].hrAverage, slept.sleep[0].bedtimeStart, slept.sleep[0].source.type]).toEqual([
    47,
    54,
    new Date(bedtime),
    'watch',
  ]);
  const active = await client.activity.get(userId, { startDate: today, endDate: today, provider: 'apple_health_kit' });
  expect(active.activity.map((entry) => [entry.steps, entry.caloriesActive, entry.caloriesTotal, entry.heartRate?.avgBpm])).toEqual([
    [4321, 300.5, 1_800.5, 72],
  ]);
  const weights = await client.body.get(userId, { startDate: dayOf(weighed), endDate: dayOf(weighed), provider: 'apple_health_kit' });
  expect(weights.body.map((entry) => [entry.calendarDate, entry.weight, entry.fat])).toEqual([[dayOf(weighed), 72.4, 18.2]]);
  const read = await client.profile.get(userId, { provider: 'apple_health_kit' });
  expect([read.height, read.birthDate, read.sex]).toEqual([168, '1990-04-02', 'female']);
  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers.map((provider) => provider.slug)).toEqual(['apple_health_kit']);

  // What the SDK reported is kept on the connection: the stage begun, the latest progress.
  const [reports] = await stack.db.query(
    `SELECT s.backfill_type, s.range_start, s.range_end, p.progress, p.device_info
       FROM provider_connections c JOIN sdk_historical_stages s ON s.connection_id = c.id JOIN sdk_sync_progress p ON p.connection_id = c.id
      WHERE c.user_id = $1 AND c.provider = 'apple_health_kit'`,
    [userId],
  );
  expect(reports).toEqual({
    backfill_type: 'heartrate',
    range_start: new Date(rangeStart),
    range_end: new Date(rangeEnd),
    progress: progress.sync_progress,
    device_info: progress.device_info,
  });
  // Each call was answered at the first try after the one refresh.
  expect(phone.calls.filter((made) => made.status !== 200)).toEqual([{ method: 'POST', path: '/v2/link/provider/manual/apple_health_kit', status: 401 }]);
});

test("historical stage and progress: only on a connected phone source, for the token's own user, with a range in order", async () => {
  const phone = await signedInPhone();
  const stage = { range_start: '2026-10-01T00:00:00Z', range_end: '2026-11-01T00:00:00Z', backfill_type: 'steps' };
  const notYet = await phone.startHistoricalStage(stage);
  expect(notYet).toEqual({
    status: 404,
    body: { detail: 'The user has no apple_health_kit connection: the SDK connects it first (POST /v2/link/provider/manual/apple_health_kit).' },
  });
  expect((await phone.reportSyncProgress({ sync_progress: {}, device_info: {} })).status).toBe(404);
  expect((await phone.connect('apple_health_kit')).status).toBe(200);
  const backwards = await phone.startHistoricalStage({ ...stage, range_end: '2026-09-01T00:00:00Z' });
  expect(backwards.status).toBe(422);
  expect(backwards.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'range_end'], msg: 'range_end is before range_start.' })]);
  expect((await phone.startHistoricalStage({ ...stage, range_start: 'yesterday' })).body.detail[0].loc).toEqual(['body', 'range_start']);
  expect(await phone.startHistoricalStage(stage)).toEqual({ status: 200, body: { success: true } });
  // Begun again (a reinstall): the new range replaces the old.
  expect((await phone.startHistoricalStage({ ...stage, range_start: '2026-10-15T00:00:00Z' })).status).toBe(200);
  const [row] = await stack.db.query(
    `SELECT s.range_start FROM sdk_historical_stages s JOIN provider_connections c ON c.id = s.connection_id WHERE c.user_id = $1`,
    [phone.userId],
  );
  expect(row.range_start).toEqual(new Date('2026-10-15T00:00:00Z'));

  const other = await signedInPhone();
  const foreign = await call(stack.apiUrl, 'POST', `/v2/user/${other.userId}/sdk_start_historical_stage/apple_health_kit`, {
    headers: { authorization: `Bearer ${phone.bearer}` },
    body: stage,
  });
  expect(foreign.status).toBe(401);
  // The team's key reaches them too; a source that is not a phone's is not there.
  expect((await call(stack.apiUrl, 'POST', `/v2/user/${phone.userId}/sdk_start_historical_stage/oura`, { key: tenant.apiKey, body: stage })).status).toBe(404);
});

test('Samsung Health is a phone source like Health Connect: connected by its SDK, synced, uploaded, read back', async () => {
  const phone = await signedInPhone();
  expect((await phone.connect('samsung_health')).status).toBe(200);
  const state = await phone.syncState('samsung_health', { tzinfo: 'Europe/Berlin' });
  expect(state).toMatchObject({ status: 200, body: { status: 'active', expires_in: 14400 } });
  // Android's LocalQuantitySample: an id, Instants with milliseconds, its own unit spelling (`ml`).
  const atMs = Date.now() - 3_600_000 - 250;
  const daily = { stage: 'daily', time_zone: 'Europe/Berlin', provider: 'samsung_health' } as const;
  const uploaded = await phone.uploadTimeseries('heartrate', daily, [androidQuantitySample(61, 'bpm', atMs)], 'android');
  expect(uploaded[0].status).toBe(200);
  expect((await phone.uploadTimeseries('water', daily, [androidQuantitySample(250, 'ml', atMs, atMs, 'phone')], 'android'))[0].status).toBe(200);
  const read = await client.vitals.heartrate(phone.userId, { startDate: whole(atMs - 1_000), endDate: whole(Date.now()), provider: 'samsung_health' });
  expect(read.map((sample) => [sample.value, sample.timestamp])).toEqual([[61, new Date(atMs)]]);
  const water = await client.vitals.water(phone.userId, { startDate: whole(atMs - 1_000), endDate: whole(Date.now()), provider: 'samsung_health' });
  expect(water.map((sample) => [sample.value, sample.unit])).toEqual([[250, 'mL']]);
  const { providers } = await client.user.getConnectedProviders(phone.userId);
  expect(providers.map((provider) => [provider.slug, provider.name])).toEqual([['samsung_health', 'Samsung Health']]);
});

test("the SDKs' upload paths and refusals: heartrate_variability is hrv, and a wrong SDK sample is a 422 naming its field", async () => {
  const phone = await signedInPhone();
  expect((await phone.connect('apple_health_kit')).status).toBe(200);
  const daily = { stage: 'daily', time_zone: 'UTC', provider: 'apple_health_kit' } as const;
  const at = Date.now() - 600_000;
  // iOS posts HRV (SDNN, in its `rmssd` unit) to /heartrate_variability.
  expect((await phone.uploadTimeseries('heartrate_variability', daily, [iosQuantitySample(41.5, 'rmssd', at)]))[0]).toMatchObject({
    status: 200,
    body: { resource: 'hrv', stored: 1 },
  });
  const hrv = await client.vitals.hrv(phone.userId, { startDate: whole(at - 1_000), endDate: whole(Date.now()), provider: 'apple_health_kit' });
  expect(hrv.map((sample) => sample.value)).toEqual([41.5]);

  const wrong = await phone.uploadTimeseries('heartrate', daily, [
    iosQuantitySample(60, 'bpm', at),
    { ...iosQuantitySample(61, 'bpm', at), start_date: '20/11/2026' },
  ]);
  expect(wrong[0].status).toBe(422);
  expect(wrong[0].body.detail).toEqual([expect.objectContaining({ loc: ['body', 'data', 1, 'start_date'], input: '20/11/2026' })]);
  const unit = await phone.uploadTimeseries('heartrate', daily, [iosQuantitySample(60, 'kg', at)]);
  expect(unit[0]).toMatchObject({ status: 422, body: { detail: [expect.objectContaining({ loc: ['body', 'data', 0, 'unit'], msg: 'Unit must be "bpm".' })] } });
  const body = await phone.uploadSummary('sleep', daily, [{ start_date: whole(at), end_date: 'tomorrow', sleep_stages: {} }]);
  expect(body).toMatchObject({ status: 422, body: { detail: [expect.objectContaining({ loc: ['body', 'data', 0, 'end_date'] })] } });
  // A timeseries takes a list of samples (only summaries may be one object).
  const object = await call(stack.apiUrl, 'POST', `/v2/timeseries/${phone.userId}/heartrate`, {
    headers: { authorization: `Bearer ${phone.bearer}` },
    body: { ...daily, data: iosQuantitySample(60, 'bpm', at) },
  });
  expect(object).toMatchObject({
    status: 422,
    body: { detail: [expect.objectContaining({ loc: ['body', 'data'], msg: 'Timeseries data must be a list of samples.' })] },
  });
});
