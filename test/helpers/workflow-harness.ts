import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import {
  type AppointmentChange,
  type AppointmentRecord,
  type CreateAppointmentInput,
  type OrderWorkflowInput,
  orderWorkflowId,
  type RecordOrderTransitionInput,
  SLOT_TAKEN,
} from '../../workflows/contract';
import type { OrderFlow } from '../../workflows/order/order-statuses';
import { eventually } from './eventually';
import { tracingWorkflowSinks } from '../../src/temporal/tracing';

/**
 * The workflow tier: labflow's real workflow code on the real Temporal dev server, with typed
 * fake activities in this process instead of Postgres, Redis and the API. A test can hold the
 * transition activity back (a latch) to make messages arrive while a transition is in flight,
 * and make the provider refuse bookings.
 */
export class FakeActivities {
  /** Every transition the workflows asked to record, once per (order, seq). */
  readonly transitions = new Map<string, RecordOrderTransitionInput[]>();
  readonly bookings: CreateAppointmentInput[] = [];
  /** Bookings still to refuse as if another order took the slot first. */
  refuseBookings = 0;
  /** Lab corrections the workflows applied to stored results (correctLabResults). */
  readonly corrections: Array<{ orderId: string; reportId: string }> = [];
  /** Runs inside collectResults, before it answers (a test's message arriving while results are collected). */
  onCollectResults: ((orderId: string) => Promise<void>) | null = null;
  private held: { matches: (input: RecordOrderTransitionInput) => boolean; waiting: Array<() => void>; released: Promise<void>; release: () => void } | null =
    null;

  /** Holds every transition `matches` selects until the returned function is called. */
  hold(matches: (input: RecordOrderTransitionInput) => boolean = () => true): () => void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = { matches, waiting: [] as Array<() => void>, released, release };
    this.held = held;
    return () => {
      if (this.held === held) this.held = null;
      held.release();
    };
  }

  /** How many transitions are waiting on the latch now. */
  heldCount(): number {
    return this.held?.waiting.length ?? 0;
  }

  statuses(orderId: string): string[] {
    return (this.transitions.get(orderId) ?? []).map((input) => input.status.split('.')[2]);
  }

  readonly activities = {
    recordOrderTransition: async (input: RecordOrderTransitionInput) => {
      const held = this.held;
      if (held && held.matches(input)) {
        await new Promise<void>((resolve) => {
          held.waiting.push(resolve);
          void held.released.then(resolve);
        });
      }
      const recorded = this.transitions.get(input.orderId) ?? [];
      // Idempotent per (order, seq), as the real activity is.
      const first = !recorded.some((existing) => existing.seq === input.seq);
      if (first) recorded.push(input);
      this.transitions.set(input.orderId, recorded);
      return { eventId: input.seq, recorded: first };
    },
    createRequisition: async () => ({ requisitionFormUrl: null }),
    cancelLabOrder: async () => ({}),
    shipKit: async () => ({ outboundTrackingNumber: 'LFO000000000000000001' }),
    collectResults: async ({ orderId }: { orderId: string }) => {
      await this.onCollectResults?.(orderId);
      return { interpretation: 'normal' as const, hasMissingResults: false };
    },
    correctLabResults: async (input: { orderId: string; reportId: string }) => {
      this.corrections.push(input);
      return { outcome: 'corrected' as const };
    },
    createAppointment: async (input: CreateAppointmentInput): Promise<AppointmentRecord> => {
      if (!this.bookings.some((booking) => booking.appointmentId === input.appointmentId)) {
        if (this.refuseBookings > 0) {
          this.refuseBookings -= 1;
          throw ApplicationFailure.nonRetryable('This slot is no longer available: it was booked by someone else. Fetch availability again.', SLOT_TAKEN);
        }
        this.bookings.push(input);
      }
      const start = '2030-01-07T15:00:00.000Z';
      return { status: input.asyncConfirmation ? 'pending' : 'confirmed', startAt: start, endAt: '2030-01-07T15:30:00.000Z' };
    },
    changeAppointment: async (input: { appointmentId: string; changeId: string; change: AppointmentChange }): Promise<AppointmentRecord> => {
      const change = input.change;
      const times = { startAt: '2030-01-07T15:00:00.000Z', endAt: '2030-01-07T15:30:00.000Z' };
      switch (change.type) {
        case 'reschedule':
          return { status: change.asyncConfirmation ? 'pending' : 'confirmed', startAt: change.slot.start, endAt: change.slot.end };
        case 'cancel':
          return { status: 'cancelled', ...times };
        case 'draw_completed':
          return { status: 'completed', ...times };
        case 'provider_status':
          return { status: change.status, ...times };
      }
    },
  };
}

export interface WorkflowHarness<F extends { activities: object } = FakeActivities> {
  client: Client;
  taskQueue: string;
  fakes: F;
  close(): Promise<void>;
}

/** A worker on a task queue of its own, running the bundled workflows with `fakes`. */
export async function startWorkflowHarness<F extends { activities: object } = FakeActivities>(
  fakes: F = new FakeActivities() as unknown as F,
): Promise<WorkflowHarness<F>> {
  const address = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'labflow-test';
  const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run through jest (global setup).');
  const taskQueue = `wf-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    workflowBundle: { codePath },
    activities: fakes.activities,
    // The bundle's tracing interceptors report to this sink (a no-op with tracing off).
    sinks: tracingWorkflowSinks(),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  return {
    client,
    taskQueue,
    fakes,
    async close() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    },
  };
}

/** The input the API gives a new order's workflow. */
export function orderInput(flow: OrderFlow, environment: 'sandbox' | 'production', overrides: Partial<OrderWorkflowInput> = {}): OrderWorkflowInput {
  const timers = { registrationWindow: '1 day', sampleToLabWindow: '1 day', sandboxStepDelay: '50 ms' } as OrderWorkflowInput['timers'];
  return {
    orderId: randomUUID(),
    teamId: randomUUID(),
    environment,
    flow,
    seq: flow === 'registrable_testkit' ? 2 : 1,
    low: flow === 'registrable_testkit' ? 'awaiting_registration' : 'ordered',
    activateBy: null,
    timers,
    appointmentTimers: { sandboxStepDelay: '50 ms', noShowGrace: '1 day' } as OrderWorkflowInput['appointmentTimers'],
    ...overrides,
  };
}

export async function startOrder(harness: WorkflowHarness, input: OrderWorkflowInput) {
  return harness.client.workflow.start('orderWorkflow', { workflowId: orderWorkflowId(input.orderId), taskQueue: harness.taskQueue, args: [input] });
}

/** `eventually` polling every 50 ms: workflow-tier steps are quick. */
export const waitFor = <T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> =>
  eventually(probe, what, timeoutMs, 50);

/**
 * With WORKFLOW_FIXTURES=1, writes the history of each named workflow (name → workflow id, or one run) to
 * test/fixtures/histories/<name>.json, for the replay tier.
 */
export async function writeFixtureHistories(client: Client, fixtures: Record<string, string | { workflowId: string; runId: string }>): Promise<void> {
  if (process.env.WORKFLOW_FIXTURES !== '1') return;
  const { historyToJSON } = await import('@temporalio/common/lib/proto-utils');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  for (const [name, execution] of Object.entries(fixtures)) {
    // A workflow id is its latest run; a run of a workflow that continued as new is named by its runId.
    const history =
      typeof execution === 'string'
        ? await client.workflow.getHandle(execution).fetchHistory()
        : await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    writeFileSync(join(__dirname, '..', 'fixtures', 'histories', `${name}.json`), `${historyToJSON(history)}\n`);
  }
}
