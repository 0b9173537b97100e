import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { WorkflowExecutionAlreadyStartedError, type WorkflowExecutionDescription, WorkflowNotFoundError } from '@temporalio/client';
import type { ConnectionIdentity } from '../../workflows/contract';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { UsersRepository } from '../users/users.repository';
import { ConnectionWorkflows } from './connection-workflows';
import { type ConnectionRow, ConnectionsRepository } from './connections.repository';
import { PeriodicPass } from '../common/periodic-pass';

/** What one pass did (tests and logs). */
export interface ConnectionReconcilePass {
  /** Connections whose workflow was looked at. */
  examined: number;
  /** New runs started for connections whose workflow closed or vanished. */
  healed: number;
  /** Connections left for a later pass (too recent, their user pending deletion, another queue's first). */
  waiting: number;
  /** Connections that could not be examined or restarted (logged; the next cycle tries again). */
  failed: number;
  /** True when another worker held the reconciler's lock, so this pass did nothing. */
  skipped: boolean;
}

type Verdict = { verdict: 'fine' | 'wait' } | { verdict: 'heal'; detail: string };

/** Closed states that are never a connection's normal end (that is COMPLETED after a deregistration or erasure). */
const ABNORMAL_ENDS = new Set(['TERMINATED', 'FAILED', 'TIMED_OUT', 'CANCELLED']);
/** Connections examined at once within a batch (each look is one or two Temporal calls). */
const CONCURRENCY = 8;

/**
 * Runs in the worker process, one pass every RECONCILER_INTERVAL (beside OrderReconciler), so
 * that no connection silently stops syncing. A connection lives as long as its row in
 * `provider_connections`; its workflow `connection:<user_id>:<provider>` ends normally only when
 * the row goes (deregistration: the API signals, then deletes it; erasure: the row goes with its
 * user). Each pass examines the next RECONCILER_BATCH rows (a cursor carries over between passes,
 * so each is examined once per cycle) and starts a new run (ConnectionWorkflows.restart, the
 * API's input) for a row older than RECONCILER_GRACE whose workflow:
 *
 * - is missing from Temporal, or
 * - closed terminated, failed, timed out or cancelled (a human, a bug, a timeout), or
 * - completed while the row it was started for is still there (it ended without a
 *   deregistration). A completed run of an earlier connection of the pair (another id) is not
 *   this row's, and is left alone.
 *
 * Never while a run is running (the restart refuses to end one). The restart is idempotent:
 * the workflow's first activity writes the row only if absent and the announcement event is
 * keyed by the connection, backfill steps upsert samples by key and the historical.data.* events
 * are keyed by the connection, so a new run stores nothing twice.
 *
 * A deregistration in flight: the restart holds the row's lock (FOR UPDATE) from the re-read to
 * the start, and the API's deregistration holds it from before its signal until the row is
 * deleted, so either the new run started first and hears the signal, or the row is gone and
 * nothing starts (otherwise a run started between the API's signal and its delete would write
 * the row back). An erasure waits on the same lock; a run started before it finds no user and
 * ends. A user pending deletion is left alone (the workflow would only pause; a restored user's
 * connection is healed on a later cycle).
 *
 * Every worker runs it, but a pass holds a PostgreSQL session lock of its own
 * (ConnectionsRepository.exclusively), so with several workers one reconciles at a time. Like
 * the order reconciler, it judges closed runs of another task queue (an earlier deployment's, a
 * test file's own stack) only once they have been closed for RECONCILER_STALL_HORIZON.
 */
@Injectable()
export class ConnectionReconciler implements OnModuleDestroy {
  private readonly logger = new Logger('connections');
  private readonly periodic = new PeriodicPass(() => this.reconcile());
  /** The connection id the scan resumes after (null: from the first). */
  private cursor: string | null = null;

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly users: UsersRepository,
    private readonly workflows: ConnectionWorkflows,
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
   * One pass over the next batch, unless another worker's pass holds the lock (then `skipped`).
   * Never throws: what fails is logged and the next pass tries again.
   */
  async reconcile(): Promise<ConnectionReconcilePass> {
    const pass: ConnectionReconcilePass = { examined: 0, healed: 0, waiting: 0, failed: 0, skipped: false };
    try {
      const locked = await this.connections.exclusively(() => this.scanBatch(pass));
      pass.skipped = !locked.ran;
    } catch (error) {
      this.logger.warn(`connection reconciler: pass failed: ${(error as Error).message}`);
    }
    return pass;
  }

