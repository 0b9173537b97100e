import { FakeDexcom } from '../helpers/fake-dexcom';

/**
 * The Dexcom stand-in over real HTTP: the OAuth2 flow (login page → code → token → single-use
 * refresh tokens), bearer auth, the egvs query window, UTC offsets by display device, dataRange
 * and the fault controls that the Dexcom integration's tests lean on.
 */
const REDIRECT_URI = 'http://127.0.0.1:9/dexcom/callback';
const FROM = Date.parse('2024-03-01T00:00:00Z');
const TO = Date.parse('2024-03-04T00:00:00Z');
const DAY_MS = 86_400_000;

let dexcom: FakeDexcom;
let userId: string;

beforeEach(async () => {
  dexcom = await FakeDexcom.start();
  userId = dexcom.addUser();
  dexcom.seedEgvs(userId, FROM, TO);
});

afterEach(() => dexcom.close());

async function login(query: Record<string, string>): Promise<Response> {
  const params = new URLSearchParams({ client_id: dexcom.clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'offline_access', ...query });
  return fetch(`${dexcom.url}/v2/oauth2/login?${params}`, { redirect: 'manual' });
}

async function callback(query: Record<string, string>): Promise<URL> {
  const response = await login(query);
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

async function token(form: Record<string, string>, withCredentials = true): Promise<{ status: number; body: any }> {
  const body = new URLSearchParams(withCredentials ? { client_id: dexcom.clientId, client_secret: dexcom.clientSecret, ...form } : form);
  const response = await fetch(`${dexcom.url}/v2/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.status, body: await response.json() };
}

async function connect(who = userId): Promise<{ access_token: string; refresh_token: string }> {
  dexcom.nextAuthorization({ userId: who });
  const back = await callback({ state: 's1' });
  const exchanged = await token({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI });
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

async function api(path: string, accessToken?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${dexcom.url}${path}`, accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {});
  return { status: response.status, body: await response.json(), headers: response.headers };
}

function egvsPath(startDate: string, endDate: string): string {
  return `/v3/users/self/egvs?${new URLSearchParams({ startDate, endDate })}`;
}

test('consent → single-use code → tokens → the EGVs strictly inside the window, newest first', async () => {
  dexcom.nextAuthorization({ userId });
  const back = await callback({ state: 'xyz' });
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  expect([...back.searchParams.keys()].sort()).toEqual(['code', 'state']);
  expect(back.searchParams.get('state')).toBe('xyz');
  const code = back.searchParams.get('code')!;

  expect(await token({ grant_type: 'authorization_code', code, redirect_uri: 'http://elsewhere/cb' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  expect(exchanged).toEqual({
    status: 200,
    body: { access_token: expect.any(String), expires_in: 7200, token_type: 'Bearer', refresh_token: expect.any(String) },
  });
  expect(await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

  const egvs = await api(egvsPath('2024-03-02T00:00:00', '2024-03-02T06:00:00'), exchanged.body.access_token);
  expect(egvs.status).toBe(200);
  // (The body comes from fetch's realm, where expect.any(Array) does not match its arrays.)
  expect({ ...egvs.body, records: 'array' }).toEqual({ recordType: 'egv', recordVersion: '3.0', userId, records: 'array' });
  expect(Array.isArray(egvs.body.records)).toBe(true);
  expect(userId).toMatch(/^[0-9a-f]{64}$/);
  // Six hours of 5-minute readings without the two on the bounds.
  expect(egvs.body.records).toHaveLength(71);
  expect(egvs.body.records[0].systemTime).toBe('2024-03-02T05:55:00');
  expect(egvs.body.records[70].systemTime).toBe('2024-03-02T00:05:00');
  const stored = dexcom.egvs(userId).filter((egv) => egv.systemTime > '2024-03-02T00:00:00' && egv.systemTime < '2024-03-02T06:00:00');
  expect(egvs.body.records).toEqual([...stored].reverse());
  expect(dexcom.requests.find((r) => r.path === '/v3/users/self/egvs')).toEqual({
    method: 'GET',
    path: '/v3/users/self/egvs',
    query: { startDate: '2024-03-02T00:00:00', endDate: '2024-03-02T06:00:00' },
    status: 200,
    userId,
  });
});

test('the login page checks client_id, response_type and scope, and passes a denial back', async () => {
  const unknownClient = await login({ client_id: 'someone-else', state: 's' });
  expect(unknownClient.status).toBe(400);
  expect(unknownClient.headers.get('location')).toBeNull();
  expect((await login({ redirect_uri: '' })).status).toBe(400);

  expect(Object.fromEntries((await callback({ response_type: 'token', state: 's' })).searchParams)).toEqual({ error: 'unsupported_response_type', state: 's' });
  expect(Object.fromEntries((await callback({ scope: 'openid offline_access', state: 's' })).searchParams)).toEqual({ error: 'invalid_scope', state: 's' });

  dexcom.nextAuthorization({ userId, deny: true });
  expect(Object.fromEntries((await callback({ state: 'no-thanks' })).searchParams)).toEqual({ error: 'access_denied', state: 'no-thanks' });
});

test('the token endpoint takes client credentials in the form body only', async () => {
  expect(await token({ grant_type: 'refresh_token', refresh_token: 'x', redirect_uri: REDIRECT_URI, client_secret: 'wrong' })).toMatchObject({
    status: 401,
    body: { error: 'invalid_client' },
  });
  const basicOnly = await fetch(`${dexcom.url}/v2/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${dexcom.clientId}:${dexcom.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', redirect_uri: REDIRECT_URI }),
  });
  expect(basicOnly.status).toBe(401);
  const asJson = await fetch(`${dexcom.url}/v2/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'refresh_token', client_id: dexcom.clientId, client_secret: dexcom.clientSecret }),
  });
  expect(asJson.status).toBe(400);
  expect(await token({ grant_type: 'password' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
});

test('refresh tokens rotate and work once; a refresh carries the redirect_uri', async () => {
  const first = await connect();
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, redirect_uri: 'http://elsewhere/cb' })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  expect(dexcom.refreshTokenUsed(first.refresh_token)).toBe(false);

  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, redirect_uri: REDIRECT_URI });
  expect(refreshed).toEqual({
    status: 200,
    body: { access_token: expect.any(String), expires_in: 7200, token_type: 'Bearer', refresh_token: expect.any(String) },
  });
  expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
  expect(refreshed.body.access_token).not.toBe(first.access_token);
  expect(dexcom.refreshTokenUsed(first.refresh_token)).toBe(true);
  expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, redirect_uri: REDIRECT_URI })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  expect((await api('/v3/users/self/dataRange', refreshed.body.access_token)).status).toBe(200);

  // A grant made outside labflow: its redirect_uri is not known, so any is taken.
  const outside = dexcom.grantOutside(userId);
  expect(outside).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 7200 });
  expect((await api('/v3/users/self/dataRange', outside.access_token)).body.userId).toBe(userId);
  expect((await token({ grant_type: 'refresh_token', refresh_token: outside.refresh_token, redirect_uri: 'https://labflow.example/cb' })).status).toBe(200);
});

