import { VitalClient } from '@tryvital/vital-node';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * The mobile SDKs' sign-in (docs/mobile.md): the team's backend mints a sign-in token through
 * `@tryvital/vital-node`, the phone exchanges it at `POST /v1/token` (form-encoded, as the SDKs
 * send it) and refreshes; the access token reaches its own user's upload and read routes and
 * nothing else; signing out or deleting the user stops it at once. Link codes exchange once for
 * a sign-in token.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const day = '2026-11-20';

beforeAll(async () => {
  stack = await startStack({ worker: false });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: tenant.apiKey, body });
const asUser = (method: string, path: string, accessToken: string, body?: object) =>
  call(stack.apiUrl, method, path, { headers: { authorization: `Bearer ${accessToken}` }, body });

/** `POST /v1/token` form-encoded, as the SDKs send it. */
async function token(form: Record<string, string>) {
  const response = await fetch(`${stack.apiUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
}

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `mobile-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

function decodeSignInToken(signInToken: string): { public_key: string; user_token: string } {
  return JSON.parse(Buffer.from(signInToken, 'base64').toString('utf8'));
}

/** A signed-in phone: the sign-in token minted by the SDK and exchanged. */
async function signIn(userId: string): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const { signInToken } = await client.user.getUserSignInToken(userId);
  const exchanged = await token({
    grant_type: EXCHANGE,
    subject_token: decodeSignInToken(signInToken).user_token,
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  });
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

describe('sign-in tokens', () => {
  it('are the envelope the SDKs decode: base64 {public_key, user_token}, an RS256 JWT verified by the published JWKS', async () => {
    const userId = await createUser();
    const { userId: returned, signInToken } = await client.user.getUserSignInToken(userId);
    expect(returned).toBe(userId);
    const envelope = decodeSignInToken(signInToken);
    expect(envelope.public_key).toBe('labflow_sandbox_us');
    expect(decodeProtectedHeader(envelope.user_token)).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });

    const jwks = await call(stack.apiUrl, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(JSON.stringify(jwks.body)).not.toMatch(/"d"|"p"|"q"/);
    const { payload } = await jwtVerify(envelope.user_token, createLocalJWKSet(jwks.body));
    expect(payload).toMatchObject({
      iss: 'id-signer-sandbox-us@vital-id-sandbox-us.iam.gserviceaccount.com',
      uid: userId,
      tenant_id: tenant.teamId,
      claims: { vital_team_id: tenant.teamId },
    });
  });

  it("are minted only for the team's own live users", async () => {
    expect((await api('POST', `/v2/user/${randomUUID()}/sign_in_token`)).status).toBe(404);
    const other = await createTenant(stack.db);
    const userId = await createUser();
    expect((await call(stack.apiUrl, 'POST', `/v2/user/${userId}/sign_in_token`, { key: other.apiKey })).status).toBe(404);
    expect((await call(stack.apiUrl, 'POST', `/v2/user/${userId}/sign_in_token`)).status).toBe(401);
  });

  it('exchange once, at POST /v1/token, for an access token and a refresh token', async () => {
    const userId = await createUser();
    const { signInToken } = await client.user.getUserSignInToken(userId);
    const exchanged = await token({ grant_type: EXCHANGE, subject_token: decodeSignInToken(signInToken).user_token });
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('cache-control')).toBe('no-store');
    expect(exchanged.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    // Used up: a second exchange of the same token (or of its whole envelope) is refused.
    const again = await token({ grant_type: EXCHANGE, subject_token: signInToken });
    expect(again).toMatchObject({ status: 401, body: { detail: { error_type: 'invalid_token' } } });
  });

  it('refuses what labflow did not sign, and bad requests, in the shape the SDKs read', async () => {
    const forged = ['eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6Im5vcGUifQ', 'eyJ1aWQiOiJ4In0', 'c2ln'].join('.');
    expect(await token({ grant_type: EXCHANGE, subject_token: forged })).toMatchObject({ status: 401, body: { detail: { error_type: 'invalid_token' } } });
    expect(await token({ grant_type: EXCHANGE, subject_token: 'not a token' })).toMatchObject({
      status: 401,
      body: { detail: { error_type: 'invalid_token' } },
    });
    expect(await token({ grant_type: 'password', subject_token: 'x' })).toMatchObject({ status: 400, body: { detail: { error_type: 'invalid_request' } } });
    expect(await token({ grant_type: EXCHANGE })).toMatchObject({ status: 400, body: { detail: { error_type: 'invalid_request' } } });
    expect(await token({ grant_type: 'refresh_token', refresh_token: 'lfr_unknown' })).toMatchObject({
      status: 401,
      body: { detail: { error_type: 'reauthentication_required' } },
    });
  });
});

describe('access tokens', () => {
  it("reach their own user's upload and read routes", async () => {
    const userId = await createUser();
    const { access_token } = await signIn(userId);
    const uploaded = await asUser('POST', `/v2/timeseries/${userId}/heartrate`, access_token, {
      provider: 'apple_health_kit',
      data: [{ timestamp: `${day}T08:00:00Z`, value: 61 }],
    });
    expect(uploaded.status).toBe(200);
    const read = await asUser('GET', `/v2/timeseries/${userId}/heartrate?start_date=${day}&end_date=${day}`, access_token);
    expect(read.status).toBe(200);
    expect(read.body).toEqual([expect.objectContaining({ value: 61 })]);
    expect((await asUser('GET', `/v2/user/${userId}`, access_token)).body).toMatchObject({ user_id: userId });
    expect((await asUser('GET', `/v2/user/providers/${userId}`, access_token)).status).toBe(200);
    expect((await asUser('POST', '/v2/link/provider/manual/apple_health_kit', access_token, { user_id: userId })).body).toEqual({ success: true });
  });

  it("answer 401 for another user's routes and 403 for the team's", async () => {
    const [userId, otherId] = [await createUser(), await createUser()];
    const { access_token } = await signIn(userId);
    expect((await asUser('GET', `/v2/timeseries/${otherId}/heartrate?start_date=${day}`, access_token)).status).toBe(401);
    expect((await asUser('POST', `/v2/summary/sleep/${otherId}`, access_token, { data: [] })).status).toBe(401);
    expect((await asUser('GET', `/v2/user/${otherId}`, access_token)).status).toBe(401);
    expect((await asUser('POST', '/v2/link/provider/manual/apple_health_kit', access_token, { user_id: otherId })).status).toBe(401);
    expect((await asUser('GET', '/v2/user', access_token)).status).toBe(403);
    expect((await asUser('POST', `/v2/user/${userId}/sign_in_token`, access_token)).status).toBe(403);
    expect((await asUser('POST', '/v2/link/token', access_token, { user_id: userId })).status).toBe(403);
    expect((await asUser('GET', `/v2/user/${userId}`, `${access_token}x`)).status).toBe(401);
  });

  it('are counted per token by the rate limits, like a key', async () => {
    const userId = await createUser();
    const { access_token } = await signIn(userId);
    const read = await asUser('GET', `/v2/user/${userId}`, access_token);
    expect(read.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('refresh: a new pair, the old refresh token refused after', async () => {
    const userId = await createUser();
    const first = await signIn(userId);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await asUser('GET', `/v2/user/${userId}`, refreshed.body.access_token)).status).toBe(200);
    expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).toMatchObject({
      status: 401,
      body: { detail: { error_type: 'reauthentication_required' } },
    });
  });

  it("stop at once when the team signs the user out, and so do the user's unexchanged sign-in tokens", async () => {
    const userId = await createUser();
    const session = await signIn(userId);
    const { signInToken: unused } = await client.user.getUserSignInToken(userId);
    expect((await asUser('GET', `/v2/user/${userId}`, session.access_token)).status).toBe(200);
    expect(await api('POST', `/v2/user/${userId}/sign_out`)).toMatchObject({ status: 200, body: { success: true } });
    expect((await asUser('GET', `/v2/user/${userId}`, session.access_token)).status).toBe(401);
    expect(await token({ grant_type: 'refresh_token', refresh_token: session.refresh_token })).toMatchObject({
      status: 401,
      body: { detail: { error_type: 'reauthentication_required' } },
    });
    expect((await token({ grant_type: EXCHANGE, subject_token: unused })).status).toBe(401);
    // A new sign-in works again.
    const again = await signIn(userId);
    expect((await asUser('GET', `/v2/user/${userId}`, again.access_token)).status).toBe(200);
  });

  it('stop at once when the user is deleted', async () => {
    const userId = await createUser();
    const session = await signIn(userId);
    expect((await api('DELETE', `/v2/user/${userId}`)).status).toBe(200);
    expect((await asUser('GET', `/v2/user/${userId}`, session.access_token)).status).toBe(401);
    expect((await token({ grant_type: 'refresh_token', refresh_token: session.refresh_token })).status).toBe(401);
  });
});

describe('gzip uploads', () => {
  /** A chunk as the SDKs send it: JSON, gzip-encoded, with the user's access token. */
  const upload = (path: string, accessToken: string, body: object, encoding = 'gzip') =>
    fetch(`${stack.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', 'content-encoding': encoding },
      body: encoding === 'gzip' ? gzipSync(JSON.stringify(body)) : JSON.stringify(body),
    });

  it('takes a gzip chunk of 10,000 samples, historical then daily, and reads it back through the SDK', async () => {
    const userId = await createUser();
    const { access_token } = await signIn(userId);
    const start = Date.parse(`${day}T00:00:00Z`);
    const samples = Array.from({ length: 10_000 }, (_, i) => ({ timestamp: new Date(start + i * 5_000).toISOString(), value: 50 + (i % 40) }));
    const historical = await upload(`/v2/timeseries/${userId}/heartrate`, access_token, {
      stage: 'historical',
      start_date: day,
      end_date: day,
      time_zone: 'Europe/London',
      provider: 'apple_health_kit',
      is_final_chunk: true,
      data: samples,
    });
    expect(historical.status).toBe(200);
    const daily = await upload(`/v2/timeseries/${userId}/heartrate`, access_token, {
      stage: 'daily',
      time_zone: 'Europe/London',
      provider: 'apple_health_kit',
      data: [{ timestamp: `${day}T23:59:59Z`, value: 99 }],
    });
    expect(daily.status).toBe(200);
    const read = await client.vitals.heartrate(userId, { startDate: day, endDate: day, provider: 'apple_health_kit' });
    expect(read).toHaveLength(10_001);
    expect(read[0].value).toBe(50);
  });

  it('refuses a body that does not inflate (400) and an encoding it does not know (415)', async () => {
    const userId = await createUser();
    const { access_token } = await signIn(userId);
    const broken = await fetch(`${stack.apiUrl}/v2/timeseries/${userId}/heartrate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'not gzip at all',
    });
    expect(broken.status).toBe(400);
    expect((await upload(`/v2/timeseries/${userId}/heartrate`, access_token, { data: [] }, 'br')).status).toBe(415);
  });
});