  private async scanBatch(pass: ConnectionReconcilePass): Promise<void> {
    const { rows, next } = await this.connections.page(this.cursor, this.config.reconciler.batch);
    this.cursor = next;
    const failures: string[] = [];
    const fail = (row: ConnectionRow, error: unknown) => {
      pass.failed += 1;
      failures.push(`${row.id} (${row.provider}, user ${row.userId}): ${(error as Error).message}`);
    };
    const toHeal: Array<{ row: ConnectionRow; detail: string }> = [];
    for (let index = 0; index < rows.length; index += CONCURRENCY) {
      await Promise.all(
        rows.slice(index, index + CONCURRENCY).map(async (row) => {
          try {
            pass.examined += 1;
            const verdict = await this.examine(row);
            if (verdict.verdict === 'wait') pass.waiting += 1;
            else if (verdict.verdict === 'heal') toHeal.push({ row, detail: verdict.detail });
          } catch (error) {
            fail(row, error);
          }
        }),
      );
    }
    // One at a time: each holds a pooled connection (its row's lock) while Temporal starts the run,
    // and a burst of heals (Temporal lost its state) must not take the pool from the activities.
    for (const { row, detail } of toHeal) {
      try {
        await this.heal(pass, row, detail);
      } catch (error) {
        fail(row, error);
      }
    }
    if (failures.length > 0)
      this.logger.warn(`connection reconciler: ${failures.length} connection(s) not examined or restarted this pass, e.g. ${failures[0]}`);
  }

  private async examine(row: ConnectionRow): Promise<Verdict> {
    if (row.kind === 'push') return { verdict: 'fine' }; // pushed by the user's phone or app: no workflow to keep
    // Young rows are the API's: its transaction starts the workflow before the row commits.
    if (Date.now() - row.createdAt.getTime() < this.config.reconciler.graceMs) return { verdict: 'wait' };
    let description: WorkflowExecutionDescription;
    try {
      description = await this.workflows.describe(row.userId, row.provider);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      return { verdict: 'heal', detail: 'workflow not found in Temporal' };
    }
    const status = description.status.name;
    if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return { verdict: 'fine' };
    const closedAt = description.closeTime ?? new Date(0);
    const detail = `workflow run ${description.runId} ${status} at ${closedAt.toISOString()} (task queue ${description.taskQueue})`;
    if (ABNORMAL_ENDS.has(status)) return this.unlessAnotherQueues(description, closedAt, detail);
    if (status !== 'COMPLETED') return { verdict: 'fine' };
    // Completed: the normal end, unless this very connection's row outlived it.
    const carried = await this.workflows.connectionIdOf(row.userId, row.provider, description.runId);
    if (carried !== row.id) return { verdict: 'fine' };
    return this.unlessAnotherQueues(description, closedAt, `${detail} while its connection's row remains (no deregistration)`);
  }

  /** Another queue's reconciler (another deployment's, a test file's) has one horizon to act first. */
  private unlessAnotherQueues(description: WorkflowExecutionDescription, closedAt: Date, detail: string): Verdict {
    const ownQueue = description.taskQueue === this.config.temporal.taskQueue;
    if (!ownQueue && Date.now() - closedAt.getTime() < this.config.reconciler.stallHorizonMs) return { verdict: 'wait' };
    return { verdict: 'heal', detail };
  }

  /** A new run for the connection, under its row's lock, if it is still there and its user live. */
  private async heal(pass: ConnectionReconcilePass, row: ConnectionRow, detail: string): Promise<void> {
    const outcome = await this.connections.transaction(async (manager) => {
      const current = await this.connections.lockById(row.id, manager);
      // Deregistered (or erased) since the scan read it: nothing to heal.
      if (!current) return { result: 'gone' as const };
      const scope = { teamId: current.teamId, environment: current.environment };
      if (!(await this.users.findLive(scope, current.userId))) {
        // Pending deletion: its workflow would only pause; restored, a later cycle heals it.
        return { result: (await this.users.findPendingDeletion(scope, current.userId)) ? ('pending' as const) : ('gone' as const) };
      }
      try {
        return { result: 'started' as const, runId: await this.workflows.restart(identityOf(current)) };
      } catch (error) {
        // A run started meanwhile: running again, nothing to do.
        if (error instanceof WorkflowExecutionAlreadyStartedError) return { result: 'running' as const };
        throw error;
      }
    });
    if (outcome.result === 'pending') pass.waiting += 1;
    if (outcome.result !== 'started') return;
    pass.healed += 1;
    this.logger.warn(
      `connection reconciler healed connection ${row.id} (${row.provider}, user ${row.userId}, team ${row.teamId}): ${detail}; new run ${outcome.runId}`,
    );
  }
}

/** What the API starts a connection's workflow with (ConnectionsService.connectDemo). */
function identityOf(row: ConnectionRow): ConnectionIdentity {
  return { connectionId: row.id, teamId: row.teamId, environment: row.environment, region: row.region, userId: row.userId, provider: row.provider };
}