test('the window: both dates required, as YYYY-MM-DDThh:mm:ss, in order, at most 30 days', async () => {
  const { access_token } = await connect();
  const status = async (query: Record<string, string>) => (await api(`/v3/users/self/egvs?${new URLSearchParams(query)}`, access_token)).status;
  expect(await status({ startDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-03-01T00:00:00Z', endDate: '2024-03-02T00:00:00Z' })).toBe(400);
  expect(await status({ startDate: '2024-03-01T00:00:00+00:00', endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-03-01', endDate: '2024-03-02' })).toBe(400);
  expect(await status({ startDate: '2024-03-01T00:00:00.000', endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-02-30T00:00:00', endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-03-02T00:00:00', endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-03-03T00:00:00', endDate: '2024-03-02T00:00:00' })).toBe(400);
  expect(await status({ startDate: '2024-02-01T00:00:00', endDate: '2024-03-02T00:00:01' })).toBe(400);

  const thirtyDays = await api(egvsPath('2024-02-02T00:00:00', '2024-03-03T00:00:00'), access_token);
  expect(thirtyDays.status).toBe(200);
  expect(thirtyDays.body.records).toHaveLength(288 * 2);
  const beforeAnything = await api(egvsPath('2023-01-01T00:00:00', '2023-01-02T00:00:00'), access_token);
  expect(beforeAnything.body).toEqual({ recordType: 'egv', recordVersion: '3.0', userId, records: [] });
  expect(await api(egvsPath('2024-03-02T00:00:00', '2024-03-02T01:00:00'), access_token)).toMatchObject({ status: 200 });
  expect(dexcom.requests.filter((r) => r.path === '/v3/users/self/egvs' && r.status === 400)).toHaveLength(10);
});

test('401 without a token, with an unknown one, once tokens expire and once the user revokes', async () => {
  const { access_token, refresh_token } = await connect();
  const none = await api('/v3/users/self/dataRange');
  expect(none).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  expect(none.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect((await api('/v3/users/self/dataRange', 'not-a-token')).status).toBe(401);

  dexcom.expireAccessTokens();
  expect((await api(egvsPath('2024-03-02T00:00:00', '2024-03-02T01:00:00'), access_token)).status).toBe(401);
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token, redirect_uri: REDIRECT_URI });
  expect((await api(egvsPath('2024-03-02T00:00:00', '2024-03-02T01:00:00'), refreshed.body.access_token)).status).toBe(200);

  dexcom.revoke(userId);
  expect((await api('/v3/users/self/dataRange', refreshed.body.access_token)).status).toBe(401);
  expect(await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, redirect_uri: REDIRECT_URI })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant' },
  });
  // A new consent after the revocation works again.
  expect((await api('/v3/users/self/dataRange', (await connect()).access_token)).status).toBe(200);
});

test('readings from the phone apps carry UTC offsets; readings from receivers do not', async () => {
  const ios = dexcom.addUser({ displayDevice: 'iOS' });
  const android = dexcom.addUser({ displayDevice: 'android' });
  dexcom.seedEgvs(ios, FROM, TO);
  dexcom.seedEgvs(android, FROM, TO);

  // The users' display clocks by the order they were added: -07:00, -05:00, +01:00.
  expect(dexcom.egvs(userId)[0]).toMatchObject({ systemTime: '2024-03-01T00:00:00', displayTime: '2024-02-29T17:00:00', displayDevice: 'receiver' });
  expect(dexcom.egvs(ios)[0]).toMatchObject({ systemTime: '2024-03-01T00:00:00+00:00', displayTime: '2024-02-29T19:00:00-05:00', displayDevice: 'iOS' });
  expect(dexcom.egvs(android)[0]).toMatchObject({
    systemTime: '2024-03-01T00:00:00+00:00',
    displayTime: '2024-03-01T01:00:00+01:00',
    displayDevice: 'android',
  });
  for (const egv of dexcom.egvs(ios)) expect(Date.parse(egv.displayTime)).toBe(Date.parse(egv.systemTime));

  // The query window is UTC system time, whatever the device.
  const { access_token } = await connect(ios);
  const records = (await api(egvsPath('2024-03-02T00:00:00', '2024-03-02T00:15:00'), access_token)).body.records;
  expect(records.map((egv: any) => egv.systemTime)).toEqual(['2024-03-02T00:10:00+00:00', '2024-03-02T00:05:00+00:00']);
  expect(records[0].displayTime).toBe('2024-03-01T19:10:00-05:00');
});

test('seeded readings: every 5 minutes, 70–250 mg/dL, a few out of range with a null value, deterministic', async () => {
  const egvs = dexcom.egvs(userId);
  expect(egvs).toHaveLength(3 * 288);
  egvs.forEach((egv, i) => expect(Date.parse(`${egv.systemTime}Z`)).toBe(FROM + i * 300_000));
  expect(new Set(egvs.map((egv) => egv.recordId)).size).toBe(egvs.length);
  for (const egv of egvs) {
    expect(egv.recordId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(egv).toMatchObject({
      unit: 'mg/dL',
      rateUnit: 'mg/dL/min',
      displayDevice: 'receiver',
      transmitterGeneration: 'g6',
      transmitterId: expect.any(String),
    });
    if (egv.value === null) {
      expect(egv).toMatchObject({ status: expect.stringMatching(/^(high|low)$/), trend: null, trendRate: null });
    } else {
      expect(Number.isInteger(egv.value)).toBe(true);
      expect(egv.value).toBeGreaterThanOrEqual(70);
      expect(egv.value).toBeLessThanOrEqual(250);
      expect(egv.status).toBe('ok');
      expect(['doubleUp', 'singleUp', 'fortyFiveUp', 'flat', 'fortyFiveDown', 'singleDown', 'doubleDown']).toContain(egv.trend);
    }
  }
  expect(egvs.filter((egv) => egv.value === null)).toHaveLength(6);
  expect(new Set(egvs.map((egv) => egv.value)).size).toBeGreaterThan(60);
  for (let i = 1; i < egvs.length; i++) expect(egvs[i]!.transmitterTicks - egvs[i - 1]!.transmitterTicks).toBe(300);

  // Re-seeding part of the range changes nothing; another server gives the same user the same readings.
  dexcom.seedEgvs(userId, FROM + DAY_MS, FROM + 2 * DAY_MS);
  expect(dexcom.egvs(userId)).toEqual(egvs);
  const other = await FakeDexcom.start();
  try {
    const same = other.addUser();
    expect(same).toBe(userId);
    other.seedEgvs(same, FROM, TO);
    expect(other.egvs(same)).toEqual(egvs);
  } finally {
    await other.close();
  }
});

test('dataRange answers the first and last EGV, null when there are none; lastSyncTime narrows it', async () => {
  const empty = dexcom.addUser();
  const { access_token: emptyToken } = await connect(empty);
  const none = await api('/v3/users/self/dataRange', emptyToken);
  expect(none.body).toEqual({ recordType: 'dataRange', recordVersion: '3.0', userId: empty, egvs: null, events: null });
  expect(none.body.calibrations).toBeUndefined();

  const { access_token } = await connect();
  const range = await api('/v3/users/self/dataRange', access_token);
  const stored = dexcom.egvs(userId);
  expect(range.body).toEqual({
    recordType: 'dataRange',
    recordVersion: '3.0',
    userId,
    egvs: {
      start: { systemTime: '2024-03-01T00:00:00', displayTime: stored[0]!.displayTime },
      end: { systemTime: '2024-03-03T23:55:00', displayTime: stored[stored.length - 1]!.displayTime },
    },
    events: null,
  });

  const since = await api('/v3/users/self/dataRange?lastSyncTime=2024-03-03T00:00:00', access_token);
  expect(since.body.egvs.start.systemTime).toBe('2024-03-03T00:05:00');
  expect((await api('/v3/users/self/dataRange?lastSyncTime=2024-03-03T00:00:00Z', access_token)).body.egvs).toEqual(since.body.egvs);
  expect((await api('/v3/users/self/dataRange?lastSyncTime=2024-03-05T00:00:00', access_token)).body.egvs).toBeNull();
  expect((await api('/v3/users/self/dataRange?lastSyncTime=yesterday', access_token)).status).toBe(400);
});

test('failNext: a 429 carries no rate-limit headers (none are documented), then service resumes', async () => {
  const { access_token } = await connect();
  dexcom.failNext('/v3/users/self/egvs', 429, 2);
  const path = egvsPath('2024-03-02T00:00:00', '2024-03-02T01:00:00');
  const limited = await api(path, access_token);
  expect(limited).toMatchObject({ status: 429, body: { error: 'too_many_requests' } });
  expect(limited.headers.get('retry-after')).toBeNull();
  expect((await api(path, access_token)).status).toBe(429);
  expect((await api(path, access_token)).status).toBe(200);
  expect(dexcom.requests.filter((r) => r.path === '/v3/users/self/egvs').map((r) => [r.status, r.userId])).toEqual([
    [429, userId],
    [429, userId],
    [200, userId],
  ]);

  dexcom.failNext('/v2/oauth2/token', 503);
  expect((await token({ grant_type: 'refresh_token', refresh_token: 'x', redirect_uri: REDIRECT_URI })).status).toBe(503);
});
