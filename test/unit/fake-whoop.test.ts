import { FakeWhoop, type WhoopCycleRecord, type WhoopSleepRecord, type WhoopSleepStageSummary, type WhoopUserData } from '../helpers/fake-whoop';

/**
 * The WHOOP stand-in over real HTTP: the OAuth2 flow (authorize page → code → token → single-use
 * refresh tokens, `offline` or not), scopes, bearer auth, the collections' pagination and time
 * filters, the seeded days' consistency and the fault controls the WHOOP integration's tests lean on.
 */
const REDIRECT_URI = 'http://127.0.0.1:9/whoop/callback';
const READ_ALL = 'read:recovery read:cycles read:workout read:sleep read:profile read:body_measurement';
const FROM_DAY = '2024-03-01';
const DAYS = 30;
const STATE = 'state-0123456789';
const COLLECTION_PATHS = {
  sleeps: '/developer/v2/activity/sleep',
  recoveries: '/developer/v2/recovery',
  workouts: '/developer/v2/activity/workout',
  cycles: '/developer/v2/cycle',
} as const;

let whoop: FakeWhoop;
let userId: string;

beforeEach(async () => {
  whoop = await FakeWhoop.start({ pageSize: 7 });
  userId = whoop.addUser({ timezoneOffset: '-05:00' });
  whoop.seedDays(userId, FROM_DAY, DAYS);
});

afterEach(() => whoop.close());

async function authorize(query: Record<string, string>, target = whoop): Promise<Response> {
  const params = new URLSearchParams({
    client_id: target.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: `offline ${READ_ALL}`,
    state: STATE,
    ...query,
  });
  return fetch(`${target.url}/oauth/oauth2/auth?${params}`, { redirect: 'manual' });
}

async function callback(query: Record<string, string>): Promise<URL> {
  const response = await authorize(query);
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

async function token(form: Record<string, string>, withCredentials = true): Promise<{ status: number; body: any }> {
  const body = new URLSearchParams(withCredentials ? { client_id: whoop.clientId, client_secret: whoop.clientSecret, ...form } : form);
  const response = await fetch(`${whoop.url}/oauth/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.status, body: await response.json() };
}

async function connect(who = userId, scope = `offline ${READ_ALL}`): Promise<{ access_token: string; refresh_token?: string; scope: string }> {
  whoop.nextAuthorization({ userId: who });
  const back = await callback({ scope });
  const exchanged = await token({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI });
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

async function api(path: string, accessToken?: string, method = 'GET'): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${whoop.url}${path}`, { method, ...(accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {}) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), headers: response.headers };
}

function listPath(path: string, query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query);
  return params.size === 0 ? path : `${path}?${params}`;
}

/** Every page of a listing, following next_token with the same query. */
async function listAll(path: string, accessToken: string, query: Record<string, string> = {}): Promise<{ records: any[]; pages: number[] }> {
  const records: any[] = [];
  const pages: number[] = [];
  let nextToken: string | undefined;
  do {
    const page = await api(listPath(path, { ...query, ...(nextToken ? { nextToken } : {}) }), accessToken);
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).every((key) => key === 'records' || key === 'next_token')).toBe(true);
    records.push(...page.body.records);
    pages.push(page.body.records.length);
    nextToken = page.body.next_token;
  } while (nextToken !== undefined);
  return { records, pages };
}

function idOf(record: any): string {
  return String(record.id ?? record.sleep_id);
}

function asleep(stages: WhoopSleepStageSummary): number {
  return stages.total_light_sleep_time_milli + stages.total_slow_wave_sleep_time_milli + stages.total_rem_sleep_time_milli;
}

