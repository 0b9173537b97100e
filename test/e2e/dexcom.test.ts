import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import type { ProviderCredentials } from '../../src/adapters/sources/source-adapter';
import { connectionState, connectionWorkflowId } from '../../workflows/contract';
import { FakeDexcom } from '../helpers/fake-dexcom';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * A real CGM end to end: a production team's user connects a Dexcom account through Link
 * (labflow's OAuth client at Dexcom, here a local stand-in speaking Dexcom's published API v3,
 * test/helpers/fake-dexcom.ts), and the connection's workflow fetches the estimated glucose
 * values into the glucose timeseries. Tokens are kept encrypted; an expired access token is
 * refreshed and the new pair kept; a revoked grant makes the connection `error` with
 * provider.connection.error.
 */
let stack: TestStack;
let dexcom: FakeDexcom;
let team: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

const DAY_MS = 86_400_000;
const REDIRECT = 'https://app.example.com/linked';
const MG_DL_PER_MMOL_L = 18.0182;

beforeAll(async () => {
  dexcom = await FakeDexcom.start();
  stack = await startStack({
    management: true,
    events: true,
    env: {
      CONNECTION_BACKFILL_DAYS: '2',
      CONNECTION_BACKFILL_CHUNK: '2d',
      CONNECTION_SYNC_INTERVAL: '1h',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      PUBLIC_API_URL: 'https://labflow.test',
      ...dexcom.labflowEnv(),
    },
  });
  team = await createTenant(stack.db, { environment: 'production' });
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: team.apiKey, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, team, 'production', receiver, '/dexcom', ['provider.connection.created', 'provider.connection.error']);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await dexcom?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: team.apiKey, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `cgm-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

/** A link token for Dexcom, and the Dexcom login page Link sends the user's browser to. */
async function beginDexcom(userId: string): Promise<URL> {
  const token = await api('POST', '/v2/link/token', { user_id: userId, provider: 'dexcom_v3', redirect_url: REDIRECT, on_error: 'redirect' });
  expect(token.status).toBe(200);
  const begin = await call(stack.apiUrl, 'GET', '/v2/link/provider/oauth/dexcom_v3', { headers: { 'x-vital-link-token': token.body.link_token } });
  expect(begin.status).toBe(200);
  return new URL(begin.body.oauth_url);
}

/** The user's browser at Dexcom (deciding as `nextAuthorization` says) and back to labflow; answers where labflow sends it then. */
async function signIn(loginUrl: URL): Promise<URL> {
  const atDexcom = await fetch(loginUrl, { redirect: 'manual' });
  expect(atDexcom.status).toBe(302);
  const back = new URL(atDexcom.headers.get('location') as string);
  expect(back.pathname).toBe('/v2/link/connect/dexcom_v3');
  const atLabflow = await fetch(`${stack.apiUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  expect(atLabflow.status).toBe(303);
  return new URL(atLabflow.headers.get('location') as string);
}

async function backfilled(userId: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'dexcom_v3'));
  await waitFor(
    async () => {
      const { progress } = await handle.query(connectionState);
      return progress.syncedUntil >= progress.backfillTo ? true : undefined;
    },
    { timeoutMs: 60_000, describe: () => handle.query(connectionState) },
  );
}

async function storedCredentials(userId: string): Promise<ProviderCredentials> {
  const [row] = await stack.db.query(`SELECT credentials_enc FROM provider_connections WHERE user_id = $1 AND provider = 'dexcom_v3'`, [userId]);
  return new PhiCipher(stack.config.phiEncryptionKey).decryptJson<ProviderCredentials>(row.credentials_enc);
}

function webhooks(userId: string, eventType: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.json?.event_type === eventType && request.json.user_id === userId);
}

/** A Dexcom user with the last `days` days of EGVs, connected to a new labflow user through Link and backfilled. */
async function connectedUser(days = 2, displayDevice: 'receiver' | 'iOS' = 'receiver'): Promise<{ dexcomUser: string; userId: string }> {
  const dexcomUser = dexcom.addUser({ displayDevice });
  dexcom.seedEgvs(dexcomUser, Date.now() - days * DAY_MS, Date.now());
  const userId = await createUser();
  const login = await beginDexcom(userId);
  expect(`${login.origin}${login.pathname}`).toBe(`${dexcom.url}/v2/oauth2/login`);
  expect(Object.fromEntries(login.searchParams)).toMatchObject({ response_type: 'code', client_id: dexcom.clientId, scope: 'offline_access' });
  dexcom.nextAuthorization({ userId: dexcomUser });
  const done = await signIn(login);
  expect(Object.fromEntries(done.searchParams)).toMatchObject({ state: 'success', provider: 'dexcom_v3' });
  await backfilled(userId);
  return { dexcomUser, userId };
}

