import { FakeOura } from '../helpers/fake-oura';

/**
 * The Oura stand-in over real HTTP: the OAuth2 server-side flow (authorize → code → token →
 * single-use refresh tokens), bearer auth, scopes, pagination and the fault controls that the
 * Oura integration's tests lean on.
 */
const REDIRECT_URI = 'http://127.0.0.1:9/oura/callback';

let oura: FakeOura;
let userId: string;

beforeEach(async () => {
  oura = await FakeOura.start({ pageSize: 100 });
  userId = oura.addUser({ email: 'ada@example.com' });
  oura.seedDays(userId, '2024-03-01', 3);
});

afterEach(() => oura.close());

async function authorize(query: Record<string, string>): Promise<URL> {
  const params = new URLSearchParams({ response_type: 'code', client_id: oura.clientId, redirect_uri: REDIRECT_URI, ...query });
  const response = await fetch(`${oura.url}/oauth/authorize?${params}`, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

async function token(form: Record<string, string>, basicAuth = false): Promise<{ status: number; body: any }> {
  const credentials = { client_id: oura.clientId, client_secret: oura.clientSecret };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basicAuth) headers.authorization = `Basic ${Buffer.from(`${oura.clientId}:${oura.clientSecret}`).toString('base64')}`;
  const body = new URLSearchParams(basicAuth ? form : { ...credentials, ...form });
  const response = await fetch(`${oura.url}/oauth/token`, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json() };
}

async function connect(scopes?: string[]): Promise<{ access_token: string; refresh_token: string }> {
  oura.nextAuthorization({ userId, ...(scopes ? { scopes } : {}) });
  const callback = await authorize({ scope: 'personal daily heartrate', state: 's1' });
  const exchanged = await token({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI });
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

async function api(path: string, accessToken: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${oura.url}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

test('authorize redirects with a single-use code that becomes a token pair', async () => {
  oura.nextAuthorization({ userId });
  const callback = await authorize({ scope: 'daily heartrate', state: 'xyz' });
  expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
  expect(callback.searchParams.get('state')).toBe('xyz');
  expect(callback.searchParams.get('scope')).toBe('daily heartrate');
  const code = callback.searchParams.get('code')!;

  const wrongRedirect = await token({ grant_type: 'authorization_code', code, redirect_uri: 'http://elsewhere/cb' });
  expect(wrongRedirect).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

  const exchanged = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  expect(exchanged.status).toBe(200);
  expect(exchanged.body).toEqual({ token_type: 'bearer', access_token: expect.any(String), expires_in: 86400, refresh_token: expect.any(String) });

  const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
  expect(again).toMatchObject({ status: 400, body: { status: 400, error: 'invalid_grant' } });
});

test('a denied consent comes back as error=access_denied with the state', async () => {
  oura.nextAuthorization({ userId, deny: true });
  const callback = await authorize({ state: 'no-thanks' });
  expect(Object.fromEntries(callback.searchParams)).toEqual({ error: 'access_denied', state: 'no-thanks' });
});

test('the token endpoint checks client credentials', async () => {
  const response = await fetch(`${oura.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: oura.clientId, client_secret: 'wrong' }),
  });
  expect(response.status).toBe(401);
  expect(await response.json()).toMatchObject({ error: 'invalid_client' });
});

test('refresh tokens rotate: each works once, the new one works (form or Basic client auth)', async () => {
  const first = await connect();
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);

  const reused = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
  expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

  const viaBasic = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }, true);
  expect(viaBasic.status).toBe(200);
  expect((await api('/v2/usercollection/heartrate', viaBasic.body.access_token)).status).toBe(200);
});

test('heart rate is filtered by datetime (both ends inclusive) and paginated with next_token', async () => {
  const { access_token } = await connect();
  const start = '2024-03-02T00:00:00+00:00';
  const end = '2024-03-03T00:00:00+00:00';
  const rows: any[] = [];
  let path = `/v2/usercollection/heartrate?${new URLSearchParams({ start_datetime: start, end_datetime: end })}`;
  for (let pages = 1; ; pages++) {
    const page = await api(path, access_token);
    expect(page.status).toBe(200);
    rows.push(...page.body.data);
    if (page.body.next_token === null) {
      expect(pages).toBe(3);
      break;
    }
    path = `/v2/usercollection/heartrate?next_token=${encodeURIComponent(page.body.next_token)}`;
  }
  const expected = oura.data(userId).heartrate.filter((row) => row.timestamp >= start && row.timestamp <= end);
  expect(rows).toEqual(expected);
  expect(rows).toHaveLength(289);
  expect(rows[0]).toEqual({
    bpm: expect.any(Number),
    source: expect.stringMatching(/^(awake|sleep|workout)$/),
    timestamp: start,
    timestamp_unix: Date.parse(start),
  });
});

test('day collections exclude both bounds, and the seeded documents agree with each other', async () => {
  const { access_token } = await connect();
  const sleep = await api('/v2/usercollection/sleep?start_date=2024-03-01&end_date=2024-03-03', access_token);
  expect(sleep.body.data.map((doc: any) => doc.day)).toEqual(['2024-03-02']);

  const padded = await api('/v2/usercollection/sleep?start_date=2024-02-29&end_date=2024-03-04', access_token);
  expect(padded.body).toEqual({ data: oura.data(userId).sleep, next_token: null });

  const night = oura.data(userId).sleep[1]!;
  expect(night.type).toBe('long_sleep');
  expect(night.time_in_bed).toBe(night.sleep_phase_5_min!.length * 300);
  expect(night.total_sleep_duration).toBe(night.deep_sleep_duration! + night.light_sleep_duration! + night.rem_sleep_duration!);
  const hr = oura.data(userId).heartrate.find((row) => row.timestamp === night.bedtime_start)!;
  expect(hr).toMatchObject({ source: 'sleep', bpm: night.heart_rate!.items[0] });

  const dailySleep = await api('/v2/usercollection/daily_sleep?start_date=2024-02-29&end_date=2024-03-04', access_token);
  expect(dailySleep.body.data).toHaveLength(3);
  const activity = await api(`/v2/usercollection/daily_activity/${oura.data(userId).dailyActivity[0]!.id}`, access_token);
  expect(activity.body).toMatchObject({ day: '2024-03-01', steps: expect.any(Number), timestamp: '2024-03-01T04:00:00+00:00' });
});

test('401 once access tokens expire; a refresh gets going again', async () => {
  const { access_token, refresh_token } = await connect();
  oura.expireAccessTokens();
  const expired = await api('/v2/usercollection/sleep', access_token);
  expect(expired).toMatchObject({ status: 401, body: { status: 401, title: 'Expired Token' } });
  expect((await api('/v2/usercollection/sleep', 'not-a-token')).status).toBe(401);

  const refreshed = await token({ grant_type: 'refresh_token', refresh_token });
  expect((await api('/v2/usercollection/sleep', refreshed.body.access_token)).status).toBe(200);
});

test('403 for a collection whose scope was not granted; personal_info fields follow the scopes', async () => {
  const { access_token } = await connect(['daily']);
  expect(await api('/v2/usercollection/heartrate', access_token)).toMatchObject({ status: 403, body: { title: 'Missing Scopes' } });
  expect((await api('/v2/usercollection/daily_sleep', access_token)).status).toBe(200);
  const info = await api('/v2/usercollection/personal_info', access_token);
  expect(info.body).toEqual({ id: userId, age: null, weight: null, height: null, biological_sex: null, email: null });

  const full = await connect();
  expect((await api('/v2/usercollection/personal_info', full.access_token)).body).toMatchObject({ id: userId, age: expect.any(Number), email: null });
});

test('revoke ends access and refresh; failNext injects faults', async () => {
  const { access_token, refresh_token } = await connect();
  oura.failNext('/v2/usercollection/sleep', 429, 2);
  const limited = await api('/v2/usercollection/sleep', access_token);
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('1');
  expect((await api('/v2/usercollection/sleep', access_token)).status).toBe(429);
  expect((await api('/v2/usercollection/sleep', access_token)).status).toBe(200);

  oura.revoke(userId);
  expect((await api('/v2/usercollection/sleep', access_token)).status).toBe(401);
  expect(await token({ grant_type: 'refresh_token', refresh_token })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(oura.requests.filter((r) => r.path === '/v2/usercollection/sleep').map((r) => r.status)).toEqual([429, 429, 200, 401]);
});