test('consent → single-use code → tokens with offline → the profile, with the user on the request log', async () => {
  whoop.nextAuthorization({ userId });
  const back = await callback({ state: 'xyz-state-1' });
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  expect([...back.searchParams.keys()].sort()).toEqual(['code', 'state']);
  expect(back.searchParams.get('state')).toBe('xyz-state-1');
  const code = back.searchParams.get('code')!;

  expect(await token({ grant_type: 'authorization_code', code, redirect_uri: 'http://elsewhere/cb' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  expect(exchanged).toEqual({
    status: 200,
    body: { access_token: expect.any(String), expires_in: 3600, refresh_token: expect.any(String), scope: `offline ${READ_ALL}`, token_type: 'bearer' },
  });
  expect(await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

  const profile = await api('/developer/v2/user/profile/basic', exchanged.body.access_token);
  expect(profile.status).toBe(200);
  expect(profile.body).toEqual({
    user_id: Number(userId),
    email: expect.stringMatching(/@example\.com$/),
    first_name: expect.any(String),
    last_name: expect.any(String),
  });
  expect(typeof profile.body.user_id).toBe('number');
  expect(userId).toMatch(/^\d+$/);
  expect(whoop.requests.find((r) => r.path === '/developer/v2/user/profile/basic')).toEqual({
    method: 'GET',
    path: '/developer/v2/user/profile/basic',
    query: {},
    status: 200,
    userId,
  });
  expect(whoop.requests.filter((r) => r.path === '/oauth/oauth2/token').every((r) => r.userId === undefined)).toBe(true);
  expect(whoop.labflowEnv()).toEqual({ WHOOP_CLIENT_ID: whoop.clientId, WHOOP_CLIENT_SECRET: whoop.clientSecret, WHOOP_API_URL: whoop.url });
});

test('the authorize page checks client_id, redirect_uri, response_type, scope and state, and passes a denial back', async () => {
  const unknownClient = await authorize({ client_id: 'someone-else' });
  expect(unknownClient.status).toBe(400);
  expect(unknownClient.headers.get('location')).toBeNull();
  expect((await authorize({ redirect_uri: '' })).status).toBe(400);

  const back = async (query: Record<string, string>) => Object.fromEntries((await callback(query)).searchParams);
  expect(await back({ response_type: 'token' })).toEqual({ error: 'unsupported_response_type', state: STATE });
  expect(await back({ scope: 'read:sleep read:everything' })).toEqual({ error: 'invalid_scope', state: STATE });
  expect(await back({ scope: '' })).toEqual({ error: 'invalid_scope', state: STATE });
  expect(await back({ state: 'short' })).toEqual({ error: 'invalid_state', state: 'short' });

  // None of the refusals used up a decision: the queued denial answers the next proper visit.
  whoop.nextAuthorization({ userId, deny: true });
  expect(await back({ state: 'no-thanks-1' })).toEqual({ error: 'access_denied', state: 'no-thanks-1' });
  // With nothing queued the fake says so instead of guessing a member.
  expect((await authorize({})).status).toBe(500);
});

test('a refresh token only with offline; refreshing takes scope=offline, rotates the pair and refuses the old token', async () => {
  const online = await connect(userId, 'read:sleep read:cycles');
  expect(online.refresh_token).toBeUndefined();
  expect(online.scope).toBe('read:sleep read:cycles');

  const first = await connect();
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, scope: 'offline', client_secret: 'wrong' })).toMatchObject({
    status: 401,
    body: { error: 'invalid_client' },
  });
  const basicOnly = await fetch(`${whoop.url}/oauth/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${whoop.clientId}:${whoop.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, scope: 'offline' }),
  });
  expect(basicOnly.status).toBe(401);
  expect(whoop.refreshTokenUsed(first.refresh_token!)).toBe(false);

  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, scope: 'offline' });
  expect(refreshed).toEqual({
    status: 200,
    body: { access_token: expect.any(String), expires_in: 3600, refresh_token: expect.any(String), scope: `offline ${READ_ALL}`, token_type: 'bearer' },
  });
  expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
  expect(refreshed.body.access_token).not.toBe(first.access_token);
  expect(whoop.refreshTokenUsed(first.refresh_token!)).toBe(true);
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, scope: 'offline' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  expect((await api(COLLECTION_PATHS.cycles, refreshed.body.access_token)).status).toBe(200);
  // Access tokens issued before the refresh keep working until they expire.
  expect((await api(COLLECTION_PATHS.cycles, first.access_token)).status).toBe(200);

  // A grant made outside labflow: every scope, offline included, and it refreshes like any other.
  const outside = whoop.grantOutside(userId);
  expect(outside).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 3600, scope: `${READ_ALL} offline` });
  expect((await token({ grant_type: 'refresh_token', refresh_token: outside.refresh_token, scope: 'offline' })).status).toBe(200);
  expect(await token({ grant_type: 'password' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
});

test('each route needs its scope: without it a 401 insufficient_scope (the spec documents no 403)', async () => {
  const narrow = await connect(userId, 'read:recovery read:cycles');
  for (const path of [COLLECTION_PATHS.sleeps, COLLECTION_PATHS.workouts, '/developer/v2/user/profile/basic', '/developer/v2/user/measurement/body']) {
    const refused = await api(path, narrow.access_token);
    expect(refused).toMatchObject({ status: 401, body: { error: 'insufficient_scope' } });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="read:\w+"$/);
  }
  expect((await api(COLLECTION_PATHS.recoveries, narrow.access_token)).status).toBe(200);
  expect((await api(COLLECTION_PATHS.cycles, narrow.access_token)).status).toBe(200);

  const { access_token } = await connect();
  const body = await api('/developer/v2/user/measurement/body', access_token);
  expect(body.body).toEqual({ height_meter: expect.any(Number), weight_kilogram: expect.any(Number), max_heart_rate: expect.any(Number) });
  expect(Number.isInteger(body.body.max_heart_rate)).toBe(true);
});

test('401 without a token, with an unknown one, once tokens expire and once the member revokes', async () => {
  const { access_token, refresh_token } = await connect();
  const none = await api(COLLECTION_PATHS.sleeps);
  expect(none).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  expect(none.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect((await api(COLLECTION_PATHS.sleeps, 'not-a-token')).status).toBe(401);

  whoop.expireAccessTokens();
  expect((await api(COLLECTION_PATHS.sleeps, access_token)).status).toBe(401);
  // A request with an expired token is not the member's: the log names nobody.
  expect(whoop.requests[whoop.requests.length - 1]).toMatchObject({ status: 401 });
  expect(whoop.requests[whoop.requests.length - 1]!.userId).toBeUndefined();
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refresh_token!, scope: 'offline' });
  expect((await api(COLLECTION_PATHS.sleeps, refreshed.body.access_token)).status).toBe(200);

  const other = whoop.addUser();
  const othersTokens = whoop.grantOutside(other);
  whoop.revoke(userId);
  expect((await api(COLLECTION_PATHS.sleeps, refreshed.body.access_token)).status).toBe(401);
  expect(await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'offline' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  expect((await api('/developer/v2/user/profile/basic', othersTokens.access_token)).body.user_id).toBe(Number(other));
  // A new consent after the revocation works again.
  expect((await api(COLLECTION_PATHS.sleeps, (await connect()).access_token)).status).toBe(200);
});

test('pagination: every record exactly once, newest first, pages of min(limit, pageSize), next_token left out at the end', async () => {
  const { access_token } = await connect();
  const stored = whoop.data(userId);
  expect([stored.sleeps.length, stored.recoveries.length, stored.workouts.length, stored.cycles.length]).toEqual([DAYS + 1, DAYS, DAYS / 2, DAYS]);

  for (const [name, path] of Object.entries(COLLECTION_PATHS) as Array<[keyof WhoopUserData, string]>) {
    const { records, pages } = await listAll(path, access_token, { limit: '25' });
    expect(pages.slice(0, -1).every((size) => size === 7)).toBe(true);
    expect(pages[pages.length - 1]).toBeLessThanOrEqual(7);
    expect(new Set(records.map(idOf)).size).toBe(records.length);
    expect(records).toEqual(stored[name]);
  }
  const sleepStarts = stored.sleeps.map((sleep) => Date.parse(sleep.start));
  expect(sleepStarts).toEqual([...sleepStarts].sort((a, b) => b - a));
  // Recoveries follow their sleep's start.
  const sleepById = new Map(stored.sleeps.map((sleep) => [sleep.id, sleep]));
  const recoveryOrder = stored.recoveries.map((recovery) => Date.parse(sleepById.get(recovery.sleep_id)!.start));
  expect(recoveryOrder).toEqual([...recoveryOrder].sort((a, b) => b - a));

  // limit below the page size wins; without limit, 10 (here on a server with the default page size of 25).
  expect((await listAll(COLLECTION_PATHS.cycles, access_token, { limit: '3' })).pages).toEqual([...Array(10).fill(3)]);
  const roomy = await FakeWhoop.start();
  try {
    const member = roomy.addUser();
    roomy.seedDays(member, FROM_DAY, DAYS);
    const page = await fetch(`${roomy.url}${COLLECTION_PATHS.cycles}`, { headers: { authorization: `Bearer ${roomy.grantOutside(member).access_token}` } });
    expect(((await page.json()) as any).records).toHaveLength(10);
  } finally {
    await roomy.close();
  }

  expect((await api(listPath(COLLECTION_PATHS.cycles, { limit: '26' }), access_token)).status).toBe(400);
  expect((await api(listPath(COLLECTION_PATHS.cycles, { limit: '0' }), access_token)).status).toBe(400);
  // The response says next_token; the query parameter is nextToken.
  const first = await api(listPath(COLLECTION_PATHS.cycles, { start: '2024-03-05T00:00:00Z' }), access_token);
  expect((await api(listPath(COLLECTION_PATHS.cycles, { start: '2024-03-05T00:00:00Z', next_token: first.body.next_token }), access_token)).status).toBe(400);
  // A nextToken goes with the query that returned it.
  expect((await api(listPath(COLLECTION_PATHS.cycles, { nextToken: first.body.next_token }), access_token)).status).toBe(400);
  expect((await api(listPath(COLLECTION_PATHS.cycles, { start: '2024-03-06T00:00:00Z', nextToken: first.body.next_token }), access_token)).status).toBe(400);
  expect((await api(listPath(COLLECTION_PATHS.sleeps, { start: '2024-03-05T00:00:00Z', nextToken: first.body.next_token }), access_token)).status).toBe(400);
  const second = await api(listPath(COLLECTION_PATHS.cycles, { start: '2024-03-05T00:00:00Z', nextToken: first.body.next_token }), access_token);
  expect(second.status).toBe(200);
  expect(second.body.records[0].id).not.toBe(first.body.records[0].id);
});

test('start keeps records under way at it (inclusive), end drops those beginning at it (exclusive); recoveries go by their cycle', async () => {
  const { access_token } = await connect();
  const stored = whoop.data(userId);
  const oldestFirst = [...stored.cycles].reverse();
  const [c9, c10, c11, c12] = [oldestFirst[9]!, oldestFirst[10]!, oldestFirst[11]!, oldestFirst[12]!];
  const window = { start: c10.start, end: c12.start };
  const list = async (path: string, query: Record<string, string>) => (await listAll(path, access_token, query)).records;

  // c9 ends exactly at start: kept. c12 begins exactly at end: dropped.
  expect((await list(COLLECTION_PATHS.cycles, window)).map((cycle: WhoopCycleRecord) => cycle.id)).toEqual([c11.id, c10.id, c9.id]);
  const sleeps = await list(COLLECTION_PATHS.sleeps, window);
  expect(sleeps.map((sleep: WhoopSleepRecord) => sleep.cycle_id)).toEqual([c11.id, c10.id]);
  // c9's recovery comes back though its sleep does not: a recovery spans its cycle.
  expect((await list(COLLECTION_PATHS.recoveries, window)).map((recovery: any) => recovery.cycle_id)).toEqual([c11.id, c10.id, c9.id]);

  const workout = stored.workouts[5]!;
  const startMs = Date.parse(workout.start);
  const at = (ms: number) => new Date(ms).toISOString();
  const workoutIds = async (query: Record<string, string>) => (await list(COLLECTION_PATHS.workouts, query)).map((w: any) => w.id);
  expect(await workoutIds({ start: at(startMs + 60_000), end: at(startMs + 120_000) })).toEqual([workout.id]);
  expect(await workoutIds({ start: at(startMs - 60_000), end: workout.start })).toEqual([]);
  expect(await workoutIds({ start: at(startMs - 60_000), end: at(startMs + 1) })).toEqual([workout.id]);
  expect(await workoutIds({ start: workout.end, end: at(Date.parse(workout.end) + 60_000) })).toEqual([workout.id]);

  // The same instant written with an offset is the same filter.
  const utc = await list(COLLECTION_PATHS.sleeps, { start: '2024-03-10T05:00:00Z', end: '2024-03-13T05:00:00Z' });
  expect(await list(COLLECTION_PATHS.sleeps, { start: '2024-03-10T00:00:00-05:00', end: '2024-03-13T00:00:00.000-05:00' })).toEqual(utc);
  expect(utc.length).toBeGreaterThan(0);

  const status = async (query: string) => (await api(`${COLLECTION_PATHS.sleeps}?${query}`, access_token)).status;
  expect(await status('start=2024-03-10')).toBe(400);
  expect(await status('start=2024-03-10T00:00:00')).toBe(400);
  expect(await status('start=2024-03-10T00:00Z')).toBe(400);
  expect(await status('start=2024-02-30T00:00:00Z')).toBe(400);
  // An unencoded '+' arrives as a space.
  expect(await status('start=2024-03-10T00:00:00+05:00')).toBe(400);
  expect(await status('start=2024-03-10T00:00:00%2B05:00')).toBe(200);
  expect(await status('start=2024-03-12T00:00:00Z&end=2024-03-11T00:00:00Z')).toBe(400);
});

test('seeded days: sleeps end in the local morning with stages adding up, recoveries link sleep and cycle, cycles chain', async () => {
  const { sleeps, recoveries, workouts, cycles } = whoop.data(userId);
  const member = Number(userId);
  const utcMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const localHour = (time: string) => new Date(Date.parse(time) - 5 * 3_600_000).getUTCHours();
  const cycleById = new Map(cycles.map((cycle) => [cycle.id, cycle]));

  const nights = sleeps.filter((sleep) => !sleep.nap);
  expect(nights).toHaveLength(DAYS);
  for (const sleep of sleeps) {
    expect(sleep).toMatchObject({ id: expect.stringMatching(uuid), user_id: member, timezone_offset: '-05:00', score_state: 'SCORED' });
    for (const time of [sleep.start, sleep.end, sleep.created_at, sleep.updated_at]) expect(time).toMatch(utcMillis);
    expect(sleep.v1_id).toBeUndefined();
    const stages = sleep.score!.stage_summary;
    expect(stages.total_in_bed_time_milli).toBe(Date.parse(sleep.end) - Date.parse(sleep.start));
    expect(stages.total_awake_time_milli + asleep(stages)).toBe(stages.total_in_bed_time_milli - stages.total_no_data_time_milli);
    expect(sleep.score!.sleep_efficiency_percentage).toBeCloseTo((asleep(stages) / stages.total_in_bed_time_milli) * 100, 4);
    expect(Date.parse(sleep.created_at)).toBeGreaterThan(Date.parse(sleep.end));
    // Every sleep lies in its cycle; a night's sleep opens it.
    const cycle = cycleById.get(sleep.cycle_id)!;
    expect(Date.parse(sleep.start)).toBeGreaterThanOrEqual(Date.parse(cycle.start));
    expect(Date.parse(sleep.end)).toBeLessThan(Date.parse(cycle.end!));
    if (!sleep.nap) expect(sleep.start).toBe(cycle.start);
  }
  for (const night of nights) {
    expect([22, 23]).toContain(localHour(night.start));
    expect([6, 7]).toContain(localHour(night.end));
    const needed = night.score!.sleep_needed;
    const need = needed.baseline_milli + needed.need_from_sleep_debt_milli + needed.need_from_recent_strain_milli + needed.need_from_recent_nap_milli;
    expect(night.score!.sleep_performance_percentage).toBe(Math.min(100, Math.round((asleep(night.score!.stage_summary) / need) * 100)));
  }
  expect(nights.some((night) => night.score!.stage_summary.total_no_data_time_milli > 0)).toBe(true);

  // The one nap: the first day's afternoon; the next night needs that much less sleep.
  const naps = sleeps.filter((sleep) => sleep.nap);
  expect(naps).toHaveLength(1);
  const nap = naps[0]!;
  const oldestCycles = [...cycles].reverse();
  expect(nap.cycle_id).toBe(oldestCycles[0]!.id);
  expect(nap.score!.sleep_performance_percentage).toBeUndefined();
  const nightAfterNap = nights.find((night) => night.cycle_id === oldestCycles[1]!.id)!;
  expect(nightAfterNap.score!.sleep_needed.need_from_recent_nap_milli).toBe(-asleep(nap.score!.stage_summary));
  expect(nights.filter((night) => night.score!.sleep_needed.need_from_recent_nap_milli !== 0)).toEqual([nightAfterNap]);

  for (let i = 1; i < oldestCycles.length; i++) expect(oldestCycles[i]!.start).toBe(oldestCycles[i - 1]!.end);
  for (const cycle of cycles)
    expect(cycle).toMatchObject({ user_id: member, timezone_offset: '-05:00', score_state: 'SCORED', score: { strain: expect.any(Number) } });

  const sleepById = new Map(sleeps.map((sleep) => [sleep.id, sleep]));
  expect(new Set(recoveries.map((recovery) => recovery.cycle_id)).size).toBe(DAYS);
  for (const recovery of recoveries) {
    const sleep = sleepById.get(recovery.sleep_id)!;
    expect(sleep.nap).toBe(false);
    expect(recovery.cycle_id).toBe(sleep.cycle_id);
    expect(cycleById.has(recovery.cycle_id)).toBe(true);
    expect(recovery.score).toMatchObject({ user_calibrating: false, spo2_percentage: expect.any(Number), skin_temp_celsius: expect.any(Number) });
    expect(Number.isInteger(recovery.score!.recovery_score)).toBe(true);
  }

  for (const workout of workouts) {
    expect(workout).toMatchObject({ id: expect.stringMatching(uuid), user_id: member, sport_name: 'running', timezone_offset: '-05:00' });
    expect(workout.sport_id).toBeUndefined();
    const score = workout.score!;
    const zones = Object.values(score.zone_durations).reduce((sum, ms) => sum + ms, 0);
    expect(zones).toBe(Date.parse(workout.end) - Date.parse(workout.start));
    expect(Object.values(score.zone_durations).every((ms) => ms >= 0)).toBe(true);
    expect(score.distance_meter).toBeGreaterThan(3000);
    const cycle = cycles.find((c) => Date.parse(c.start) <= Date.parse(workout.start) && Date.parse(workout.end) <= Date.parse(c.end!))!;
    expect(cycle.score!.max_heart_rate).toBeGreaterThanOrEqual(score.max_heart_rate);
    expect(cycle.score!.strain).toBeGreaterThan(score.strain);
  }
  // Every other day: no two workouts on neighbouring days.
  const workoutDays = workouts.map((workout) => Math.floor((Date.parse(workout.start) - 5 * 3_600_000) / 86_400_000));
  for (let i = 1; i < workoutDays.length; i++) expect(workoutDays[i - 1]! - workoutDays[i]!).toBe(2);

  // Another server gives the same member the same days.
  const other = await FakeWhoop.start();
  try {
    const same = other.addUser({ timezoneOffset: '-05:00' });
    expect(same).toBe(userId);
    other.seedDays(same, FROM_DAY, DAYS);
    expect(other.data(same)).toEqual(whoop.data(userId));
  } finally {
    await other.close();
  }
});

test('a cycle still under way has no end, and records after now are left out unless end is given', async () => {
  const soon = whoop.addUser();
  const dayAfterTomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  whoop.seedDays(soon, dayAfterTomorrow, 1);
  const [cycle] = whoop.data(soon).cycles;
  expect(cycle!.end).toBeUndefined();
  expect('end' in cycle!).toBe(false);

  const { access_token } = await connect(soon);
  expect((await api(COLLECTION_PATHS.cycles, access_token)).body).toEqual({ records: [] });
  expect((await api(COLLECTION_PATHS.sleeps, access_token)).body).toEqual({ records: [] });
  const later = new Date(Date.now() + 10 * 86_400_000).toISOString();
  expect((await api(listPath(COLLECTION_PATHS.cycles, { end: later }), access_token)).body.records).toEqual([cycle]);
});

test('single records by id: sleep, workout, cycle and its sleep and recovery; 404 unknown, 400 malformed', async () => {
  const { access_token } = await connect();
  const { sleeps, workouts, cycles, recoveries } = whoop.data(userId);
  const cycle = cycles[3]!;
  expect((await api(`/developer/v2/activity/sleep/${sleeps[0]!.id}`, access_token)).body).toEqual(sleeps[0]);
  expect((await api(`/developer/v2/activity/workout/${workouts[0]!.id}`, access_token)).body).toEqual(workouts[0]);
  expect((await api(`/developer/v2/cycle/${cycle.id}`, access_token)).body).toEqual(cycle);
  expect((await api(`/developer/v2/cycle/${cycle.id}/sleep`, access_token)).body).toEqual(sleeps.find((s) => s.cycle_id === cycle.id && !s.nap));
  expect((await api(`/developer/v2/cycle/${cycle.id}/recovery`, access_token)).body).toEqual(recoveries.find((r) => r.cycle_id === cycle.id));
  expect((await api('/developer/v2/activity/sleep/00000000-0000-4000-a000-000000000000', access_token)).status).toBe(404);
  expect((await api('/developer/v2/cycle/1', access_token)).status).toBe(404);
  expect((await api('/developer/v2/activity/sleep/not-a-uuid', access_token)).status).toBe(400);
  expect((await api('/developer/v2/cycle/abc', access_token)).status).toBe(400);
});

test('failNext: a 429 carries the documented rate-limit headers, then service resumes', async () => {
  const { access_token } = await connect();
  whoop.failNext(COLLECTION_PATHS.sleeps, 429, 2);
  const limited = await api(COLLECTION_PATHS.sleeps, access_token);
  expect(limited).toMatchObject({ status: 429, body: { error: 'too_many_requests' } });
  expect(limited.headers.get('x-ratelimit-limit')).toBe('100, 100;window=60, 10000;window=86400');
  expect(limited.headers.get('x-ratelimit-reset')).toBe('1');
  expect((await api(COLLECTION_PATHS.sleeps, access_token)).status).toBe(429);
  expect((await api(COLLECTION_PATHS.sleeps, access_token)).status).toBe(200);
  expect(whoop.requests.filter((r) => r.path === COLLECTION_PATHS.sleeps).map((r) => [r.status, r.userId])).toEqual([
    [429, userId],
    [429, userId],
    [200, userId],
  ]);

  whoop.failNext('/oauth/oauth2/token', 503);
  expect((await token({ grant_type: 'refresh_token', refresh_token: 'x', scope: 'offline' })).status).toBe(503);
  expect((await token({ grant_type: 'refresh_token', refresh_token: 'x', scope: 'offline' })).status).toBe(400);
});

test('DELETE /v2/user/access (no scope needed): 204, then none of their tokens work; other members go on', async () => {
  const narrow = await connect(userId, 'offline read:cycles');
  const otherGrant = whoop.grantOutside(userId);
  const otherMember = whoop.addUser();
  const otherMembersGrant = whoop.grantOutside(otherMember);
  expect(whoop.accessRevokedByClient(userId)).toBe(false);

  const deleted = await api('/developer/v2/user/access', narrow.access_token, 'DELETE');
  expect(deleted).toMatchObject({ status: 204, body: null });
  expect(whoop.accessRevokedByClient(userId)).toBe(true);
  expect((await api(COLLECTION_PATHS.cycles, narrow.access_token)).status).toBe(401);
  expect(await token({ grant_type: 'refresh_token', refresh_token: narrow.refresh_token!, scope: 'offline' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  expect((await api(COLLECTION_PATHS.cycles, otherGrant.access_token)).status).toBe(401);
  expect(whoop.accessRevokedByClient(otherMember)).toBe(false);
  expect((await api(COLLECTION_PATHS.cycles, otherMembersGrant.access_token)).status).toBe(200);
  expect((await api('/developer/v2/user/access', undefined, 'DELETE')).status).toBe(401);
  // A new consent afterwards works again.
  expect((await api(COLLECTION_PATHS.cycles, (await connect()).access_token)).status).toBe(200);
});
