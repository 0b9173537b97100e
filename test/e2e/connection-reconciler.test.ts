import { Logger } from '@nestjs/common';
import { VitalClient } from '@tryvital/vital-node';
import { WorkflowNotFoundError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { SESSION_LOCKS } from '../../src/common/session-lock';
import { ConnectionReconciler } from '../../src/connections/connection-reconciler';
import { connectionState, connectionWorkflowId, deregisterConnection } from '../../workflows/contract';
import { eventually } from '../helpers/eventually';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * No demo connection silently stops: a connection whose workflow was terminated by hand (or
 * completed without a deregistration) while its row remains gets a new run from the worker's
 * ConnectionReconciler, which goes on backfilling and syncing without storing anything twice; a
 * running connection, a deregistered one and one whose user is pending deletion are left alone.
 * The timer is off (RECONCILER_INTERVAL=0s): each test runs a pass itself.
 */
const BACKFILL_DAYS = 2;

let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
let reconciler: ConnectionReconciler;

beforeAll(async () => {
  stack = await startStack({
    env: {
      CONNECTION_BACKFILL_DAYS: String(BACKFILL_DAYS),
      CONNECTION_BACKFILL_CHUNK: '1d',
      CONNECTION_SYNC_INTERVAL: '2s',
      CONNECTION_SYNC_RETRY_INTERVAL: '200ms',
      HEALTH_DATA_EVENT_WINDOW: '1s',
      RECONCILER_INTERVAL: '0s',
      RECONCILER_GRACE: '200ms',
      // The test database holds every test file's connections: one pass examines them all.
      RECONCILER_BATCH: '2000',
    },
  });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  reconciler = stack.api.get(ConnectionReconciler);
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: tenant.apiKey, body });
const handleOf = (userId: string, provider: string) => stack.temporal.workflow.getHandle(connectionWorkflowId(userId, provider));

async function connect(provider: string): Promise<string> {
  const user = await api('POST', '/v2/user', { client_user_id: `reconciler-${randomUUID()}`, fallback_time_zone: 'Europe/Berlin' });
  expect(user.status).toBe(200);
  const userId = user.body.user_id as string;
  expect((await api('POST', '/v2/link/connect/demo', { user_id: userId, provider })).status).toBe(200);
  return userId;
}

async function backfilled(userId: string, provider: string): Promise<void> {
  await eventually(
    async () => {
      const { progress } = await handleOf(userId, provider).query(connectionState);
      return progress.syncedUntil >= progress.backfillTo ? true : undefined;
    },
    `the backfill of ${provider}`,
    120_000,
    200,
  );
}

/**
 * One pass, which must have run (retried while another stack's pass holds the lock) and examined every row. A row
 * it could not examine or restart fails the test with the reconciler's own warning, which says
 * which row and why (the pass examines every test file's connections in the test database).
 */
async function pass() {
  // A test that spies on warnings itself keeps its spy (and what it recorded).
  const own = !jest.isMockFunction(Logger.prototype.warn);
  const warnings = own ? jest.spyOn(Logger.prototype, 'warn') : (Logger.prototype.warn as jest.MockedFunction<Logger['warn']>);
  const from = warnings.mock.calls.length;
  try {
    // Every test file's stack runs a reconciler on this database, and they share its lock: a pass
    // that meets another's is skipped (as it should be), so ask again until one runs.
    const result = await eventually(
      async () => {
        const attempt = await reconciler.reconcile();
        return attempt.skipped ? undefined : attempt;
      },
      "a reconciler pass that is not skipped (another test file's reconciler held the lock)",
      60_000,
      100,
    );
    const why = warnings.mock.calls
      .slice(from)
      .map((args) => String(args[0]))
      .filter((line) => line.includes('not examined or restarted') || line.includes('pass failed'));
    expect({ ...result, why }).toMatchObject({ skipped: false, failed: 0, why: [] });
    return result;
  } finally {
    if (own) warnings.mockRestore();
  }
}

test('a connection whose workflow was terminated by hand gets a new run; its data and reads carry on, nothing twice', async () => {
  const warnings = jest.spyOn(Logger.prototype, 'warn');
  try {
    const userId = await connect('oura');
    await backfilled(userId, 'oura');
    const [row] = await stack.db.query('SELECT id FROM provider_connections WHERE user_id = $1', [userId]);
    const start = new Date(Date.now() - (BACKFILL_DAYS + 1) * 86_400_000).toISOString().slice(0, 10);
    const before = (await client.sleep.get(userId, { startDate: start })).sleep;
    expect(before.length).toBeGreaterThan(0);

    const handle = handleOf(userId, 'oura');
    const first = await handle.describe();
    await handle.terminate('test: an operator ended it by hand');

    const result = await pass();
    expect(result.healed).toBeGreaterThanOrEqual(1);
    const healed = await handle.describe();
    expect(healed.runId).not.toBe(first.runId);
    expect(healed.status.name).toBe('RUNNING');
    expect(healed.taskQueue).toBe(stack.taskQueue);
    const logged = warnings.mock.calls.map((args) => String(args[0]));
    expect(logged.some((line) => line.includes(`healed connection ${row.id}`) && line.includes('TERMINATED') && line.includes(healed.runId))).toBe(true);

    // The new run backfills again (the same samples under the same keys) and syncs on refresh.
    await backfilled(userId, 'oura');
    const after = (await client.sleep.get(userId, { startDate: start })).sleep;
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    expect(new Set(after.map((night) => String(night.bedtimeStart))).size).toBe(after.length);
    // With a timeout, the answer waits for the sync the refresh asked for.
    const refreshed = await client.user.refresh(userId, { timeout: 30 });
    expect(refreshed).toMatchObject({ refreshedSources: ['oura'], inProgressSources: [], failedSources: [] });
    expect((await client.user.getConnectedProviders(userId)).providers.map((provider) => provider.slug)).toEqual(['oura']);
    const [{ n: syncs }] = await stack.db.query('SELECT count(*)::int AS n FROM provider_connections WHERE user_id = $1 AND last_synced_at >= $2', [
      userId,
      healed.startTime,
    ]);
    expect(syncs).toBe(1);

    // One announcement and one end-of-backfill event per resource over both runs.
    const events: Array<{ event_type: string; n: number }> = await stack.db.query(
      `SELECT event_type, count(*)::int AS n FROM event_outbox WHERE user_id = $1 AND (event_type LIKE 'historical.%' OR event_type LIKE 'provider.%') GROUP BY event_type`,
      [userId],
    );
    expect(events.map((event) => event.event_type)).toEqual(expect.arrayContaining(['provider.connection.created', 'historical.data.sleep.created']));
    for (const event of events) expect(event).toMatchObject({ n: 1 });

    // Running again: the next pass leaves it alone.
    await pass();
    expect((await handle.describe()).runId).toBe(healed.runId);
  } finally {
    warnings.mockRestore();
  }
}, 300_000);

test('a running connection is left alone', async () => {
  const userId = await connect('fitbit');
  const handle = handleOf(userId, 'fitbit');
  const first = await handle.describe();
  expect(first.status.name).toBe('RUNNING');
  await new Promise((resolve) => setTimeout(resolve, 300)); // past RECONCILER_GRACE
  await pass();
  const after = await handle.describe();
  expect(after).toMatchObject({ runId: first.runId, status: { name: 'RUNNING' } });
}, 120_000);

test('after a deregistration nothing is started, whether its workflow was running or already terminated', async () => {
  // Deregistered the usual way: the workflow completes as deregistered.
  const userId = await connect('freestyle_libre');
  const handle = handleOf(userId, 'freestyle_libre');
  expect((await api('DELETE', `/v2/user/${userId}/freestyle_libre`)).status).toBe(200);
  expect(await handle.result()).toBe('deregistered');
  const completed = await handle.describe();

  // Terminated first, then deregistered: the API's signal finds no run, the row goes all the same.
  const otherUser = await connect('apple_health_kit');
  const other = handleOf(otherUser, 'apple_health_kit');
  await other.terminate('test: an operator ended it by hand');
  const terminated = await other.describe();
  expect((await api('DELETE', `/v2/user/${otherUser}/apple_health_kit`)).status).toBe(200);

  await new Promise((resolve) => setTimeout(resolve, 300)); // past RECONCILER_GRACE
  await pass();
  expect(await handle.describe()).toMatchObject({ runId: completed.runId, status: { name: 'COMPLETED' } });
  expect(await other.describe()).toMatchObject({ runId: terminated.runId, status: { name: 'TERMINATED' } });
  expect(await stack.db.query('SELECT id FROM provider_connections WHERE user_id = ANY($1::uuid[])', [[userId, otherUser]])).toEqual([]);
}, 120_000);

test('a workflow that completed while its connection row remains (no deregistration) gets a new run', async () => {
  const userId = await connect('oura');
  const handle = handleOf(userId, 'oura');
  const [row] = await stack.db.query('SELECT * FROM provider_connections WHERE user_id = $1', [userId]);
  // The workflow ends as if deregistered, but the API never deleted the row (here: written back as it was).
  await handle.signal(deregisterConnection);
  expect(await handle.result()).toBe('deregistered');
  const completed = await handle.describe();
  await stack.db.query(
    'INSERT INTO provider_connections (id, team_id, environment, region, user_id, provider, seed, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [row.id, row.team_id, row.environment, row.region, row.user_id, row.provider, row.seed, row.created_at],
  );

  await new Promise((resolve) => setTimeout(resolve, 300)); // past RECONCILER_GRACE
  await pass();
  const healed = await handle.describe();
  expect(healed.runId).not.toBe(completed.runId);
  expect(healed.status.name).toBe('RUNNING');
  await backfilled(userId, 'oura');
  expect((await client.user.getConnectedProviders(userId)).providers.map((provider) => provider.slug)).toEqual(['oura']);
}, 180_000);

test('a user pending deletion: the terminated workflow is not restarted', async () => {
  const userId = await connect('fitbit');
  const handle = handleOf(userId, 'fitbit');
  await handle.terminate('test: an operator ended it by hand');
  const terminated = await handle.describe();
  expect((await api('DELETE', `/v2/user/${userId}`)).status).toBe(200);

  await new Promise((resolve) => setTimeout(resolve, 300)); // past RECONCILER_GRACE
  const result = await pass();
  expect(result.waiting).toBeGreaterThanOrEqual(1);
  expect(await handle.describe()).toMatchObject({ runId: terminated.runId, status: { name: 'TERMINATED' } });
}, 120_000);

test('while another worker holds the reconciler lock, a pass does nothing', async () => {
  const userId = await connect('oura');
  const handle = handleOf(userId, 'oura');
  await handle.terminate('test: an operator ended it by hand');
  const terminated = await handle.describe();
  await new Promise((resolve) => setTimeout(resolve, 300)); // past RECONCILER_GRACE

  // Another worker's pass, as far as Postgres can tell: the lock held on a session of its own.
  const other = stack.db.createQueryRunner();
  await other.connect();
  try {
    await other.query('SELECT pg_advisory_lock($1)', [SESSION_LOCKS.connectionReconciler]);
    expect(await reconciler.reconcile()).toMatchObject({ skipped: true, examined: 0, healed: 0 });
    expect(await handle.describe()).toMatchObject({ runId: terminated.runId, status: { name: 'TERMINATED' } });
  } finally {
    await other.query('SELECT pg_advisory_unlock($1)', [SESSION_LOCKS.connectionReconciler]);
    await other.release();
  }
  // Released: the next pass heals it.
  await pass();
  expect((await handle.describe()).status.name).toBe('RUNNING');
}, 120_000);

test('a pushed connection (HealthKit through the phone) has no workflow, and the reconciler starts none', async () => {
  const user = await api('POST', '/v2/user', { client_user_id: `reconciler-${randomUUID()}` });
  const userId = user.body.user_id as string;
  expect(await api('POST', '/v2/link/provider/manual/apple_health_kit', { user_id: userId })).toMatchObject({ status: 200, body: { success: true } });
  // Older than RECONCILER_GRACE, so a pulled connection without its workflow would be healed now.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await pass();
  await expect(handleOf(userId, 'apple_health_kit').describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  expect((await client.user.getConnectedProviders(userId)).providers).toMatchObject([{ slug: 'apple_health_kit', status: 'connected' }]);
});
