import type { DataSource } from 'typeorm';

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
}

/** Rows deleted by one sweep, per table. */
export interface RetentionReport {
  events: number;
  orderIdempotencyKeys: number;
  appointmentIdempotencyKeys: number;
}

/** A lock id of its own, so two workers never sweep at the same time (pg_try_advisory_lock). */
const SWEEP_LOCK = 0x1abf_0001;

/**
 * Deletes what labflow no longer needs, in bounded batches:
 *
 * - events older than EVENT_RETENTION that were relayed and have no pending delivery. Their
 *   deliveries and delivery attempts go with them (ON DELETE CASCADE). The newest event of each
 *   subject (order, appointment, …) is always kept, because POST /v3/order/resend_events
 *   re-sends it however old it is.
 * - idempotency records past their TTL: an expired key is already treated as unused, so deleting
 *   it changes no answer.
 *
 * Order rows, order events and results are never touched: they are the customer's record.
 */
export class RetentionSweeper {
  constructor(
    private readonly db: DataSource,
    private readonly config: RetentionConfig,
  ) {}

  /** One sweep; returns null when another process holds the sweep lock. */
  async sweepOnce(): Promise<RetentionReport | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [SWEEP_LOCK]);
      if (!locked) return null;
      try {
        return {
          events: await this.drain(() => this.deleteEvents()),
          orderIdempotencyKeys: await this.drain(() =>
            this.deleteOlderThan('idempotency_keys', this.config.orderIdempotencyKeyTtlMs),
          ),
          appointmentIdempotencyKeys: await this.drain(() =>
            this.deleteOlderThan('appointment_idempotency_keys', this.config.appointmentIdempotencyKeyTtlMs),
          ),
        };
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [SWEEP_LOCK]);
      }
    } finally {
      await runner.release();
    }
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

  private async deleteEvents(): Promise<number> {
    return this.deleted(
      `DELETE FROM event_outbox WHERE id IN (
         SELECT o.id FROM event_outbox o
          WHERE o.created_at < clock_timestamp() - make_interval(secs => $1)
            AND o.relayed_at IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = o.id AND d.status = 'pending')
            AND (o.subject_id IS NULL OR EXISTS (
                  SELECT 1 FROM event_outbox newer
                   WHERE newer.team_id = o.team_id AND newer.environment = o.environment
                     AND newer.subject_id = o.subject_id AND (newer.created_at, newer.id) > (o.created_at, o.id)))
          ORDER BY o.created_at
          LIMIT $2)`,
      [this.config.eventRetentionMs / 1000, this.config.batchSize],
    );
  }

  /** `table` is one of the two idempotency tables named in sweepOnce, never user input. */
  private async deleteOlderThan(table: 'idempotency_keys' | 'appointment_idempotency_keys', ttlMs: number): Promise<number> {
    return this.deleted(
      `DELETE FROM ${table} WHERE ctid IN (
         SELECT ctid FROM ${table} WHERE created_at < clock_timestamp() - make_interval(secs => $1) LIMIT $2)`,
      [ttlMs / 1000, this.config.batchSize],
    );
  }

  /** Runs a DELETE and returns how many rows it removed (TypeORM answers [rows, count]). */
  private async deleted(sql: string, params: unknown[]): Promise<number> {
    const [, count]: [unknown[], number] = await this.db.query(sql, params);
    return count;
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
          if (report && report.events + report.orderIdempotencyKeys + report.appointmentIdempotencyKeys > 0) {
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
