import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowExecutionDescription, WorkflowNotFoundError } from '@temporalio/client';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { orderState } from '../../workflows/contract';
import { isTerminal } from '../../workflows/order/order-lifecycle';
import type { OrderEntity } from './order.entities';
import { OrderWorkflows } from './order-workflows';
import { type OrderScanPosition, OrderScanRepository } from './order-scan.repository';
import { OrdersRepository } from './orders.repository';
import { type StrandedFinding, StrandedOrdersRepository } from './stranded-orders.repository';
import { PeriodicPass } from '../common/periodic-pass';

/** What one pass did (tests and logs). */
export interface ReconcilePass {
  /** Workflows started for orders whose start was never confirmed. */
  started: number;
  /** New runs started for orders whose workflow closed or vanished. */
  healed: number;
  /** Findings left to a human (stalled, heal limit reached, restart failed). */
  raised: number;
  /** Stranded rows closed because their order is fine again or has ended. */
  resolved: number;
  /** True when another worker held the reconciler's lock, so this pass did nothing. */
  skipped: boolean;
}

/** What a look at one order's workflow concluded. */
type Verdict =
  | { verdict: 'fine' }
  /** Not this pass's to judge (too recent, another task queue's first), or suspect and watched. */
  | { verdict: 'wait' }
  | { verdict: 'closed' | 'missing' | 'stalled'; detail: string };

/**
 * A sign that a running workflow makes no progress while work is due. `key` names what is stuck
 * (the same key on a later pass means it is still stuck); `attempt` its attempt count, which must
 * keep rising for a failing task to count as failing attempt after attempt (0: not an attempt).
 */
interface StallSign {
  key: string;
  attempt: number;
  detail: string;
}

/** The first sighting of a stall sign of an order, kept between passes. */
interface Suspect extends StallSign {
  since: number;
  checkedAt: number;
}

/** How long the orderState query may take: a workflow whose worker is busy or gone answers nothing. */
const QUERY_TIMEOUT_MS = 5_000;
/** Orders examined at once within a batch (each look is a few Temporal calls). */
const CONCURRENCY = 8;

/**
 * Runs in the worker process, one pass every RECONCILER_INTERVAL, so that no order is stranded:
 *
 * 1. starts the workflow of each order whose start is not confirmed RECONCILER_GRACE after its
 *    creation (the API crashed, or Temporal was down, between the commit and the start);
 * 2. examines the next RECONCILER_BATCH orders that have not ended (a cursor carries over
 *    between passes, so each is examined once per cycle): a workflow that closed (failed,
 *    terminated, timed out, cancelled, even completed) or is missing while its order has not
 *    ended gets a new run (OrderWorkflows.restart), at most RECONCILER_MAX_HEALS per order; a
 *    running workflow with work due and no progress for RECONCILER_STALL_HORIZON is stalled;
 * 3. records every finding in `stranded_orders`; what it did not heal (stalled, heal limit
 *    reached, restart failed) is raised: an error log line, a row the management API lists and the
 *    labflow_stranded_orders gauge counts. Rows are resolved once the order is fine or has ended.
 *
 * Every worker runs it, but a pass holds a PostgreSQL session lock (OrderScanRepository.exclusively),
 * so with several workers one reconciles at a time and no order is examined, healed or raised
 * twice over; a worker that dies mid-pass loses the lock with its connection. (Even without it a
 * restart is refused while a run is open, so two passes could never start two runs.) A reconciler judges closed workflows of its own task queue at once;
 * those of another queue (an earlier deployment's, a test file's own stack) only once they have
 * been closed for RECONCILER_STALL_HORIZON, giving that queue's reconciler the first go. It
 * queries only workflows of its own queue, whose worker runs beside it.
 */
@Injectable()
export class OrderReconciler implements OnModuleDestroy {
  private readonly logger = new Logger('orders');
  private readonly periodic = new PeriodicPass(() => this.reconcile());
  /** Where the scan of non-terminal orders resumes (null: from the first). */
  private cursor: OrderScanPosition | null = null;
  private cycleStartedAt = 0;
  /**
   * Running workflows showing a stall sign, by order id, until they make progress or stall. In
   * memory: a restarted worker watches them again from scratch, which only delays a finding.
   */
  private readonly suspects = new Map<string, Suspect>();