describe('sdk_sync_state', () => {
  it("answers from the connection's state, within the user's ingestion bounds, dates without fractional seconds", async () => {
    const userId = await createUser();
    const { access_token } = await signIn(userId);
    expect((await asUser('POST', '/v2/link/provider/manual/apple_health_kit', access_token, { user_id: userId })).status).toBe(200);
    const state = await asUser('POST', `/v2/user/${userId}/sdk_sync_state/apple_health_kit`, access_token, { tzinfo: 'Europe/London' });
    expect(state.status).toBe(200);
    expect(state.body).toEqual({
      status: 'active',
      request_start_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      request_end_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      expires_in: 14400,
    });

    expect((await api('PATCH', `/v2/user/${userId}`, { ingestion_start: '2020-01-01', ingestion_end: '2020-12-31' })).status).toBe(204);
    const bounded = await asUser('POST', `/v2/user/${userId}/sdk_sync_state/apple_health_kit`, access_token);
    expect(bounded.body).toMatchObject({
      ingestion_start: '2020-01-01T00:00:00Z',
      ingestion_end: '2020-12-31T23:59:59Z',
      request_end_date: bounded.body.request_start_date,
    });

    expect((await asUser('POST', `/v2/user/${userId}/sdk_sync_state/oura`, access_token)).status).toBe(404);
    const otherId = await createUser();
    expect((await asUser('POST', `/v2/user/${otherId}/sdk_sync_state/apple_health_kit`, access_token)).status).toBe(401);
  });
});

