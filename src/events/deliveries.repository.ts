import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { OUTBOX_CHANNEL } from './outbox.repository';

export type DeliveryTarget = 'webhook' | 'rabbitmq';
export type DeliveryStatus = 'pending' | 'succeeded' | 'exhausted' | 'cancelled';
export type AttemptStatus = 'sending' | 'succeeded' | 'failed' | 'interrupted';
export type AttemptTrigger = 'scheduled' | 'manual';

/** Everything one attempt needs, from the claim statement. */
export interface DeliveryContext {
  id: string;
  event_id: string;
  target: DeliveryTarget;
  endpoint_id: string | null;
  pipeline_id: string | null;
  /** The number of the attempt just started. */
  attempt_number: number;
  event_type: string;
  team_id: string;
  environment: string;
  user_id: string;
  client_user_id: string;
  data_enc: string;
  event_created_at: Date;
  url: string | null;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  headers_enc: string | null;
  failing_since: Date | null;
  destinations_enc: string | null;
  /** The request the event goes back to (event_outbox.request_id), for the delivery's log line. */
  request_id: string | null;
}

/** What claiming a delivery found. */
export type Claim =
  /** Attempt started (counted, recorded as `sending`). */
  | { kind: 'claimed'; attemptId: string; context: DeliveryContext }
  /** Pending but due later (a job that fired early, e.g. re-enqueued by a sweep). */
  | { kind: 'not_due'; atMs: number }
  /**
   * Due, but its webhook endpoint has a `rate_limit` the caller has not cleared yet: nothing was
   * changed. Take a slot from the limiter, then claim again with `rateLimitCleared`.
   */
  | { kind: 'rate_limited'; endpointId: string; rateLimit: number }
  /** Nothing to do: unknown, no longer pending, cancelled now (target disabled), or taken by another worker. */
  | { kind: 'none' };

export interface FinishedAttempt {
  attemptId: string;
  /** Where it went, when not known at claim time (event destinations: masked URI + exchange). */
  url?: string;
  deliveryId: string;
  status: Exclude<AttemptStatus, 'sending' | 'interrupted'>;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
  latencyMs: number;
  /** The delivery afterwards: still pending (retry after delayMs) or final. */
  delivery: { status: 'pending'; delayMs: number } | { status: Exclude<DeliveryStatus, 'pending'>; reason: string | null };
}

/**
 * The SQL of deliveries and their attempts (`event_deliveries`, `event_delivery_attempts`) and of
 * webhook endpoint health (`webhook_endpoint_health`): claiming and finishing an attempt, noting
 * failures, a manual attempt. Claiming reads management's delivery targets (the read model
 * "Delivery targets" in src/events/README.md).
 */
export class DeliveriesRepository {
  constructor(private readonly db: DataSource) {}

  // ------------------------------------------------------------------------------------------
  // Delivery

