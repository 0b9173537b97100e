import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { CHUNK_SAMPLES, MobileSdkClient } from '../helpers/mobile-sdk-client';
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

/** ISO 8601 in whole seconds, as Swift's `.iso8601` writes a Date. */
const whole = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test('an iOS session: sign-in, a 401 refreshed, connect, sync state, historical stage then daily gzip chunks, progress; read back through vital-node', async () => {
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

  // The historical stage: two full chunks of heart rate, then a night of sleep.
  const first = Math.floor((Date.now() - 2 * 86_400_000) / 60_000) * 60_000;
  const samples = Array.from({ length: 2 * CHUNK_SAMPLES }, (_, i) => ({ timestamp: whole(first + i * 5_000), value: 50 + (i % 40), unit: 'bpm' }));
  // The envelope's dates as iOS writes its Dates: date-times in whole seconds (labflow keeps their UTC days).
  const historical = { stage: 'historical', start_date: rangeStart, end_date: rangeEnd, time_zone: 'Europe/London', provider: 'apple_health_kit' } as const;
  const chunks = await phone.uploadTimeseries('heartrate', historical, samples);
  expect(chunks.map((answer) => [answer.status, answer.body.stored])).toEqual([
    [200, CHUNK_SAMPLES],
    [200, CHUNK_SAMPLES],
  ]);
  const night = dayOf(first);
  const sleep = {
    calendar_date: night,
    bedtime_start: `${night}T22:00:00Z`,
    bedtime_stop: whole(Date.parse(`${night}T22:00:00Z`) + 8 * 3_600_000),
    duration: 28_800,
    total: 27_000,
    awake: 1_800,
    light: 14_000,
    rem: 6_000,
    deep: 7_000,
  };
  expect((await phone.uploadSummary('sleep', historical, [sleep])).status).toBe(200);

  // Then the daily stage: what the phone recorded since.
  const daily = { stage: 'daily', time_zone: 'Europe/London', provider: 'apple_health_kit' } as const;
  const latest = whole(Date.now() - 60_000);
  expect((await phone.uploadTimeseries('heartrate', daily, [{ timestamp: latest, value: 99, unit: 'bpm' }]))[0]).toMatchObject({
    status: 200,
    body: { stored: 1 },
  });
  const today = dayOf(Date.now());
  expect((await phone.uploadSummary('activity', daily, [{ calendar_date: today, steps: 4321, calories_total: 1800 }])).status).toBe(200);

  const progress = {
    sync_progress: { backfill_types: { heartrate: { syncs: [{ start: rangeStart, status: 'completed' }] } } },
    device_info: { os_version: '18.1', model: 'iPhone', app_bundle: 'com.example.app', app_version: '2.0', app_build: '42' },
  };
  expect(await phone.reportSyncProgress(progress)).toEqual({ status: 200, body: { success: true } });

  // The team reads it back through the SDK.
  const heartrate = await client.vitals.heartrate(userId, { startDate: whole(first), endDate: whole(Date.now()), provider: 'apple_health_kit' });
  expect(heartrate).toHaveLength(2 * CHUNK_SAMPLES + 1);
  expect(heartrate.slice(0, 3).map((sample) => sample.value)).toEqual([50, 51, 52]);
  expect(heartrate.reduce((sum, sample) => sum + sample.value, 0)).toBe(samples.reduce((sum, sample) => sum + sample.value, 0) + 99);
  expect(heartrate[heartrate.length - 1].value).toBe(99);
  const slept = await client.sleep.get(userId, { startDate: night, endDate: night, provider: 'apple_health_kit' });
  expect(slept.sleep.map((entry) => [entry.calendarDate, entry.total, entry.deep])).toEqual([[night, 27_000, 7_000]]);
  const active = await client.activity.get(userId, { startDate: today, endDate: today, provider: 'apple_health_kit' });
  expect(active.activity.map((entry) => entry.steps)).toEqual([4321]);
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
  const at = whole(Date.now() - 3_600_000);
  const uploaded = await phone.uploadTimeseries('heartrate', { stage: 'daily', time_zone: 'Europe/Berlin', provider: 'samsung_health' }, [
    { timestamp: at, value: 61, unit: 'bpm' },
  ]);
  expect(uploaded[0].status).toBe(200);
  const read = await client.vitals.heartrate(phone.userId, { startDate: at, endDate: whole(Date.now()), provider: 'samsung_health' });
  expect(read.map((sample) => sample.value)).toEqual([61]);
  const { providers } = await client.user.getConnectedProviders(phone.userId);
  expect(providers.map((provider) => [provider.slug, provider.name])).toEqual([['samsung_health', 'Samsung Health']]);
});