describe('link codes', () => {
  it('are created through the SDK, one hour by default, and exchange once for a sign-in token', async () => {
    const userId = await createUser();
    const before = Date.now();
    const created = await client.link.codeCreate({ userId });
    expect(created.code).toMatch(/^skus[A-Z2-9]{16}$/);
    expect(created.exchangeUrl).toBe(`${new URL('/v2/link/code/exchange', created.exchangeUrl).origin}/v2/link/code/exchange?code=${created.code}`);
    const lifetime = created.expiresAt.getTime() - before;
    expect(lifetime).toBeGreaterThan(59 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(61 * 60_000);

    const exchanged = await call(stack.apiUrl, 'POST', `/v2/link/code/exchange?code=${created.code}&grant_type=sign_in_token`);
    expect(exchanged).toMatchObject({ status: 200, body: { user_id: userId, sign_in_token: expect.any(String), team: { name: expect.any(String) } } });
    const session = await token({ grant_type: EXCHANGE, subject_token: exchanged.body.sign_in_token });
    expect(session.status).toBe(200);
    expect((await asUser('GET', `/v2/user/${userId}`, session.body.access_token)).status).toBe(200);

    expect((await call(stack.apiUrl, 'POST', `/v2/link/code/exchange?code=${created.code}`)).status).toBe(401);
  });

  it('take an expiry of the caller, in the future and at most a week away', async () => {
    const userId = await createUser();
    const expiresAt = new Date(Date.now() + 5 * 60_000);
    const created = await client.link.codeCreate({ userId, expiresAt });
    expect(created.expiresAt.toISOString()).toBe(expiresAt.toISOString());
    expect((await api('POST', `/v2/link/code/create?user_id=${userId}&expires_at=2020-01-01T00:00:00Z`)).status).toBe(422);
    expect((await api('POST', `/v2/link/code/create?user_id=${userId}&expires_at=2999-01-01T00:00:00Z`)).status).toBe(422);
    expect((await api('POST', `/v2/link/code/create?user_id=${randomUUID()}`)).status).toBe(404);
    expect((await call(stack.apiUrl, 'POST', '/v2/link/code/exchange?code=skusNOTACODE')).status).toBe(401);
  });
});