  /**
   * Starts the next attempt of a delivery in one statement: when it is pending, due and its
   * target still takes events, counts the attempt, marks an attempt left `sending` by a dead
   * worker as `interrupted`, records the new one as `sending`, and returns everything the attempt
   * needs; a pending delivery whose endpoint was disabled (or destination removed) is cancelled.
   *
   * A due webhook delivery whose endpoint has a `rate_limit` is only claimed with
   * `rateLimitCleared` (the caller took a slot from the limiter); without it the statement
   * changes nothing and answers `rate_limited`, so holding a delivery back never counts as an
   * attempt. Deliveries without a limit are claimed by the first call, as before.
   */
  async claim(deliveryId: string, options: { rateLimitCleared?: boolean } = {}): Promise<Claim> {
    const attemptId = randomUUID();
    const rows: Array<
      Omit<DeliveryContext, 'attempt_number'> & {
        attempt_number: number | null;
        not_due: boolean;
        unsendable: boolean;
        next_at_ms: string;
        limited_endpoint_id: string | null;
        rate_limit: number | null;
      }
    > = await this.db.query(
      `WITH target AS (
         SELECT d.id, d.attempt_count, d.manual, d.next_attempt_at,
                d.next_attempt_at > clock_timestamp() AS not_due,
                CASE d.target WHEN 'webhook' THEN e.id IS NULL OR e.disabled
                              ELSE p.id IS NULL OR NOT ('rabbitmq' = ANY(p.enabled)) END AS unsendable,
                CASE d.target WHEN 'webhook' THEN e.id END AS limited_endpoint_id,
                CASE d.target WHEN 'webhook' THEN e.rate_limit END AS rate_limit
           FROM event_deliveries d
           LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
           LEFT JOIN etl_pipelines p ON p.id = d.pipeline_id
          WHERE d.id = $1 AND d.status = 'pending'
       ), claimed AS (
         UPDATE event_deliveries d
            SET attempt_count = d.attempt_count + 1, last_attempt_at = clock_timestamp(), manual = false,
                updated_at = clock_timestamp()
           FROM target t
          WHERE d.id = t.id AND d.status = 'pending' AND d.attempt_count = t.attempt_count
            AND NOT t.not_due AND NOT t.unsendable AND (t.rate_limit IS NULL OR $3::boolean)
          RETURNING d.id, d.event_id, d.endpoint_id, d.pipeline_id, d.attempt_count, d.target, t.manual
       ), cancelled AS (
         UPDATE event_deliveries d
            SET status = 'cancelled', updated_at = clock_timestamp(),
                status_reason = CASE d.target WHEN 'webhook' THEN 'endpoint_disabled' ELSE 'destination_removed' END
           FROM target t
          WHERE d.id = t.id AND d.status = 'pending' AND t.unsendable
       ), stale AS (
         UPDATE event_delivery_attempts
            SET status = 'interrupted', error = 'The worker stopped during this attempt; the receiver may have got it.',
                finished_at = clock_timestamp()
          WHERE delivery_id = $1 AND status = 'sending' AND EXISTS (SELECT 1 FROM claimed)
       ), attempt AS (
         INSERT INTO event_delivery_attempts
                (id, delivery_id, event_id, endpoint_id, pipeline_id, attempt_number, trigger, status, target, url)
         SELECT $2, c.id, c.event_id, c.endpoint_id, c.pipeline_id, c.attempt_count,
                CASE WHEN c.manual THEN 'manual' ELSE 'scheduled' END, 'sending', c.target, e.url
           FROM claimed c LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
       )
       SELECT t.not_due, t.unsendable, (extract(epoch FROM t.next_attempt_at) * 1000)::bigint AS next_at_ms,
              t.limited_endpoint_id, t.rate_limit,
              c.id, c.event_id, c.target, c.endpoint_id, c.pipeline_id, c.attempt_count AS attempt_number,
              o.event_type, o.team_id, o.environment, o.user_id, o.client_user_id, o.data_enc,
              o.created_at AS event_created_at, o.request_id,
              e.url, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at, e.headers_enc,
              h.failing_since, p.destinations_enc
         FROM target t
         LEFT JOIN claimed c ON c.id = t.id
         LEFT JOIN event_outbox o ON o.id = c.event_id
         LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
         LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = c.endpoint_id
         LEFT JOIN etl_pipelines p ON p.id = c.pipeline_id`,
      [deliveryId, attemptId, options.rateLimitCleared === true],
    );
    const row = rows[0];
    if (!row) return { kind: 'none' };
    if (row.not_due && !row.unsendable) return { kind: 'not_due', atMs: Number(row.next_at_ms) };
    if (row.attempt_number === null) {
      if (!row.unsendable && row.rate_limit !== null && !options.rateLimitCleared && row.limited_endpoint_id) {
        return { kind: 'rate_limited', endpointId: row.limited_endpoint_id, rateLimit: row.rate_limit };
      }
      return { kind: 'none' };
    }
    const {
      not_due: _notDue,
      unsendable: _unsendable,
      next_at_ms: _next,
      limited_endpoint_id: _limitedEndpoint,
      rate_limit: _rateLimit,
      ...context
    } = row;
    return { kind: 'claimed', attemptId, context: { ...context, attempt_number: row.attempt_number } };
  }

