import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import type { ProviderCredentials } from '../../src/adapters/sources/source-adapter';
import { connectionState, connectionWorkflowId, userDeletionWorkflowId } from '../../workflows/contract';
import { FakeOura } from '../helpers/fake-oura';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * A real provider end to end: a production team's user connects an Oura ring through Link
 * (labflow's OAuth client at Oura, here a local stand-in speaking Oura's published API v2,
 * test/helpers/fake-oura.ts), and the connection's workflow fetches what Oura has — heart rate,
 * the night's HRV and hypnogram, sleep and activity summaries — into the read endpoints. Tokens
 * are kept encrypted; an expired access token is refreshed (and the new single-use pair kept); a
 * revoked grant makes the connection `error` with provider.connection.error until the user signs
 * in again; scopes left unticked and a denied grant are refused with the SDK's error types.
 */
let stack: TestStack;
let oura: FakeOura;
let production: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

const DAY_MS = 86_400_000;
const REDIRECT = 'https://app.example.com/linked';

beforeAll(async () => {
  oura = await FakeOura.start({ pageSize: 100 });
  stack = await startStack({
    management: true,
    events: true,
    env: {
      CONNECTION_BACKFILL_DAYS: '3',
      CONNECTION_BACKFILL_CHUNK: '3d',
      CONNECTION_SYNC_INTERVAL: '1h',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      USER_DELETION_GRACE: '1s',
      // The redirect URI registered at Oura is built on it (labflow is reached by path in these tests).
      PUBLIC_API_URL: 'https://labflow.test',
      ...oura.labflowEnv(),
    },
  });
  production = await createTenant(stack.db, { environment: 'production' });
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: production.apiKey, headers: { 'x-service-api-key': production.apiKey }, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, production, 'production', receiver, '/oura', ['provider.connection.created', 'provider.connection.error']);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await oura?.close();
});

const api = (method: string, path: string, body?: object, key = production.apiKey) => call(stack.apiUrl, method, path, { key, body });

async function createUser(key = production.apiKey): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `oura-${randomUUID()}` }, key);
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

/** A link token for Oura, and the Oura page Link sends the user's browser to. */
async function beginOura(userId: string, key = production.apiKey): Promise<URL> {
  const token = await api('POST', '/v2/link/token', { user_id: userId, provider: 'oura', redirect_url: REDIRECT, on_error: 'redirect' }, key);
  expect(token.status).toBe(200);
  const begin = await call(stack.apiUrl, 'GET', '/v2/link/provider/oauth/oura', { headers: { 'x-vital-link-token': token.body.link_token } });
  expect(begin.status).toBe(200);
  return new URL(begin.body.oauth_url);
}

/**
 * The user's browser on Oura's page (deciding as `nextAuthorization` says) and back to labflow;
 * answers where labflow sends it then (the team's redirect_url with the outcome).
 */
