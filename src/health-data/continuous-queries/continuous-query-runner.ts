import { Inject, Injectable, Logger } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { PeriodicPass } from '../../common/periodic-pass';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import type { ContinuousQueryChangedEventData } from '../../events/catalogue';
import { OutboxService } from '../../events/outbox.service';
import { type ClaimedTask, ContinuousQueriesRepository } from './continuous-queries.repository';
import { ContinuousQueriesService } from './continuous-queries.service';

/** Tasks claimed by one statement; a pass claims again while it gets full batches. */
const CLAIM_BATCH = 20;

/** The task's lease ran out while it was evaluated and another runner took it: this evaluation is dropped. */
class LeaseLost extends Error {}

/**
 * Evaluates due continuous-query tasks (the worker role `continuous-queries`; any number of
 * workers may run it: a task is claimed by one at a time under a lease).
 *
 * For each task, in one transaction: the new table is compared with the one the query last
 * answered for the user; when it differs it is saved and `continuous_query.result_table.changed`
 * goes into the outbox (its id derived from the task, so an evaluation repeated after a crash
 * sends nothing twice), and the task ends `completed`. What the query cannot answer (too many
 * rows; a query an upgrade no longer accepts) or a user being deleted ends it `error` with the
 * reason: recorded, not retried. Any other failure (the database going away) leaves the task
 * `started` until its lease (CONTINUOUS_QUERY_LEASE) runs out, when a runner evaluates it again.
 */
@Injectable()
export class ContinuousQueryRunner {
  private readonly logger = new Logger('ContinuousQueryRunner');

  constructor(
    private readonly repository: ContinuousQueriesRepository,
    private readonly queries: ContinuousQueriesService,
    private readonly outbox: OutboxService,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** Evaluates every task due now; answers how many were claimed. */
  async runOnce(): Promise<number> {
    let claimed = 0;
    for (;;) {
      const tasks = await this.repository.claim(CLAIM_BATCH, this.config.healthData.continuousQueries.leaseMs);
      claimed += tasks.length;
      for (const task of tasks) {
        try {
          await this.evaluate(task);
        } catch (error) {
          if (error instanceof LeaseLost) continue;
          this.logger.warn(`continuous query ${task.query.id} for user ${task.user.id} failed (evaluated again after its lease): ${String(error)}`);
        }
      }
      if (tasks.length < CLAIM_BATCH) return claimed;
    }
  }

  private async evaluate(task: ClaimedTask): Promise<void> {
    const { query, user } = task;
    const outcome = user.deleted ? { error: 'The user is being deleted.' } : await this.queries.evaluate(query, user.id);
    await this.repository.transaction(async (manager) => {
      if ('table' in outcome) {
        const previous = await this.repository.lockResult(manager, query.id, user.id);
        if (!isDeepStrictEqual(previous, outcome.table)) {
          await this.repository.saveResult(manager, query.id, user.id, outcome.table);
          await this.outbox.record(manager, [
            {
              idempotencyKey: `continuous_query:${task.id}`,
              eventType: 'continuous_query.result_table.changed',
              teamId: query.team_id,
              environment: query.environment as 'sandbox' | 'production',
              userId: user.id,
              clientUserId: user.client_user_id,
              data: [{ query_id: query.id, query_slug: query.slug, data: outcome.table }] satisfies ContinuousQueryChangedEventData,
            },
          ]);
        }
      }
      const ended = await this.repository.finish(
        manager,
        task.id,
        task.attempts,
        'table' in outcome ? { status: 'completed' } : { status: 'error', detail: outcome.error },
      );
      if (!ended) throw new LeaseLost();
    });
  }
}

/** Runs due evaluations every `intervalMs` until stopped. */
export function startContinuousQueries(runner: ContinuousQueryRunner, intervalMs: number, warn: (message: string) => void): { stop(): Promise<void> } {
  const pass = new PeriodicPass(() => runner.runOnce().catch((error: unknown) => warn(`[labflow] continuous queries pass failed: ${String(error)}`)));
  pass.start(intervalMs);
  return { stop: () => pass.stop() };
}
