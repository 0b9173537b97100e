import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { type ConnectionSync, createConnectionActivities } from '../../activities/connections';
import {
  type ConnectionIdentity,
  type ConnectionSchedule,
  connectionState,
  connectionWorkflowId,
  deregisterConnection,
  refreshConnection,
  type SyncConnectionInput,
  type SyncConnectionResult,
} from '../../workflows/contract';
import { startWorkflowHarness, waitFor, type WorkflowHarness, writeFixtureHistories } from '../helpers/workflow-harness';

const EventType = temporal.api.enums.v1.EventType;
const DAY_MS = 86_400_000;

/** The sync service as the activities see it: records every call, answers as scripted per connection. */
class FakeSync implements ConnectionSync {
  readonly announced: string[] = [];
  readonly ended: string[] = [];
  readonly syncs = new Map<string, SyncConnectionInput[]>();
  /** Answers to give a connection's next syncs, in order (then `synced`). */
  readonly script = new Map<string, Array<SyncConnectionResult['status']>>();
  gone = new Set<string>();
  /** A connection whose first sync takes this long (ms). */
  readonly slowFirstSync = new Map<string, number>();

  async announce(connection: ConnectionIdentity): Promise<'announced' | 'gone'> {
    if (this.gone.has(connection.connectionId)) return 'gone';
    this.announced.push(connection.connectionId);
    return 'announced';
  }

  async end(connectionId: string): Promise<void> {
    this.ended.push(connectionId);
  }

  async sync(input: SyncConnectionInput): Promise<SyncConnectionResult> {
    this.syncs.set(input.connectionId, [...(this.syncs.get(input.connectionId) ?? []), input]);
    const slow = this.slowFirstSync.get(input.connectionId);
    if (slow !== undefined) {
      this.slowFirstSync.delete(input.connectionId);
      await new Promise((resolve) => setTimeout(resolve, slow));
    }
    const status = this.script.get(input.connectionId)?.shift() ?? 'synced';
    if (status === 'synced') return { status, stored: 1 };
    return status === 'error' ? { status, errorType: 'token_refresh_failed' } : { status };
  }

  of(connectionId: string): SyncConnectionInput[] {
    return this.syncs.get(connectionId) ?? [];
  }

  readonly activities = createConnectionActivities(this);
}

/**
 * The connection workflow on the real dev server with a fake sync service behind the real
 * activities: the backfill in contiguous steps ending with the final one, incremental syncs on
 * the timer and on refresh, continue-as-new after syncsPerRun, a paused user, a source refusing
 * the connection, deregistration and a vanished connection.
 */