test("a production user connects Dexcom through Link: its EGVs are the user's glucose timeseries, value by value; signed provider.connection.created", async () => {
  const { dexcomUser, userId } = await connectedUser(2, 'receiver');

  const [row] = await stack.db.query(`SELECT external_user_id, status FROM provider_connections WHERE user_id = $1 AND provider = 'dexcom_v3'`, [userId]);
  expect(row).toEqual({ external_user_id: dexcomUser, status: 'connected' });
  const created = await waitFor(() => webhooks(userId, 'provider.connection.created')[0]);
  expect(created.verified).toBe(true);
  expect(created.json.data).toMatchObject({
    provider: { slug: 'dexcom_v3' },
    external_user_id: dexcomUser,
    resource_availability: { glucose: { status: 'available' } },
  });

  const glucose = await client.vitals.glucose(userId, {
    startDate: new Date(Date.now() - 3 * DAY_MS).toISOString(),
    endDate: new Date(Date.now() + DAY_MS).toISOString(),
  });
  const expected = dexcom
    .egvs(dexcomUser)
    .filter((egv) => egv.value !== null)
    .map((egv) => ({
      at: Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(egv.systemTime) ? egv.systemTime : `${egv.systemTime}Z`),
      value: Math.round(((egv.value as number) / MG_DL_PER_MMOL_L) * 100) / 100,
    }));
  expect(expected.length).toBeGreaterThan(400);
  expect(glucose.map((sample) => ({ at: new Date(sample.timestamp).getTime(), value: sample.value }))).toEqual(expected);
  expect(glucose.every((sample) => sample.unit === 'mmol/L')).toBe(true);

  const tokens = await storedCredentials(userId);
  expect(tokens.accessToken).toBeTruthy();
  expect(tokens.refreshToken).toBeTruthy();
});

test("an expired access token is refreshed before use and the new pair kept; a revoked grant is the connection's error, once", async () => {
  const { dexcomUser, userId } = await connectedUser(1, 'iOS');
  const before = await storedCredentials(userId);

  dexcom.expireAccessTokens();
  dexcom.seedEgvs(dexcomUser, Date.now() - 60 * 60_000, Date.now());
  const refreshed = await api('POST', `/v2/user/refresh/${userId}?timeout=20`);
  expect(refreshed.body.refreshed_sources).toEqual(['dexcom_v3']);
  const after = await storedCredentials(userId);
  expect(after.refreshToken).not.toBe(before.refreshToken);
  expect(dexcom.refreshTokenUsed(before.refreshToken as string)).toBe(true);

  dexcom.revoke(dexcomUser);
  dexcom.expireAccessTokens();
  await api('POST', `/v2/user/refresh/${userId}?timeout=20`);
  const error = await waitFor(() => webhooks(userId, 'provider.connection.error')[0]);
  expect(error.verified).toBe(true);
  expect(error.json.data).toMatchObject({ provider: 'dexcom_v3', error_type: 'token_refresh_failed' });
  const providers = await client.user.getConnectedProviders(userId);
  expect(providers.providers.find((provider) => provider.slug === 'dexcom_v3')).toMatchObject({ status: 'error' });
  await api('POST', `/v2/user/refresh/${userId}?timeout=2`);
  expect(webhooks(userId, 'provider.connection.error')).toHaveLength(1);
});

test("denying access on Dexcom's page is refused in Link with user_cancelled; sandbox teams are not offered dexcom_v3", async () => {
  const userId = await createUser();
  dexcom.nextAuthorization({ userId: dexcom.addUser(), deny: true });
  const done = await signIn(await beginDexcom(userId));
  expect(Object.fromEntries(done.searchParams)).toMatchObject({ state: 'error', error_type: 'user_cancelled' });

  const sandbox = await createTenant(stack.db, { environment: 'sandbox' });
  const sandboxUser = await call(stack.apiUrl, 'POST', '/v2/user', { key: sandbox.apiKey, body: { client_user_id: `cgm-${randomUUID()}` } });
  const token = await call(stack.apiUrl, 'POST', '/v2/link/token', { key: sandbox.apiKey, body: { user_id: sandboxUser.body.user_id, provider: 'dexcom_v3' } });
  expect(token.status).toBe(400);
  expect(token.body.detail).toMatch(/dexcom_v3/);
});
