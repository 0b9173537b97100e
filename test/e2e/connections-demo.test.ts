import { VitalClient, VitalError } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { connectionState, connectionWorkflowId } from '../../workflows/contract';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Demo connections through the SDK (`client.link.connectDemoProvider`, `client.user.*`): the
 * connection's workflow announces it (provider.connection.created), backfills through the
 * ingestion path (data readable by the SDK, historical.data.* at the end), syncs on refresh,
 * and ends on deregistration or when its user is erased; a source that refuses the connection
 * makes it `error` with one provider.connection.error. Two backfill days keep it short.
 */
const BACKFILL_DAYS = 2;

let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({
    management: true,
    events: true,
    env: {
      CONNECTION_BACKFILL_DAYS: String(BACKFILL_DAYS),
      CONNECTION_BACKFILL_CHUNK: '1d',
      CONNECTION_SYNC_INTERVAL: '2s',
      CONNECTION_SYNC_RETRY_INTERVAL: '200ms',
      HEALTH_DATA_EVENT_WINDOW: '1s',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      USER_DELETION_GRACE: '1s',
      // The sandbox's Apple Health source refuses its connections (the source-error test).
      SANDBOX_SOURCE_ERRORS: 'apple_health_kit=token_refresh_failed',
    },
  });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  const management = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${tenant.orgId}/team/${tenant.teamId}/sandbox${path}`, {
      headers: { 'X-Management-Key': tenant.managementKey },
      body,
    });
  const created = await management('POST', '/webhook', { url: receiver.url('/connections') });
  expect(created.status).toBe(200);
  receiver.secret('/connections', (await management('GET', `/webhook/${created.body.id}/secret`)).body.key);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const api = (method: string, path: string, body?: object, key = tenant.apiKey) => call(stack.apiUrl, method, path, { key, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `demo-${randomUUID()}`, fallback_time_zone: 'Europe/Berlin' });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

function webhooks(userId: string, eventType?: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.json?.user_id === userId && (!eventType || request.json.event_type === eventType));
}

async function backfilled(userId: string, provider: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, provider));
  await waitFor(async () => (await handle.query(connectionState)).progress.syncedUntil >= (await handle.query(connectionState)).progress.backfillTo, {
    timeoutMs: 120_000,
    describe: () => handle.query(connectionState),
  });
}

test('an Oura demo connection: announced, backfilled, readable through the SDK, refreshed, deregistered', async () => {
  const userId = await createUser();
  const connected = await client.link.connectDemoProvider({ userId, provider: 'oura' });
  expect(connected.success).toBe(true);

  // Listed at once, on the providers route and in the user object.
  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers).toHaveLength(1);
  expect(providers[0]).toMatchObject({ slug: 'oura', name: 'Oura', status: 'connected' });
  expect(Object.keys(providers[0].resourceAvailability)).toEqual(expect.arrayContaining(['sleep', 'heartrate', 'hrv', 'hypnogram']));
  const user = await client.user.get(userId);
  expect(user.connectedSources.map((source) => source.source.slug)).toEqual(['oura']);

  // provider.connection.created, signed, naming the user and the source.
  const [announced] = await waitFor(() =>
    webhooks(userId, 'provider.connection.created').length > 0 ? webhooks(userId, 'provider.connection.created') : undefined,
  );
  expect(announced.verified).toBe(true);
  expect(announced.json.data).toMatchObject({ user_id: userId, source: { slug: 'oura', name: 'Oura' }, provider: { slug: 'oura' } });

  await backfilled(userId, 'oura');
  // The backfill's end: one historical.data.<type>.created per resource, after its data events.
  // Each resource's comes when its own event batches are out, so they arrive in any order: wait
  // for the two this test reads, not for any two.
  const expectedTypes = ['historical.data.sleep.created', 'historical.data.heartrate.created'];
  const historical = await waitFor(
    () => {
      const found = webhooks(userId).filter((request) => String(request.json.event_type).startsWith('historical.data.'));
      const types = found.map((request) => request.json.event_type as string);
      return expectedTypes.every((type) => types.includes(type)) ? found : undefined;
    },
    { describe: () => webhooks(userId).map((request) => request.json.event_type) },
  );
  const historicalTypes = historical.map((request) => request.json.event_type as string);
  expect(historicalTypes).toEqual(expect.arrayContaining(expectedTypes));
  expect(new Set(historicalTypes).size).toBe(historicalTypes.length);
  const sleepEnd = historical.find((request) => request.json.event_type === 'historical.data.sleep.created');
  expect(sleepEnd?.json.data).toMatchObject({ user_id: userId, is_final: true, provider: { slug: 'oura' } });
  const sleepEvents = webhooks(userId, 'daily.data.sleep.created');
  expect(sleepEvents.length).toBeGreaterThan(0);
  expect(receiver.requests.indexOf(sleepEvents[0])).toBeLessThan(receiver.requests.indexOf(sleepEnd as ReceivedRequest));

  // The data through the read endpoints: nights whose stages add up, ring heart rate.
  const start = new Date(Date.now() - (BACKFILL_DAYS + 1) * 86_400_000).toISOString().slice(0, 10);
  const { sleep } = await client.sleep.get(userId, { startDate: start });
  expect(sleep.length).toBeGreaterThan(0);
  for (const night of sleep) {
    expect(night.light + night.rem + night.deep).toBe(night.total);
    expect(night.total + night.awake).toBe(night.duration);
    expect(night.source.slug).toBe('oura');
  }
  const grouped = await client.vitals.heartrateGrouped(userId, { startDate: start });
  const samples = grouped.groups.oura?.flatMap((group) => group.data) ?? [];
  expect(samples.length).toBeGreaterThan(0);
  for (const sample of samples) expect(sample.value).toBeGreaterThan(30);

  // Refresh: every connection syncs now. Without a timeout the answer does not wait: the sync is
  // in progress (or, rarely, through already); with one it waits for the sync to go through.
  const asked = await client.user.refresh(userId);
  expect(asked).toMatchObject({ success: true, userId, failedSources: [] });
  expect([...asked.refreshedSources, ...asked.inProgressSources]).toEqual(['oura']);
  const refreshed = await client.user.refresh(userId, { timeout: 30 });
  expect(refreshed).toMatchObject({ success: true, userId, refreshedSources: ['oura'], inProgressSources: [], failedSources: [] });
  expect((await client.user.getConnectedProviders(userId)).providers[0].status).toBe('connected');

  // Deregistration: gone from the lists at once, the workflow ends, the data stays.
  expect(await client.user.deregisterProvider(userId, 'oura')).toEqual({ success: true });
  expect((await client.user.getConnectedProviders(userId)).providers).toEqual([]);
  expect((await client.user.get(userId)).connectedSources).toEqual([]);
  expect(await stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'oura')).result()).toBe('deregistered');
  expect((await client.sleep.get(userId, { startDate: start })).sleep.length).toBe(sleep.length);
  const again = await api('DELETE', `/v2/user/${userId}/oura`);
  expect(again.status).toBe(404);
  expect(again.body.detail).toMatch(/oura/);
}, 240_000);

test('connecting twice changes nothing; bad requests get a clear 4xx', async () => {
  const userId = await createUser();
  expect((await api('POST', '/v2/link/connect/demo', { user_id: userId, provider: 'freestyle_libre' })).status).toBe(200);
  const twice = await api('POST', '/v2/link/connect/demo', { user_id: userId, provider: 'freestyle_libre' });
  expect(twice.status).toBe(200);
  expect(twice.body).toMatchObject({ success: true, detail: expect.stringMatching(/already connected/) });
  expect((await api('GET', `/v2/user/providers/${userId}`)).body.providers).toHaveLength(1);

  const unknown = await api('POST', '/v2/link/connect/demo', { user_id: userId, provider: 'garmin' });
  expect(unknown.status).toBe(422);
  expect(JSON.stringify(unknown.body.detail)).toMatch(/provider/);
  expect((await api('POST', '/v2/link/connect/demo', { user_id: randomUUID(), provider: 'oura' })).status).toBe(404);

  // Another team's user is invisible.
  const other = await createTenant(stack.db);
  for (const [method, path, body] of [
    ['POST', '/v2/link/connect/demo', { user_id: userId, provider: 'oura' }],
    ['GET', `/v2/user/providers/${userId}`, undefined],
    ['POST', `/v2/user/refresh/${userId}`, undefined],
    ['DELETE', `/v2/user/${userId}/freestyle_libre`, undefined],
  ] as const) {
    const response = await api(method, path, body, other.apiKey);
    expect(response.status).toBe(404);
    expect(response.body.detail).toBe('User not found.');
  }
  // Demo sources are the sandbox's.
  const production = await createTenant(stack.db, { environment: 'production' });
  const productionUser = (await api('POST', '/v2/user', { client_user_id: `demo-${randomUUID()}` }, production.apiKey)).body.user_id;
  const refused = await api('POST', '/v2/link/connect/demo', { user_id: productionUser, provider: 'oura' }, production.apiKey);
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(/sandbox/);

  // Exactly one announcement for the connection made twice.
  await waitFor(() => webhooks(userId, 'provider.connection.created').length > 0);
  await backfilled(userId, 'freestyle_libre');
  expect(webhooks(userId, 'provider.connection.created')).toHaveLength(1);
  try {
    await client.user.deregisterProvider(userId, 'freestyle_libre');
  } catch (error) {
    if (!(error instanceof VitalError)) throw error;
    throw new Error(`deregister failed: ${error.statusCode} ${JSON.stringify(error.body)}`);
  }
}, 240_000);

test('the user object shows its connections, oldest first, on a user, a page of users and a resolve', async () => {
  const clientUserId = `demo-${randomUUID()}`;
  const userId = (await api('POST', '/v2/user', { client_user_id: clientUserId })).body.user_id as string;
  const bare = await createUser();
  for (const provider of ['freestyle_libre', 'oura']) expect((await api('POST', '/v2/link/connect/demo', { user_id: userId, provider })).status).toBe(200);

  // The providers route reads the connections on its own: the user object agrees with it.
  const { providers } = (await api('GET', `/v2/user/providers/${userId}`)).body as {
    providers: Array<{ slug: string; name: string; logo: string; created_on: string }>;
  };
  expect(providers.map((provider) => provider.slug)).toEqual(['freestyle_libre', 'oura']);
  const expected = providers.map(({ slug, name, logo, created_on }) => ({ provider: { name, slug, logo }, created_on, source: { name, slug, logo } }));

  expect((await api('GET', `/v2/user/${userId}`)).body.connected_sources).toEqual(expected);
  expect((await api('GET', `/v2/user/resolve/${clientUserId}`)).body.connected_sources).toEqual(expected);
  const page = (await api('GET', '/v2/user?limit=1000')).body as { users: Array<{ user_id: string; connected_sources: unknown }> };
  expect(page.users.find((user) => user.user_id === userId)?.connected_sources).toEqual(expected);
  expect(page.users.find((user) => user.user_id === bare)?.connected_sources).toEqual([]);
  expect((await api('GET', `/v2/user/${bare}`)).body.connected_sources).toEqual([]);

  // Another team sees neither the user nor its connections.
  const other = await createTenant(stack.db);
  expect((await api('GET', `/v2/user/${userId}`, undefined, other.apiKey)).status).toBe(404);
  expect((await api('GET', `/v2/user/resolve/${clientUserId}`, undefined, other.apiKey)).status).toBe(404);
  expect((await api('GET', '/v2/user', undefined, other.apiKey)).body).toMatchObject({ users: [], total: 0 });
}, 120_000);

test('a deleted user pauses the connection; once erased, its workflow ends', async () => {
  const userId = await createUser();
  await client.link.connectDemoProvider({ userId, provider: 'fitbit' });
  await backfilled(userId, 'fitbit');
  expect((await api('DELETE', `/v2/user/${userId}`)).status).toBe(200);
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'fitbit'));
  expect(await handle.result()).toBe('gone');
  const rows = await stack.db.query('SELECT 1 FROM provider_connections WHERE user_id = $1', [userId]);
  expect(rows).toHaveLength(0);
}, 240_000);

test('a source that refuses the connection: status error with its details, one signed provider.connection.error, deregistration still works', async () => {
  const userId = await createUser();
  expect((await client.link.connectDemoProvider({ userId, provider: 'apple_health_kit' })).success).toBe(true);

  const [errored] = await waitFor(() => (webhooks(userId, 'provider.connection.error').length > 0 ? webhooks(userId, 'provider.connection.error') : undefined));
  expect(errored.verified).toBe(true);
  expect(errored.json).toMatchObject({ event_type: 'provider.connection.error', user_id: userId, team_id: tenant.teamId });
  expect(errored.json.data).toEqual({
    user_id: userId,
    provider: 'apple_health_kit',
    message: expect.stringMatching(/Apple Health/),
    error_type: 'token_refresh_failed',
    error_details: expect.stringMatching(/token/),
  });
  expect(webhooks(userId, 'provider.connection.created')).toHaveLength(1);

  // The SDK reads the status and the error details.
  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers).toHaveLength(1);
  expect(providers[0]).toMatchObject({
    slug: 'apple_health_kit',
    status: 'error',
    errorDetails: { errorType: 'token_refresh_failed', errorMessage: expect.any(String) },
  });
  expect(providers[0].errorDetails?.erroredAt).toBeInstanceOf(Date);

  // The workflow keeps trying the refused step (every CONNECTION_SYNC_INTERVAL); the error is
  // announced once, not once per try, and no data was stored.
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'apple_health_kit'));
  const syncAttempts = async () => {
    const history = await handle.fetchHistory();
    return (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'syncConnection').length;
  };
  await waitFor(async () => ((await syncAttempts()) >= 3 ? true : undefined), { timeoutMs: 60_000, describe: syncAttempts });
  await waitFor(async () => ((await handle.query(connectionState)).phase === 'error' ? true : undefined));
  // A refresh of a connection that stays in error reports it failed, not refreshed.
  expect(await client.user.refresh(userId, { timeout: 1 })).toMatchObject({ refreshedSources: [], inProgressSources: [], failedSources: ['apple_health_kit'] });
  const outbox = await stack.db.query(`SELECT count(*)::int AS n FROM event_outbox WHERE user_id = $1 AND event_type = 'provider.connection.error'`, [userId]);
  expect(outbox[0].n).toBe(1);
  const stored = await stack.db.query('SELECT count(*)::int AS n FROM health_series WHERE user_id = $1', [userId]);
  expect(stored[0].n).toBe(0);

  expect(await client.user.deregisterProvider(userId, 'apple_health_kit')).toEqual({ success: true });
  expect(await handle.result()).toBe('deregistered');
  expect((await api('GET', `/v2/user/providers/${userId}`)).body.providers).toEqual([]);
}, 240_000);