describe('connection workflow', () => {
  let harness: WorkflowHarness<FakeSync>;
  let fake: FakeSync;
  const fixtures: Record<string, string | { workflowId: string; runId: string }> = {};

  beforeAll(async () => {
    fake = new FakeSync();
    harness = await startWorkflowHarness(fake);
  });
  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness?.close();
  });

  const schedule = (overrides: Partial<ConnectionSchedule> = {}): ConnectionSchedule => ({
    backfillDays: 3,
    backfillChunkMs: DAY_MS,
    syncInterval: '1 hour',
    syncsPerRun: 100,
    syncTimeout: '10s',
    syncRetryInterval: '100ms',
    ...overrides,
  });

  const start = async (overrides: Partial<ConnectionSchedule> = {}, prepare: (connectionId: string) => void = () => undefined) => {
    const connection: ConnectionIdentity = {
      connectionId: randomUUID(),
      teamId: randomUUID(),
      environment: 'sandbox',
      region: 'us',
      userId: randomUUID(),
      provider: 'oura',
    };
    prepare(connection.connectionId);
    const handle = await harness.client.workflow.start('connectionWorkflow', {
      workflowId: connectionWorkflowId(connection.userId, connection.provider),
      taskQueue: harness.taskQueue,
      args: [{ connection, schedule: schedule(overrides) }],
    });
    return { connection, handle };
  };

  test('announces, backfills in contiguous day steps ending with the final one, then waits for its interval', async () => {
    const { connection, handle } = await start();
    await waitFor(async () => ((await handle.query(connectionState)).phase === 'connected' ? true : undefined), 'the backfill to finish');
    expect(fake.announced).toContain(connection.connectionId);
    const steps = fake.of(connection.connectionId);
    expect(steps).toHaveLength(3);
    expect(steps.map((step) => step.stage)).toEqual(['historical', 'historical', 'historical']);
    expect(steps.map((step) => step.finalChunk)).toEqual([false, false, true]);
    for (let i = 1; i < steps.length; i++) expect(steps[i].from).toBe(steps[i - 1].to);
    expect(steps[2].to - steps[0].from).toBe(3 * DAY_MS);
    expect(steps.every((step) => step.backfill?.from === steps[0].from && step.backfill?.to === steps[2].to)).toBe(true);

    // A refresh syncs at once, from where the backfill ended.
    await handle.signal(refreshConnection);
    await waitFor(() => (fake.of(connection.connectionId).length === 4 ? true : undefined), 'the refresh sync');
    const refresh = fake.of(connection.connectionId)[3];
    expect(refresh).toMatchObject({ stage: 'daily', from: steps[2].to, finalChunk: false });
    expect(refresh.to).toBeGreaterThanOrEqual(refresh.from);

    await handle.signal(deregisterConnection);
    expect(await handle.result()).toBe('deregistered');
    expect(fake.ended).toEqual([connection.connectionId]);
    fixtures['connection--backfill-refresh-deregister'] = handle.workflowId;
  });

  test('a sync step longer than its heartbeat timeout is not run again while its worker is alive (it heartbeats)', async () => {
    const { connection, handle } = await start({ backfillDays: 1, syncHeartbeatTimeout: '600ms' }, (id) => fake.slowFirstSync.set(id, 2_500));
    await waitFor(async () => ((await handle.query(connectionState)).phase === 'connected' ? true : undefined), 'the backfill to finish');
    // One backfill step, tried once: without heartbeats Temporal would have timed it out and run it again.
    expect(fake.of(connection.connectionId)).toHaveLength(1);
    await handle.signal(deregisterConnection);
    expect(await handle.result()).toBe('deregistered');
  });

  test('syncs on its timer and continues as new after syncsPerRun, keeping where it was', async () => {
    const { connection, handle } = await start({ backfillDays: 1, syncInterval: '300ms', syncsPerRun: 2 });
    const firstRunId = (await handle.describe()).runId;
    await waitFor(() => (fake.of(connection.connectionId).length >= 6 ? true : undefined), 'six syncs over several runs', 60_000);
    const syncs = fake.of(connection.connectionId).slice(0, 6);
    // Each incremental sync starts where the one before ended: no gap, no overlap across runs.
    for (let i = 2; i < syncs.length; i++) expect(syncs[i].from).toBe(syncs[i - 1].to);
    const history = await harness.client.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
    const last = history.events?.at(-1);
    expect(last?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    const state = await harness.client.workflow.getHandle(handle.workflowId).query(connectionState);
    expect(state.progress.syncs).toBeGreaterThanOrEqual(2);
    expect(fake.announced.filter((id) => id === connection.connectionId)).toHaveLength(1);
    fixtures['connection--continued-as-new'] = { workflowId: handle.workflowId, runId: firstRunId };
    await harness.client.workflow.getHandle(handle.workflowId).signal(deregisterConnection);
    expect(await harness.client.workflow.getHandle(handle.workflowId).result()).toBe('deregistered');
  });

  test('a paused step (user pending deletion) is tried again with the same window', async () => {
    const { connection, handle } = await start({ backfillDays: 2, syncInterval: '200ms' }, (id) => fake.script.set(id, ['synced', 'paused', 'paused']));
    await waitFor(async () => ((await handle.query(connectionState)).phase === 'connected' ? true : undefined), 'the backfill to finish');
    const steps = fake.of(connection.connectionId).slice(0, 4);
    expect(steps.map((step) => [step.from, step.to])).toEqual([
      [steps[0].from, steps[0].to],
      [steps[0].to, steps[1].to],
      [steps[0].to, steps[1].to],
      [steps[0].to, steps[1].to],
    ]);
    expect(steps[3].finalChunk).toBe(true);
    await handle.signal(deregisterConnection);
    expect(await handle.result()).toBe('deregistered');
    fixtures['connection--paused'] = handle.workflowId;
  });

  test('a step the source refuses (connection error) shows as error and is tried again with the same window, in backfill and after', async () => {
    // After the 5th sync (which covers the refused window) every sync is paused: the window and
    // syncedUntil stay as the 5th left them, however late the test looks.
    const { connection, handle } = await start({ backfillDays: 2, syncInterval: '1s' }, (id) =>
      fake.script.set(id, ['synced', 'error', 'synced', 'error', 'synced', ...Array<'paused'>(100).fill('paused')]),
    );
    await waitFor(async () => ((await handle.query(connectionState)).phase === 'error' ? true : undefined), 'the backfill step refused');
    await waitFor(() => (fake.of(connection.connectionId).length >= 5 ? true : undefined), 'five syncs', 30_000);
    const steps = fake.of(connection.connectionId).slice(0, 5);
    // The refused backfill step is repeated as it was, and the backfill goes on from there.
    expect(steps.slice(0, 3).map((step) => [step.stage, step.from, step.to, step.finalChunk])).toEqual([
      ['historical', steps[0].from, steps[0].to, false],
      ['historical', steps[0].to, steps[1].to, true],
      ['historical', steps[0].to, steps[1].to, true],
    ]);
    // The refused incremental sync keeps its window's start: the next one covers it.
    expect(steps[3]).toMatchObject({ stage: 'daily', from: steps[2].to });
    expect(steps[4]).toMatchObject({ stage: 'daily', from: steps[2].to });
    expect(steps[4].to).toBeGreaterThan(steps[3].to);
    const connected = await waitFor(async () => {
      const state = await handle.query(connectionState);
      return state.phase === 'connected' ? state : undefined;
    }, 'connected again');
    expect(connected.progress.syncedUntil).toBe(steps[4].to);
    await handle.signal(deregisterConnection);
    expect(await handle.result()).toBe('deregistered');
    fixtures['connection--source-error'] = handle.workflowId;
  });

  test('ends as gone when the connection or user disappears, without removing anything', async () => {
    const { connection, handle } = await start({}, (id) => fake.script.set(id, ['synced', 'gone']));
    expect(await handle.result()).toBe('gone');
    expect(fake.of(connection.connectionId)).toHaveLength(2);
    expect(fake.ended).not.toContain(connection.connectionId);
    fixtures['connection--gone'] = handle.workflowId;

    const never = await start({}, (id) => fake.gone.add(id));
    expect(await never.handle.result()).toBe('gone');
    expect(fake.of(never.connection.connectionId)).toHaveLength(0);
  });
});
