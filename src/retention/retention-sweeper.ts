import { SESSION_LOCKS, withSessionLock } from '../common/session-lock';
import type { DataSource } from 'typeorm';
import { IdempotencyRepository } from '../common/idempotency/idempotency.repository';
import { PartnerReceiptsRepository } from '../common/idempotency/partner-receipts.repository';
import { OutboxRepository } from '../events/outbox.repository';
import { TimeseriesRepository } from '../health-data/timeseries.repository';
import { LinkTokensRepository } from '../link/link-tokens.repository';
import { BulkOpsRepository } from '../connections/bulk-ops.repository';
import { ContinuousQueriesRepository } from '../health-data/continuous-queries/continuous-queries.repository';

/** What a sweeper keeps: each limit is how long a row is kept after it was created. */
export interface RetentionConfig {
  /** Relayed events (and with them their finished deliveries and attempts). */
  eventRetentionMs: number;
  /** Order-creation `X-Idempotency-Key` answers. */
  orderIdempotencyKeyTtlMs: number;
  /** PSC booking `x-idempotency-key` records. */
  appointmentIdempotencyKeyTtlMs: number;
  /** Rows deleted per statement, so a large backlog never holds long locks. */
  batchSize: number;
  /**
   * Health-data timeseries: whole months whose end is older than this are dropped (0 or absent:
   * kept forever). Each sweep also makes the next months' partitions ahead of time.
   */
  healthDataRetentionMs?: number;
  /** Link Migration operations: their users' rows, this long after the operation ended (its counts stay). */
  linkBulkOpRetentionMs: number;
}

/** How long a link token is kept after it expired. */
const LINK_TOKEN_KEEP_MS = 86_400_000;
/** How long a partner webhook's event id is kept: far longer than any partner resends a report. */
const PARTNER_RECEIPT_KEEP_MS = 30 * 86_400_000;

/** Rows deleted by one sweep, per table. */
export interface RetentionReport {
  events: number;
  orderIdempotencyKeys: number;
  appointmentIdempotencyKeys: number;
  /** Monthly health_samples partitions dropped (whole months past HEALTH_DATA_RETENTION). */
  healthDataPartitions: number;
  /** Link tokens a day past their expiry (kept that long so GET /v2/link/state still answers). */
  linkTokens: number;
  /** Users' rows of Link Migration operations that ended more than LINK_BULK_OP_RETENTION ago. */
  linkBulkOpItems: number;
  /** Continuous query evaluations (task history) that ended more than EVENT_RETENTION ago. */
  continuousQueryTasks: number;
  /** Partner webhook event ids (partner_webhook_receipts) older than 30 days. */
  partnerWebhookReceipts: number;
}

/**
 * Deletes what labflow no longer needs, in bounded batches:
 *
 * - events older than EVENT_RETENTION that were relayed and have no pending delivery. Their
 *   deliveries and delivery attempts go with them (ON DELETE CASCADE). The newest event of each
 *   subject (order, appointment, …) is always kept, because POST /v3/order/resend_events
 *   re-sends it however old it is.
 * - idempotency records past their TTL: an expired key is already treated as unused, so deleting
 *   it changes no answer.
 * - link tokens a day after they expired: nothing can be done with them any more.
 * - the users of a Link Migration operation (one row each) once it ended LINK_BULK_OP_RETENTION
 *   ago: the operation itself stays listed, with its counts.
 * - continuous query evaluations (their task history) EVENT_RETENTION after they ended, as the
 *   events they sent go.
 * - partner webhook event ids 30 days after the report came: no partner resends one that late.
 *
 * Order rows, order events and results are never touched: they are the customer's record.
 */
export class RetentionSweeper {
  private readonly events: OutboxRepository;
  private readonly idempotency: IdempotencyRepository;
  private readonly timeseries: TimeseriesRepository;
  private readonly linkTokens: LinkTokensRepository;
  private readonly bulkOps: BulkOpsRepository;
  private readonly continuousQueries: ContinuousQueriesRepository;
  private readonly partnerReceipts: PartnerReceiptsRepository;

  constructor(
    private readonly db: DataSource,
    private readonly config: RetentionConfig,
  ) {
    this.events = new OutboxRepository(db);
    this.idempotency = new IdempotencyRepository(db);
    this.timeseries = new TimeseriesRepository(db);
    this.linkTokens = new LinkTokensRepository(db);
    this.bulkOps = new BulkOpsRepository(db);
    this.continuousQueries = new ContinuousQueriesRepository(db);
    this.partnerReceipts = new PartnerReceiptsRepository(db);
  }

  /** One sweep; returns null when another process holds the sweep lock. */
  async sweepOnce(): Promise<RetentionReport | null> {
    const { batchSize } = this.config;
    const sweep = await withSessionLock(this.db, SESSION_LOCKS.retentionSweep, async () => ({
      events: await this.drain(() => this.events.deleteExpired(this.config.eventRetentionMs, batchSize)),
      orderIdempotencyKeys: await this.drain(() => this.idempotency.deleteExpiredAnswers(this.config.orderIdempotencyKeyTtlMs, batchSize)),
      appointmentIdempotencyKeys: await this.drain(() => this.idempotency.deleteExpiredResults(this.config.appointmentIdempotencyKeyTtlMs, batchSize)),
      healthDataPartitions: await this.maintainHealthData(),
      linkTokens: await this.drain(() => this.linkTokens.deleteExpired(LINK_TOKEN_KEEP_MS, batchSize)),
      linkBulkOpItems: await this.drain(() => this.bulkOps.deleteExpiredItems(this.config.linkBulkOpRetentionMs, batchSize)),
      continuousQueryTasks: await this.drain(() => this.continuousQueries.deleteEnded(this.config.eventRetentionMs, batchSize)),
      partnerWebhookReceipts: await this.drain(() => this.partnerReceipts.deleteOlderThan(PARTNER_RECEIPT_KEEP_MS, batchSize)),
    }));
    return sweep.ran ? sweep.value : null;
  }

  /** Partitions three months ahead; whole months past the health-data retention dropped. */
  private async maintainHealthData(): Promise<number> {
    await this.timeseries.createPartitionsAhead(3);
    const retentionMs = this.config.healthDataRetentionMs ?? 0;
    if (retentionMs <= 0) return 0;
    return (await this.timeseries.dropPartitionsBefore(new Date(Date.now() - retentionMs))).length;
  }

  /** Repeats a batch delete until a batch comes back short. */
  private async drain(batch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await batch();
      total += deleted;
      if (deleted < this.config.batchSize) return total;
    }
  }
}

/**
 * Sweeps every `intervalMs` (the first one after one interval) until stopped. A failed sweep is
 * logged and the next one runs on time; an interval of 0 turns sweeping off.
 */
export function startRetentionSweeps(
  sweeper: RetentionSweeper,
  intervalMs: number,
  logger: { log(message: string): void; warn(message: string): void } = console,
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = intervalMs <= 0;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = sweeper
        .sweepOnce()
        .then((report) => {
          if (report && Object.values(report).some((deleted) => deleted > 0)) {
            logger.log(`[labflow] retention: deleted ${JSON.stringify(report)}`);
          }
        })
        .catch((error: unknown) => logger.warn(`[labflow] retention sweep failed: ${String(error)}`))
        .finally(schedule);
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