  /** Records the attempt's result and the delivery's new state in one statement. */
  async finishAttempt(attempt: FinishedAttempt): Promise<void> {
    const pending = attempt.delivery.status === 'pending';
    await this.db.query(
      `WITH finished AS (
         UPDATE event_delivery_attempts
            SET status = $2, response_status_code = $3, response_excerpt = $4, error = $5, latency_ms = $6,
                finished_at = clock_timestamp(), url = COALESCE($11, url)
          WHERE id = $1
       )
       UPDATE event_deliveries
          SET status = $8, status_reason = $9, updated_at = clock_timestamp(),
              next_attempt_at = CASE WHEN $10::bigint IS NULL THEN next_attempt_at
                                     ELSE clock_timestamp() + $10::bigint * interval '1 millisecond' END
        WHERE id = $7 AND status = 'pending'`,
      [
        attempt.attemptId,
        attempt.status,
        attempt.statusCode,
        attempt.responseExcerpt,
        attempt.error,
        attempt.latencyMs,
        attempt.deliveryId,
        attempt.delivery.status,
        attempt.delivery.status === 'pending' ? null : attempt.delivery.reason,
        pending ? Math.round((attempt.delivery as { delayMs: number }).delayMs) : null,
        attempt.url ?? null,
      ],
    );
  }

  // ------------------------------------------------------------------------------------------
  // Endpoint health

  async endpointRecovered(endpointId: string): Promise<void> {
    await this.db.query(`UPDATE webhook_endpoint_health SET failing_since = NULL WHERE endpoint_id = $1`, [endpointId]);
  }

  /**
   * Notes a failed attempt. The failing clock starts at the first failure after a success (or
   * after the endpoint was re-enabled); true when it has run for `disableAfterMs`.
   */
  async endpointFailed(endpointId: string, disableAfterMs: number): Promise<boolean> {
    const rows: Array<{ overdue: boolean }> = await this.db.query(
      `WITH endpoint AS (SELECT disabled FROM webhook_endpoints WHERE id = $1)
       INSERT INTO webhook_endpoint_health AS h (endpoint_id, failing_since, last_failure_at)
       VALUES ($1, clock_timestamp(), clock_timestamp())
       ON CONFLICT (endpoint_id) DO UPDATE SET
         failing_since = CASE
           WHEN h.failing_since IS NULL OR (h.disabled_at IS NOT NULL AND (SELECT NOT disabled FROM endpoint))
             THEN clock_timestamp() ELSE h.failing_since END,
         disabled_at = CASE WHEN (SELECT NOT disabled FROM endpoint) THEN NULL ELSE h.disabled_at END,
         disabled_reason = CASE WHEN (SELECT NOT disabled FROM endpoint) THEN NULL ELSE h.disabled_reason END,
         last_failure_at = clock_timestamp()
       RETURNING clock_timestamp() - h.failing_since >= CAST($2 AS bigint) * interval '1 millisecond' AS overdue`,
      [endpointId, disableAfterMs],
    );
    return rows[0]?.overdue === true;
  }

  /** Disables an endpoint (410 Gone, or failing too long) and notes why. */
  async disableEndpoint(endpointId: string, reason: string): Promise<boolean> {
    const rows: Array<{ endpoint_id: string }> = await this.db.query(
      `WITH disabled AS (
         UPDATE webhook_endpoints SET disabled = true, updated_at = now() WHERE id = $1 AND NOT disabled RETURNING id
       )
       INSERT INTO webhook_endpoint_health (endpoint_id, disabled_at, disabled_reason)
       SELECT id, clock_timestamp(), $2 FROM disabled
       ON CONFLICT (endpoint_id) DO UPDATE SET disabled_at = EXCLUDED.disabled_at, disabled_reason = EXCLUDED.disabled_reason
       RETURNING endpoint_id`,
      [endpointId, reason],
    );
    return rows.length > 0;
  }

  /** Makes a delivery due now as a manual attempt; the relay enqueues it (NOTIFY wakes it). */
  async requestManualAttempt(manager: EntityManager, deliveryId: string): Promise<void> {
    await manager.query(
      `UPDATE event_deliveries
          SET status = 'pending', status_reason = NULL, manual = true, next_attempt_at = clock_timestamp(),
              enqueued_at = NULL, updated_at = clock_timestamp()
        WHERE id = $1`,
      [deliveryId],
    );
    await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  }
}