async function signIn(authorizeUrl: URL): Promise<URL> {
  const atOura = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(atOura.status).toBe(302);
  const back = new URL(atOura.headers.get('location') as string);
  expect(back.pathname).toBe('/v2/link/connect/oura');
  // labflow by path: the test stack listens on a port its public URL does not know.
  const atLabflow = await fetch(`${stack.apiUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  expect(atLabflow.status).toBe(303);
  return new URL(atLabflow.headers.get('location') as string);
}

function webhooks(userId: string, eventType: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.json?.event_type === eventType && request.json.user_id === userId);
}

async function backfilled(userId: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'oura'));
  await waitFor(
    async () => {
      const { progress } = await handle.query(connectionState);
      return progress.syncedUntil >= progress.backfillTo ? true : undefined;
    },
    { timeoutMs: 60_000, describe: () => handle.query(connectionState) },
  );
}

async function storedCredentials(userId: string): Promise<{ sealed: string; credentials: ProviderCredentials }> {
  const [row] = await stack.db.query(`SELECT credentials_enc FROM provider_connections WHERE user_id = $1 AND provider = 'oura'`, [userId]);
  const sealed = row.credentials_enc as string;
  return { sealed, credentials: new PhiCipher(stack.config.phiEncryptionKey).decryptJson<ProviderCredentials>(sealed) };
}

/** An Oura user with four days of data, connected to a new labflow user through Link, backfilled. */
async function connectedUser(): Promise<{ ouraUser: string; userId: string }> {
  const ouraUser = oura.addUser();
  oura.seedDays(ouraUser, isoDay(Date.now() - 3 * DAY_MS), 4);
  const userId = await createUser();
  oura.nextAuthorization({ userId: ouraUser });
  expect((await signIn(await beginOura(userId))).searchParams.get('state')).toBe('success');
  await backfilled(userId);
  return { ouraUser, userId };
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

test('a production user connects Oura through Link: tokens kept encrypted, Oura data in the read endpoints, signed provider.connection.created', async () => {
  const ouraUser = oura.addUser({ email: 'ring@example.com' });
  oura.seedDays(ouraUser, isoDay(Date.now() - 5 * DAY_MS), 6);
  const userId = await createUser();

  const authorize = await beginOura(userId);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${oura.url}/oauth/authorize`);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ response_type: 'code', client_id: oura.clientId, scope: 'daily heartrate' });
  expect(new URL(authorize.searchParams.get('redirect_uri') as string).pathname).toBe('/v2/link/connect/oura');

  oura.nextAuthorization({ userId: ouraUser });
  const done = await signIn(authorize);
  expect(`${done.origin}${done.pathname}`).toBe(REDIRECT);
  expect(Object.fromEntries(done.searchParams)).toMatchObject({ state: 'success', provider: 'oura' });

  const [created] = await waitFor(() =>
    webhooks(userId, 'provider.connection.created').length > 0 ? webhooks(userId, 'provider.connection.created') : undefined,
  );
  expect(created.verified).toBe(true);
  expect(created.json.data.source.slug).toBe('oura');
  expect(created.json.data.resource_availability).toMatchObject({ sleep: { status: 'available' }, heartrate: { status: 'available' } });

  // Oura's tokens are with the connection, sealed: the plaintext is nowhere in the row.
  const { sealed, credentials } = await storedCredentials(userId);
  expect(credentials.refreshToken).toEqual(expect.any(String));
  expect(credentials.scopes.sort()).toEqual(['daily', 'heartrate']);
  expect(sealed).not.toContain(credentials.accessToken);
  const [row] = await stack.db.query(`SELECT external_user_id, status FROM provider_connections WHERE user_id = $1`, [userId]);
  expect(row).toEqual({ external_user_id: ouraUser, status: 'connected' });

  await backfilled(userId);
  const data = oura.data(ouraUser);
  const start = isoDay(Date.now() - 6 * DAY_MS);

  // Sleep: each of Oura's nights, its numbers as Oura gave them, the day's score on the long sleep.
  const { sleep } = await client.sleep.get(userId, { startDate: start });
  const nights = data.sleep.filter((night) => night.type === 'long_sleep' && Date.parse(night.bedtime_end) < Date.now());
  expect(nights.length).toBeGreaterThanOrEqual(3);
  for (const night of nights) {
    const stored = sleep.find((candidate) => candidate.bedtimeStart.getTime() === Date.parse(night.bedtime_start));
    expect(stored).toMatchObject({
      calendarDate: night.day,
      type: 'long_sleep',
      duration: night.time_in_bed,
      total: night.total_sleep_duration,
      deep: night.deep_sleep_duration,
      rem: night.rem_sleep_duration,
      hrLowest: night.lowest_heart_rate,
      averageHrv: night.average_hrv,
      temperatureDelta: night.readiness?.temperature_deviation ?? undefined,
      score: data.dailySleep.find((day) => day.day === night.day)?.score,
      source: { provider: 'oura', type: 'ring' },
    });
  }

  // Activity: Oura's seconds of activity as Junction's minutes.
  const { activity } = await client.activity.get(userId, { startDate: start });
  const yesterday = data.dailyActivity.find((day) => day.day === isoDay(Date.now() - DAY_MS));
  expect(yesterday).toBeDefined();
  expect(activity.find((day) => day.calendarDate === yesterday!.day)).toMatchObject({
    steps: yesterday!.steps,
    caloriesActive: yesterday!.active_calories,
    low: Math.round(yesterday!.low_activity_time / 60),
    high: Math.round(yesterday!.high_activity_time / 60),
  });

  // Heart rate: every one of Oura's samples of yesterday, bpm for bpm.
  const from = Date.parse(`${isoDay(Date.now() - DAY_MS)}T00:00:00Z`);
  const expected = data.heartrate.filter((sample) => sample.timestamp_unix >= from && sample.timestamp_unix < from + DAY_MS);
  const samples = await client.vitals.heartrate(userId, { startDate: new Date(from).toISOString(), endDate: new Date(from + DAY_MS - 1).toISOString() });
  expect(samples.map((sample) => [sample.timestamp.getTime(), sample.value])).toEqual(expected.map((sample) => [sample.timestamp_unix, sample.bpm]));

  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers.map((provider) => [provider.slug, provider.status])).toEqual([['oura', 'connected']]);

  // Deregistered: the connection and its tokens are gone from labflow, and the grant ends at Oura too.
  const { credentials: last } = await storedCredentials(userId);
  expect((await client.user.deregisterProvider(userId, 'oura')).success).toBe(true);
  expect(oura.requests.filter((request) => request.path === '/oauth/revoke').map((request) => request.status)).toEqual([200]);
  expect((await fetch(`${oura.url}/v2/usercollection/personal_info`, { headers: { authorization: `Bearer ${last.accessToken}` } })).status).toBe(401);
  expect(await stack.db.query(`SELECT 1 FROM provider_connections WHERE user_id = $1`, [userId])).toEqual([]);
});

