import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { createEventActivities } from '../../activities/events';
import { eventIdFor } from '../../src/events/event-id';
import { OutboxService } from '../../src/events/outbox.service';
import { labflowDataConverter } from '../../src/temporal/payload-codec';
import type { NewEvent } from '../../workflows/contract';
import { createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { emitEventsWorkflow } from './events-emitter.workflow';

/**
 * emitEvents against the real dev server: the activity commits its events, then "crashes" before
 * reporting success; Temporal retries it, and the outbox ends up with each event exactly once.
 */
const EventType = temporal.api.enums.v1.EventType;

let stack: TestStack;
let tenant: Tenant;
let worker: Worker;
let connection: NativeConnection;
let running: Promise<void>;
const taskQueue = `events-wf-${randomUUID()}`;
/** Inputs whose first attempt already failed (after committing). */
const crashed = new Set<string>();

beforeAll(async () => {
  stack = await startStack({ worker: false });
  const outbox = stack.api.get(OutboxService);
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./events-emitter.workflow'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as never,
  });
  connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  worker = await Worker.create({
    connection,
    namespace: stack.config.temporal.namespace,
    taskQueue,
    workflowBundle: { code },
    dataConverter: labflowDataConverter(stack.config),
    activities: createEventActivities({
      async emit(events: NewEvent[]) {
        const ids = await outbox.emit(events);
        const key = JSON.stringify(events.map((event) => event.data));
        if (!crashed.has(key)) {
          crashed.add(key);
          throw new Error('worker crashed after the commit, before reporting success');
        }
        return ids;
      },
    }),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await stack?.close();
});

beforeEach(async () => {
  tenant = await createTenant(stack.db);
});

function events(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, seq) => ({
    eventType: 'labtest.result.critical' as const,
    teamId: tenant.teamId,
    environment: 'sandbox' as const,
    userId: randomUUID(),
    clientUserId: `c-${seq}`,
    data: { order_id: randomUUID(), seq },
  }));
}

async function activityAttempts(workflowId: string): Promise<number[]> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => event.activityTaskStartedEventAttributes?.attempt ?? 0);
}

const outboxRows = () =>
  stack.db.query(`SELECT id FROM event_outbox WHERE team_id = $1 ORDER BY created_at`, [tenant.teamId]) as Promise<Array<{ id: string }>>;

test('keyed by workflow id and step: the retried activity adds no rows, and the ids are derivable', async () => {
  const workflowId = `events-test:${randomUUID()}`;
  const ids = await stack.temporal.workflow.execute(emitEventsWorkflow, {
    taskQueue,
    workflowId,
    args: [{ events: events(3), keyed: true }],
  });
  expect(await activityAttempts(workflowId)).toEqual([2]);
  expect(ids).toEqual([0, 1, 2].map((index) => eventIdFor(`${workflowId}:results-received:${index}`)));
  expect((await outboxRows()).map((row) => row.id)).toEqual(ids);
});

test('without a key: the activity derives one that its retry keeps', async () => {
  const workflowId = `events-test:${randomUUID()}`;
  const ids = await stack.temporal.workflow.execute(emitEventsWorkflow, {
    taskQueue,
    workflowId,
    args: [{ events: events(2), keyed: false }],
  });
  expect(await activityAttempts(workflowId)).toEqual([2]);
  expect(new Set(ids).size).toBe(2);
  expect((await outboxRows()).map((row) => row.id)).toEqual(ids);
});
