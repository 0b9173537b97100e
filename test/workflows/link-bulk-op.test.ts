import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { createLinkBulkOpActivities, type LinkBulkOpRunner } from '../../activities/link-bulk-ops';
import { type LinkBulkOpIdentity, type LinkBulkOpPace, type LinkBulkOpStatus, linkBulkOpWorkflowId } from '../../workflows/contract';
import { startWorkflowHarness, type WorkflowHarness, writeFixtureHistories } from '../helpers/workflow-harness';

const EventType = temporal.api.enums.v1.EventType;

/** The operations as the activities see them: each op's users as a count, steps recorded; a step may be told to fail once. */
class FakeRunner implements LinkBulkOpRunner {
  readonly users = new Map<string, number>();
  readonly processed = new Map<string, number>();
  readonly steps = new Map<string, number[]>();
  readonly closed: string[] = [];
  readonly aborted = new Set<string>();
  readonly opened: string[] = [];
  failOnce = new Set<string>();
  /** An op whose first step takes this long (ms). */
  slowFirstStep = new Map<string, number>();
  /** Times runStep was called per op (each try of a step counts). */
  readonly calls = new Map<string, number>();

  async open(op: LinkBulkOpIdentity): Promise<'open' | 'aborted'> {
    this.opened.push(op.opId);
    return this.users.has(op.opId) ? 'open' : (this.aborted.add(op.opId), 'aborted');
  }

  async runStep(opId: string, limit: number): Promise<{ remaining: number }> {
    this.calls.set(opId, (this.calls.get(opId) ?? 0) + 1);
    const total = this.users.get(opId) ?? 0;
    const done = this.processed.get(opId) ?? 0;
    const slow = this.slowFirstStep.get(opId);
    if (slow !== undefined) {
      this.slowFirstStep.delete(opId);
      await new Promise((resolve) => setTimeout(resolve, slow));
    }
    const now = Math.min(total, done + limit);
    // Like the real step: users committed one by one, then (here) the step fails once before answering.
    this.processed.set(opId, now);
    this.steps.set(opId, [...(this.steps.get(opId) ?? []), now - done]);
    if (this.failOnce.delete(opId)) throw new Error('worker lost mid-step');
    return { remaining: total - now };
  }

  async close(opId: string): Promise<LinkBulkOpStatus> {
    this.closed.push(opId);
    return 'success';
  }

  readonly activities = createLinkBulkOpActivities(this);
}

/**
 * The Link Migration operation workflow on the real dev server with a fake runner behind the real
 * activities: an import in steps without pauses, a historical pull paced by timers, a step that
 * fails and is retried without redoing its users, continue-as-new, and an operation whose row
 * never committed.
 */
describe('link bulk op workflow', () => {
  let harness: WorkflowHarness<FakeRunner>;
  let fake: FakeRunner;
  const fixtures: Record<string, string | { workflowId: string; runId: string }> = {};

  beforeAll(async () => {
    fake = new FakeRunner();
    harness = await startWorkflowHarness(fake);
  });
  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness?.close();
  });

  const start = (users: number | null, pace: LinkBulkOpPace, type: LinkBulkOpIdentity['type'] = 'link_bulk_import') => {
    const op: LinkBulkOpIdentity = { opId: randomUUID(), teamId: randomUUID(), environment: 'production', region: 'us', type, provider: 'oura' };
    if (users !== null) fake.users.set(op.opId, users);
    return {
      op,
      handle: harness.client.workflow.start('linkBulkOpWorkflow', {
        workflowId: linkBulkOpWorkflowId(op.opId),
        taskQueue: harness.taskQueue,
        args: [{ op, pace }],
      }),
    };
  };

  const timersOf = async (workflowId: string) => {
    const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).filter((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED).length;
  };

  test('an import runs its users in steps of batchSize, without pauses, then ends success', async () => {
    const { op, handle } = start(5, { batchSize: 2, stepTimeout: '10s' });
    expect(await (await handle).result()).toBe('success');
    expect(fake.steps.get(op.opId)).toEqual([2, 2, 1]);
    expect(fake.closed).toContain(op.opId);
    expect(await timersOf((await handle).workflowId)).toBe(0);
    fixtures['link-bulk-op--import'] = (await handle).workflowId;
  });

  test("a historical pull waits batchInterval between steps (the provider's rate limit)", async () => {
    const { op, handle } = start(3, { batchSize: 1, batchInterval: '50ms', stepTimeout: '10s' }, 'link_bulk_historical_trigger');
    expect(await (await handle).result()).toBe('success');
    expect(fake.steps.get(op.opId)).toEqual([1, 1, 1]);
    expect(await timersOf((await handle).workflowId)).toBe(2);
    fixtures['link-bulk-op--paced-pull'] = (await handle).workflowId;
  });

  test('a step that fails is run again and goes on from the users it had committed', async () => {
    const { op, handle } = start(3, { batchSize: 2, stepTimeout: '10s' });
    fake.failOnce.add(op.opId);
    expect(await (await handle).result()).toBe('success');
    // The first try committed two users and failed; its retry found one left.
    expect(fake.steps.get(op.opId)).toEqual([2, 1]);
    expect(fake.processed.get(op.opId)).toBe(3);
  });

  test('a step longer than its heartbeat timeout is not given up on while its worker is alive (it heartbeats)', async () => {
    const { op, handle } = start(3, { batchSize: 3, stepTimeout: '30s', heartbeatTimeout: '600ms' });
    fake.slowFirstStep.set(op.opId, 2_500);
    expect(await (await handle).result()).toBe('success');
    // One step, tried once: without heartbeats Temporal would have timed it out and tried it again.
    expect(fake.calls.get(op.opId)).toBe(1);
    expect(fake.steps.get(op.opId)).toEqual([3]);
    const history = await (await handle).fetchHistory();
    const scheduled = (history.events ?? []).filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual([
      'openLinkBulkOp',
      'runLinkBulkOpStep',
      'closeLinkBulkOp',
    ]);
  });

  test('continues as new after stepsPerRun steps without opening the operation again', async () => {
    const { op, handle } = start(5, { batchSize: 1, stepTimeout: '10s', stepsPerRun: 2 });
    const started = await handle;
    expect(await started.result()).toBe('success');
    expect(fake.steps.get(op.opId)).toEqual([1, 1, 1, 1, 1]);
    const firstRun = await harness.client.workflow.getHandle(started.workflowId, started.firstExecutionRunId).fetchHistory();
    expect(firstRun.events?.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    expect(fake.opened.filter((id) => id === op.opId)).toHaveLength(1);
    fixtures['link-bulk-op--continued-as-new'] = { workflowId: started.workflowId, runId: started.firstExecutionRunId };
  });

  test('an operation whose row never committed ends aborted without a step', async () => {
    const { op, handle } = start(null, { batchSize: 2, stepTimeout: '10s' });
    expect(await (await handle).result()).toBe('aborted');
    expect(fake.aborted.has(op.opId)).toBe(true);
    expect(fake.steps.has(op.opId)).toBe(false);
    fixtures['link-bulk-op--aborted'] = (await handle).workflowId;
  });
});
