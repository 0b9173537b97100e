import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { generateDemoData } from '../../src/connections/sandbox-physiology';
import { connectionState, connectionWorkflowId } from '../../workflows/contract';
import { eventually } from '../helpers/eventually';
import { call, createTenant, spawnBuiltWorker, startStack, startTemporalWorker, type Tenant, type TestStack } from '../helpers/stack';

const EventType = temporal.api.enums.v1.EventType;

/**
 * A worker process killed (SIGKILL) in the middle of a connection's backfill: the step it held
 * runs again on another worker once its timeout passes, and the backfill completes with every
 * sample stored once (exactly the samples the source generates for the window), one
 * announcement and one historical.data.* event per resource.
 */
let stack: TestStack;
let tenant: Tenant;
let child: ChildProcess | null = null;
let replacement: { stop(): Promise<void> } | null = null;
const BACKFILL_DAYS = 8;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    events: { relay: true, delivery: false },
    env: {
      CONNECTION_BACKFILL_DAYS: String(BACKFILL_DAYS),
      CONNECTION_BACKFILL_CHUNK: '1d',
      CONNECTION_SYNC_INTERVAL: '1h',
      CONNECTION_SYNC_TIMEOUT: '5s',
      CONNECTION_SYNC_RETRY_INTERVAL: '200ms',
      HEALTH_DATA_EVENT_WINDOW: '1s',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
    },
  });
  tenant = await createTenant(stack.db);
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await replacement?.stop();
  await stack?.close();
});

test('the backfill completes without duplicates after its worker is killed mid-way', async () => {
  // Workflows and activities only.
  child = spawnBuiltWorker({ WORKER_ROLES: 'temporal', TEMPORAL_TASK_QUEUE: stack.taskQueue, WORKER_HEALTH_PORT: '0', METRICS_ENABLED: 'false' });
  const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `crash-${randomUUID()}` } });
  const userId = user.body.user_id as string;
  const connected = await call(stack.apiUrl, 'POST', '/v2/link/connect/demo', { key: tenant.apiKey, body: { user_id: userId, provider: 'apple_health_kit' } });
  expect(connected.status).toBe(200);
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'apple_health_kit'));

  // Two backfill steps done on the child: kill it while the rest is to come.
  await eventually(
    async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED).length >= 3 ? true : undefined;
    },
    'two backfill steps on the child worker',
    180_000,
    50,
  );
  child.kill('SIGKILL');
  replacement = await startTemporalWorker(stack);

  const state = await eventually(
    async () => {
      const current = await handle.query(connectionState);
      return current.progress.syncedUntil >= current.progress.backfillTo ? current : undefined;
    },
    'the backfill to finish on the replacement',
    240_000,
    200,
  );

  // Exactly what the source generates for the backfill window, each sample once.
  const [row] = await stack.db.query('SELECT seed FROM provider_connections WHERE user_id = $1', [userId]);
  const expected = generateDemoData({
    provider: 'apple_health_kit',
    seed: row.seed,
    timeZone: 'UTC',
    from: state.progress.backfillFrom,
    to: state.progress.backfillTo,
  });
  const expectedHeartRate = expected.find((batch) => batch.resource === 'heartrate')?.data ?? [];
  expect(expectedHeartRate.length).toBeGreaterThan(BACKFILL_DAYS * 100);
  const [stored] = await stack.db.query(
    `SELECT count(*)::int AS n, count(DISTINCT t.ts)::int AS distinct_ts
       FROM health_samples t JOIN health_series s ON s.id = t.series_id WHERE s.user_id = $1 AND s.resource = 'heartrate'`,
    [userId],
  );
  expect(stored).toEqual({ n: expectedHeartRate.length, distinct_ts: expectedHeartRate.length });

  // One announcement; one end-of-backfill event per resource, however often the last step ran.
  // Each resource's is queued when its own last chunk is stored (a timeseries' behind its event
  // batches), so wait for all four, not for the first.
  const ended = ['historical.data.heartrate.created', 'historical.data.steps.created', 'historical.data.sleep.created', 'historical.data.activity.created'];
  const events = await eventually(
    async () => {
      const rows: Array<{ event_type: string; n: number }> = await stack.db.query(
        `SELECT event_type, count(*)::int AS n FROM event_outbox WHERE user_id = $1 AND (event_type LIKE 'historical.%' OR event_type LIKE 'provider.%') GROUP BY event_type`,
        [userId],
      );
      return ended.every((type) => rows.some((event) => event.event_type === type)) ? rows : undefined;
    },
    'the end of the backfill in the outbox',
    60_000,
    200,
  );
  expect(events.find((event) => event.event_type === 'provider.connection.created')?.n).toBe(1);
  for (const event of events) expect(event.n).toBe(1);
  expect(events.map((event) => event.event_type)).toEqual(expect.arrayContaining(ended));
}, 420_000);