  constructor(
    private readonly orders: OrdersRepository,
    private readonly scan: OrderScanRepository,
    private readonly stranded: StrandedOrdersRepository,
    private readonly workflows: OrderWorkflows,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  start(): void {
    this.periodic.start(this.config.reconciler.intervalMs);
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /**
   * One pass, unless another worker's pass holds the lock (then `skipped`). Never throws: a
   * failing part is logged and the next pass tries again.
   */
  async reconcile(): Promise<ReconcilePass> {
    const pass: ReconcilePass = { started: 0, healed: 0, raised: 0, resolved: 0, skipped: false };
    await this.part('pass', async () => {
      const locked = await this.scan.exclusively(async () => {
        await this.part('start of unstarted workflows', () => this.startUnstarted(pass));
        await this.part('scan of non-terminal orders', () => this.scanBatch(pass));
        await this.part('resolution of ended orders', async () => {
          pass.resolved += await this.stranded.resolveEnded();
        });
      });
      pass.skipped = !locked.ran;
    });
    return pass;
  }

  private async part(name: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.logger.warn(`reconciler: ${name} failed: ${(error as Error).message}`);
    }
  }

  private async startUnstarted(pass: ReconcilePass): Promise<void> {
    const unstarted = await this.scan.unstarted(new Date(Date.now() - this.config.reconciler.graceMs), 100);
    for (const order of unstarted) {
      try {
        await this.workflows.start(order);
        pass.started += 1;
      } catch (error) {
        this.logger.warn(`reconciler: order ${order.id} not started: ${(error as Error).message}`);
      }
    }
  }

  /** Examines the next batch of non-terminal orders and acts on what it finds. */
  private async scanBatch(pass: ReconcilePass): Promise<void> {
    const now = Date.now();
    if (this.cursor === null) this.cycleStartedAt = now;
    const { orders, next } = await this.scan.nonTerminalPage(this.cursor, this.config.reconciler.batch);
    this.cursor = next;
    const fine: string[] = [];
    const failures: string[] = [];
    for (let index = 0; index < orders.length; index += CONCURRENCY) {
      await Promise.all(
        orders.slice(index, index + CONCURRENCY).map(async (order) => {
          try {
            const verdict = await this.examine(order);
            if (verdict.verdict === 'fine') fine.push(order.id);
            else if (verdict.verdict === 'stalled') await this.raise(pass, findingOf(order, 'stalled', verdict.detail));
            else if (verdict.verdict !== 'wait') await this.heal(pass, order, findingOf(order, verdict.verdict, verdict.detail));
          } catch (error) {
            failures.push(`${order.id}: ${(error as Error).message}`);
          }
        }),
      );
    }
    pass.resolved += await this.stranded.resolve(fine);
    if (failures.length > 0) this.logger.warn(`reconciler: ${failures.length} order(s) not examined this pass, e.g. ${failures[0]}`);
    if (next === null) {
      // A cycle is over: forget suspects not seen in it (their orders ended).
      for (const [orderId, suspect] of this.suspects) if (suspect.checkedAt < this.cycleStartedAt) this.suspects.delete(orderId);
    }
  }

  private async examine(order: OrderEntity): Promise<Verdict> {
    // Not started yet: startUnstarted's to start.
    if (!order.workflowStartedAt) return { verdict: 'wait' };
    const graceMs = this.config.reconciler.graceMs;
    let description: WorkflowExecutionDescription;
    try {
      description = await this.workflows.handle(order.id).describe();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      if (Date.now() - order.workflowStartedAt.getTime() < graceMs) return { verdict: 'wait' };
      return { verdict: 'missing', detail: `workflow not found in Temporal (its start was recorded at ${order.workflowStartedAt.toISOString()})` };
    }
    const ownQueue = description.taskQueue === this.config.temporal.taskQueue;
    if (description.status.name !== 'RUNNING') {
      this.suspects.delete(order.id);
      const closedAt = description.closeTime ?? new Date(0);
      // Another queue's reconciler (another deployment's, a test file's) has one horizon to act first.
      if (!ownQueue && Date.now() - closedAt.getTime() < this.config.reconciler.stallHorizonMs) return { verdict: 'wait' };
      return {
        verdict: 'closed',
        detail: `workflow run ${description.runId} ${description.status.name} at ${closedAt.toISOString()} (task queue ${description.taskQueue}) while the order is ${order.lowLevelStatus}`,
      };
    }
    const sign = await this.stallSign(order, description, ownQueue);
    return this.judge(order.id, sign);
  }

  /** The first stall sign of a running order workflow (or of its running children), if any. */
  private async stallSign(order: OrderEntity, description: WorkflowExecutionDescription, ownQueue: boolean): Promise<StallSign | null> {
    const failing = failingTask(description, '');
    if (failing) return failing;
    for (const child of description.raw.pendingChildren ?? []) {
      if (!child.workflowId) continue;
      try {
        const childFailing = failingTask(await this.temporal.workflow.getHandle(child.workflowId).describe(), `child ${child.workflowId}: `);
        if (childFailing) return childFailing;
      } catch (error) {
        // A child that closed meanwhile is its parent's business.
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }
    // Only this worker's queue: a query to a workflow nobody polls for would just time out.
    if (!ownQueue) return null;
    let state;
    try {
      state = await this.temporal.connection.withDeadline(Date.now() + QUERY_TIMEOUT_MS, () => this.workflows.handle(order.id).query(orderState));
    } catch {
      // No answer (the worker is busy, restarting or gone) is no finding.
      return null;
    }
    const pending = state.pending;
    if (!pending || pending.transitionInFlight || pending.facts + pending.appointmentReports === 0) return null;
    return {
      // The same seq on a later pass: no transition was recorded in between.
      key: `pending:${state.seq}`,
      attempt: 0,
      detail: `${pending.facts} fact(s) and ${pending.appointmentReports} appointment report(s) waiting with no transition in flight at seq ${state.seq} (${state.low})`,
    };
  }

  /**
   * A sign seen on two passes at least RECONCILER_STALL_HORIZON apart (with its attempts still
   * rising, for a failing task) is a stall; a first sighting is watched; no sign is fine.
   */
  private judge(orderId: string, sign: StallSign | null): Verdict {
    if (!sign) {
      this.suspects.delete(orderId);
      return { verdict: 'fine' };
    }
    const now = Date.now();
    const suspect = this.suspects.get(orderId);
    if (!suspect || suspect.key !== sign.key) {
      this.suspects.set(orderId, { ...sign, since: now, checkedAt: now });
      return { verdict: 'wait' };
    }
    suspect.checkedAt = now;
    const keptFailing = sign.attempt === 0 || sign.attempt > suspect.attempt;
    if (now - suspect.since < this.config.reconciler.stallHorizonMs || !keptFailing) return { verdict: 'wait' };
    return { verdict: 'stalled', detail: `${sign.detail}; no progress since ${new Date(suspect.since).toISOString()}` };
  }

  /** A closed or missing workflow of an order that has not ended: a new run, unless the limit is reached. */
  private async heal(pass: ReconcilePass, order: OrderEntity, finding: StrandedFinding): Promise<void> {
    // Read again after the workflow was seen closed: a workflow records the order's final status
    // before it completes, so an order that just ended shows it now (and needs nothing).
    const current = await this.orders.findById(order.id);
    if (!current || isTerminal(current.lowLevelStatus)) return;
    const max = this.config.reconciler.maxHeals;
    const attempts = await this.stranded.healAttempts(order.id);
    if (attempts >= max) {
      await this.raise(pass, {
        ...finding,
        detail: `${finding.detail}; not restarted: the heal limit is reached (${attempts} of RECONCILER_MAX_HEALS=${max} new runs started)`,
      });
      return;
    }
    try {
      const { runId } = await this.workflows.restart(current);
      await this.stranded.recordHealed({ ...finding, detail: `${finding.detail}; new run ${runId} started (heal ${attempts + 1} of ${max})` });
      pass.healed += 1;
      this.logger.warn(
        `reconciler healed order ${order.id} (team ${order.teamId}): ${finding.kind}: ${finding.detail}; new run ${runId} (heal ${attempts + 1} of ${max})`,
      );
    } catch (error) {
      // Another reconciler started a run just now: healed already.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return;
      await this.raise(pass, { ...finding, detail: `${finding.detail}; restart failed: ${(error as Error).message}` });
    }
  }

  private async raise(pass: ReconcilePass, finding: StrandedFinding): Promise<void> {
    await this.stranded.recordRaised(finding);
    pass.raised += 1;
    this.logger.error(`stranded order ${finding.orderId} (team ${finding.teamId}): ${finding.kind}: ${finding.detail}`);
  }
}

function findingOf(order: OrderEntity, kind: StrandedFinding['kind'], detail: string): StrandedFinding {
  return { orderId: order.id, teamId: order.teamId, environment: order.environment, kind, detail };
}

/** A workflow task or an activity of this workflow failing (attempt > 1), if any. */
function failingTask(description: WorkflowExecutionDescription, prefix: string): StallSign | null {
  const task = description.raw.pendingWorkflowTask;
  if (task && (task.attempt ?? 1) > 1) {
    return {
      key: `${prefix}workflow_task`,
      attempt: task.attempt ?? 1,
      detail: `${prefix}workflow task failing (attempt ${task.attempt}): a bug or non-determinism in the workflow code`,
    };
  }
  for (const activity of description.raw.pendingActivities ?? []) {
    if ((activity.attempt ?? 1) > 1 && activity.lastFailure) {
      return {
        key: `${prefix}activity:${activity.activityId}`,
        attempt: activity.attempt ?? 1,
        detail: `${prefix}activity ${activity.activityType?.name ?? '?'} (${activity.activityId}) failing (attempt ${activity.attempt}): ${activity.lastFailure.message ?? ''}`,
      };
    }
  }
  return null;
}