test('an expired access token is refreshed before the pull goes on, and the new single-use pair is kept', async () => {
  const { userId } = await connectedUser();
  const before = await storedCredentials(userId);

  oura.expireAccessTokens();
  const refreshes = () => oura.requests.filter((request) => request.path === '/oauth/token' && request.status === 200).length;
  const tokenCalls = refreshes();
  const refreshed = await client.user.refresh(userId, { timeout: 30 });
  expect(refreshed.refreshedSources).toEqual(['oura']);
  expect(refreshes()).toBe(tokenCalls + 1);

  const after = await storedCredentials(userId);
  expect(after.credentials.accessToken).not.toBe(before.credentials.accessToken);
  expect(after.credentials.refreshToken).not.toBe(before.credentials.refreshToken);
  // The pull after the refresh went through with the new token: Oura answered it, nothing failed.
  const lastHeartRate = oura.requests.filter((request) => request.path === '/v2/usercollection/heartrate').at(-1);
  expect(lastHeartRate?.status).toBe(200);
  const [row] = await stack.db.query(`SELECT status FROM provider_connections WHERE user_id = $1`, [userId]);
  expect(row.status).toBe('connected');
});

test('a revoked grant: status error and one signed provider.connection.error (token_refresh_failed); signing in again mends it', async () => {
  const { ouraUser, userId } = await connectedUser();

  oura.revoke(ouraUser);
  oura.expireAccessTokens();
  await client.user.refresh(userId);
  const [errored] = await waitFor(() => (webhooks(userId, 'provider.connection.error').length > 0 ? webhooks(userId, 'provider.connection.error') : undefined));
  expect(errored.verified).toBe(true);
  expect(errored.json.data).toMatchObject({ provider: 'oura', error_type: 'token_refresh_failed' });
  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers[0]).toMatchObject({ slug: 'oura', status: 'error' });

  // The user signs in again: the new grant replaces the dead one and the connection syncs at once.
  oura.nextAuthorization({ userId: ouraUser });
  expect((await signIn(await beginOura(userId))).searchParams.get('state')).toBe('success');
  await waitFor(async () => ((await client.user.getConnectedProviders(userId)).providers[0].status === 'connected' ? true : undefined), { timeoutMs: 30_000 });
  expect(webhooks(userId, 'provider.connection.error')).toHaveLength(1);
  expect(webhooks(userId, 'provider.connection.created')).toHaveLength(1);
});

test('refused at Oura: scopes left unticked (required_scopes_not_granted) and a denied grant (user_cancelled); nothing connected', async () => {
  const ouraUser = oura.addUser();
  const userId = await createUser();

  oura.nextAuthorization({ userId: ouraUser, scopes: ['heartrate'] });
  const partial = await signIn(await beginOura(userId));
  expect(Object.fromEntries(partial.searchParams)).toMatchObject({ state: 'error', error_type: 'required_scopes_not_granted', provider: 'oura' });

  oura.nextAuthorization({ userId: ouraUser, deny: true });
  const denied = await signIn(await beginOura(userId));
  expect(Object.fromEntries(denied.searchParams)).toMatchObject({ state: 'error', error_type: 'user_cancelled' });

  expect((await client.user.getConnectedProviders(userId)).providers).toEqual([]);
});

test('an erased user: the connection and its tokens go with the user, and the grant ends at Oura', async () => {
  const { userId } = await connectedUser();
  const { credentials } = await storedCredentials(userId);
  const revocations = () => oura.requests.filter((request) => request.path === '/oauth/revoke' && request.query.access_token === credentials.accessToken);

  expect((await api('DELETE', `/v2/user/${userId}`)).status).toBe(200);
  await stack.temporal.workflow.getHandle(userDeletionWorkflowId(userId)).result();
  expect(await stack.db.query(`SELECT 1 FROM provider_connections WHERE user_id = $1`, [userId])).toEqual([]);
  expect(revocations().map((request) => request.status)).toEqual([200]);
  expect((await fetch(`${oura.url}/v2/usercollection/personal_info`, { headers: { authorization: `Bearer ${credentials.accessToken}` } })).status).toBe(401);
});

test("the hosted Link page of a production token offers Oura, and its button leads to Oura's consent page", async () => {
  const userId = await createUser();
  const token = await api('POST', '/v2/link/token', { user_id: userId }, production.apiKey);
  expect(token.status).toBe(200);
  const web = new URL(token.body.link_web_url);
  const page = await fetch(`${stack.apiUrl}${web.pathname}${web.search}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const button = /href="(\/link\/oauth\/oura\?token=[^"]+)"/.exec(html);
  expect(button).not.toBeNull();
  const toOura = await fetch(`${stack.apiUrl}${button![1].replace(/&amp;/g, '&')}`, { redirect: 'manual' });
  expect(toOura.status).toBe(303);
  const authorize = new URL(toOura.headers.get('location') as string);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${oura.url}/oauth/authorize`);
  expect(authorize.searchParams.get('client_id')).toBe(oura.clientId);
});

test('sandbox teams keep the generated Oura: their Link page is the sandbox consent page, not Oura', async () => {
  const sandbox = await createTenant(stack.db);
  const userId = await createUser(sandbox.apiKey);
  const authorize = await beginOura(userId, sandbox.apiKey);
  expect(authorize.pathname).toBe('/link/sandbox/oauth/oura');
});
