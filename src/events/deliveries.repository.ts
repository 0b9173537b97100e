import type { DataSource, EntityManager } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import { PENDING } from './delivery-status';
import type { AttemptTrigger, Claim, DeliveryContext, FinishedAttempt } from './delivery-attempts.types';
import { OUTBOX_CHANNEL } from './outbox.repository';
import { changedCount } from '../common/write-statements';

/**
 * Text Postgres can store: a receiver's response may hold NUL characters, which a text column
 * refuses — the whole statement (and, batched, its neighbours' outcomes) would fail with it.
 */
function pgText(value: string | null): string | null {
  return value === null || !value.includes('\u0000') ? value : value.replaceAll('\u0000', '');
}

/**
 * In the outcome statement (finishAttempts): the attempt is a first attempt that succeeded and no
 * later one was claimed meanwhile (whose claim would have recorded this one \`interrupted\`): its
 * outcome is written on the delivery row (\`first_attempt_*\`) instead of as an attempt row.
 */
const INLINE_FIRST_ATTEMPT = `(f.attempt_number = 1 AND f.status = 'succeeded' AND d.attempt_count = 1)`;

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
   * Starts the next attempt of a delivery: when it is pending, due and its target still takes
   * events, counts the attempt and returns everything the attempt needs (its row is written once,
   * with the outcome: finishAttempts); a pending delivery whose endpoint was disabled (or
   * destination removed) is cancelled. An earlier attempt that was never recorded — its worker
   * died — is recorded `interrupted` by this statement.
   *
   * A due webhook delivery whose endpoint has a `rate_limit` is only claimed with
   * `rateLimitCleared` (the caller took a slot from the limiter); without it the statement
   * changes nothing and answers `rate_limited`, so holding a delivery back never counts as an
   * attempt. Deliveries without a limit are claimed by the first call.
   */
  async claim(deliveryId: string, options: { rateLimitCleared?: boolean; leaseMs?: number } = {}): Promise<Claim> {
    const [claim] = await this.claimMany([{ deliveryId, rateLimitCleared: options.rateLimitCleared === true }], options.leaseMs);
    return claim;
  }

  /**
   * `claim` for several distinct deliveries in one statement (one commit): the delivery worker
   * groups the claims of its concurrent jobs (DeliveryBatches). Answers in input order; each
   * delivery's rows are decided as by `claim` alone, independently of its batch mates.
   *
   * A claim leaves the delivery's `unfinished_trigger` set until the attempt's outcome is
   * recorded. A delivery with such an attempt claimed less than `leaseMs` ago is `not_due` until
   * the lease ends: a second job for the same delivery — the lost-job sweep's, while a bundle job
   * still holds it — does not send it a second time. The worker's lease covers an attempt
   * (delivery timeout) but not more than a job lock, so a job whose worker died is not kept
   * waiting when BullMQ hands it out again; the claim that then takes the delivery (or cancels
   * it) writes the dead worker's attempt as `interrupted`. Only columns outside every index are
   * written here (the lease is not written to next_attempt_at, which is indexed), so the claim's
   * update of the delivery can be a HOT update (when its page has room for the new version).
   */
  async claimMany(requests: ReadonlyArray<{ deliveryId: string; rateLimitCleared: boolean }>, leaseMs = 0): Promise<Claim[]> {
    if (requests.length === 0) return [];
    // Sorted by id: concurrent batches (two workers) then lock shared rows in the same order.
    const sorted = [...requests].sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0));
    const rows: Array<
      Omit<DeliveryContext, 'attempt_number' | 'id' | 'trigger' | 'claimed_at'> & {
        delivery_id: string;
        id: string | null;
        attempt_number: number | null;
        trigger: AttemptTrigger | null;
        claimed_at: string | null;
        not_due: boolean;
        unsendable: boolean;
        next_at_ms: string;
        limited_endpoint_id: string | null;
        rate_limit: number | null;
      }
    > = await runPrepared(
      this.db,
      'labflow_claim_deliveries',
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::boolean[]) WITH ORDINALITY AS i(delivery_id, cleared, n)
       ), target AS (
         SELECT d.id, d.event_id, d.target, d.endpoint_id, d.pipeline_id, i.cleared, i.n, d.attempt_count,
                d.unfinished_trigger, d.last_attempt_at, l.in_flight, e.url,
                CASE WHEN l.in_flight THEN d.last_attempt_at + $3::bigint * interval '1 millisecond' ELSE d.next_attempt_at END AS next_attempt_at,
                d.next_attempt_at > clock_timestamp() OR l.in_flight AS not_due,
                CASE d.target WHEN 'webhook' THEN e.id IS NULL OR e.disabled
                              ELSE p.id IS NULL OR NOT ('rabbitmq' = ANY(p.enabled)) END AS unsendable,
                CASE d.target WHEN 'webhook' THEN e.id END AS limited_endpoint_id,
                CASE d.target WHEN 'webhook' THEN e.rate_limit END AS rate_limit
           FROM input i
           JOIN event_deliveries d ON d.id = i.delivery_id
           CROSS JOIN LATERAL (
             SELECT d.unfinished_trigger IS NOT NULL
                    AND d.last_attempt_at > clock_timestamp() - $3::bigint * interval '1 millisecond' AS in_flight
           ) l
           LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
           LEFT JOIN etl_pipelines p ON p.id = d.pipeline_id
          WHERE d.status ${PENDING}
       ), claimed AS (
         UPDATE event_deliveries d
            SET attempt_count = d.attempt_count + 1, last_attempt_at = clock_timestamp(), manual = false,
                unfinished_trigger = CASE WHEN d.manual THEN 'manual' ELSE 'scheduled' END, updated_at = clock_timestamp()
           FROM target t
          WHERE d.id = t.id AND d.status ${PENDING} AND d.attempt_count = t.attempt_count
            AND NOT t.not_due AND NOT t.unsendable AND (t.rate_limit IS NULL OR t.cleared)
          RETURNING d.id, d.event_id, d.endpoint_id, d.pipeline_id, d.attempt_count, d.target,
                    d.unfinished_trigger AS trigger, d.last_attempt_at::text AS claimed_at
       ), cancelled AS (
         UPDATE event_deliveries d
            SET status = 'cancelled', updated_at = clock_timestamp(),
                status_reason = CASE d.target WHEN 'webhook' THEN 'endpoint_disabled' ELSE 'destination_removed' END
           FROM target t
          WHERE d.id = t.id AND d.status ${PENDING} AND t.unsendable
          RETURNING d.id
       ), interrupted AS (
         -- The previous attempt was claimed, its lease is over and its outcome never came: its
         -- worker died. A row already there is its outcome, written meanwhile (kept), or a
         -- 'sending' row written before migration 1763790180000 (now known to be interrupted).
         INSERT INTO event_delivery_attempts AS a
                (id, delivery_id, event_id, endpoint_id, pipeline_id, attempt_number, trigger, status, target, url,
                 error, created_at, finished_at)
         SELECT labflow_uuid_v7(), t.id, t.event_id, t.endpoint_id, t.pipeline_id, t.attempt_count, t.unfinished_trigger,
                'interrupted', t.target, t.url, 'The worker stopped during this attempt; the receiver may have got it.',
                t.last_attempt_at, clock_timestamp()
           FROM target t
          WHERE t.unfinished_trigger IS NOT NULL AND NOT t.in_flight
            AND t.id IN (SELECT id FROM claimed UNION ALL SELECT id FROM cancelled)
         ON CONFLICT (delivery_id, attempt_number) DO UPDATE
            SET status = EXCLUDED.status, error = EXCLUDED.error, finished_at = EXCLUDED.finished_at
          WHERE a.status = 'sending'
       )
       SELECT t.id AS delivery_id, t.not_due, t.unsendable,
              (extract(epoch FROM t.next_attempt_at) * 1000)::bigint AS next_at_ms,
              t.limited_endpoint_id, t.rate_limit,
              c.id, c.event_id, c.target, c.endpoint_id, c.pipeline_id, c.attempt_count AS attempt_number, c.trigger, c.claimed_at,
              o.event_type, o.team_id, o.environment, o.user_id, o.client_user_id, o.data_enc,
              o.created_at AS event_created_at, o.request_id,
              e.url, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at, e.headers_enc,
              h.failing_since, p.destinations_enc
         FROM target t
         LEFT JOIN claimed c ON c.id = t.id
         LEFT JOIN event_outbox o ON o.id = c.event_id
         LEFT JOIN webhook_endpoints e ON e.id = c.endpoint_id
         LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = c.endpoint_id
         LEFT JOIN etl_pipelines p ON p.id = c.pipeline_id
        ORDER BY t.n`,
      [sorted.map((request) => request.deliveryId), sorted.map((request) => request.rateLimitCleared), Math.max(0, Math.round(leaseMs))],
    );
    const byId = new Map(rows.map((row) => [row.delivery_id, row]));
    return requests.map((request): Claim => {
      const row = byId.get(request.deliveryId);
      if (!row) return { kind: 'none' };
      if (row.not_due && !row.unsendable) return { kind: 'not_due', atMs: Number(row.next_at_ms) };
      if (row.attempt_number === null || row.id === null || row.trigger === null || row.claimed_at === null) {
        if (!row.unsendable && row.rate_limit !== null && !request.rateLimitCleared && row.limited_endpoint_id) {
          return { kind: 'rate_limited', endpointId: row.limited_endpoint_id, rateLimit: row.rate_limit };
        }
        return { kind: 'none' };
      }
      const {
        delivery_id: _deliveryId,
        not_due: _notDue,
        unsendable: _unsendable,
        next_at_ms: _next,
        limited_endpoint_id: _limitedEndpoint,
        rate_limit: _rateLimit,
        ...context
      } = row;
      return {
        kind: 'claimed',
        context: { ...context, id: row.id, attempt_number: row.attempt_number, trigger: row.trigger, claimed_at: row.claimed_at },
      };
    });
  }

  /**
   * Records the attempt's result and the delivery's new state in one statement. True when a
   * manual attempt was asked for meanwhile: the delivery is pending for it, due now.
   */
  async finishAttempt(attempt: FinishedAttempt): Promise<boolean> {
    return (await this.finishAttempts([attempt])).has(attempt.claimed.id);
  }

  /**
   * `finishAttempt` for several attempts (of distinct deliveries) in one statement: each
   * attempt's row is written, with what its claim fixed and its result, and its delivery gets its
   * new state, as alone. The delivery's `unfinished_trigger` is cleared only by the outcome of its
   * latest attempt. An attempt the next claim already recorded `interrupted` (its worker was
   * slow, not dead) keeps its number: the outcome replaces that row. A manual attempt asked for
   * while this one was in flight is not lost to its outcome: the delivery stays pending for it.
   * Returns the ids of such deliveries.
   */
  async finishAttempts(attempts: readonly FinishedAttempt[]): Promise<ReadonlySet<string>> {
    if (attempts.length === 0) return new Set();
    const sorted = [...attempts].sort((a, b) => (a.claimed.id < b.claimed.id ? -1 : a.claimed.id > b.claimed.id ? 1 : 0));
    const column = <T>(pick: (attempt: FinishedAttempt) => T): T[] => sorted.map(pick);
    const rows: Array<{ id: string; manual: boolean }> = await runPrepared(
      this.db,
      'labflow_finish_attempts',
      `WITH f AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::int[], $7::text[],
                              $8::timestamptz[], $9::text[], $10::text[], $11::int[], $12::text[], $13::text[], $14::int[],
                              $15::text[], $16::text[], $17::bigint[])
                    AS f(delivery_id, event_id, target, endpoint_id, pipeline_id, attempt_number, trigger,
                         claimed_at, url, status, status_code, excerpt, error, latency_ms,
                         delivery_status, reason, delay_ms)
       ), finished AS (
         -- d.manual is true only when a manual attempt (a retry, a resend) was asked for after this
         -- attempt's claim (the claim clears it): the delivery stays pending, due when it was asked.
         -- A first attempt that succeeded, with no later attempt claimed meanwhile, is written
         -- here, on the delivery row (decided on the row this statement locks), not as a row of
         -- its own: the listings read it as attempt 1.
         UPDATE event_deliveries d
            SET status = CASE WHEN d.manual THEN 'pending' ELSE f.delivery_status END,
                status_reason = CASE WHEN d.manual THEN NULL ELSE f.reason END,
                updated_at = clock_timestamp(),
                next_attempt_at = CASE WHEN d.manual OR f.delay_ms IS NULL THEN d.next_attempt_at
                                       ELSE clock_timestamp() + f.delay_ms * interval '1 millisecond' END,
                unfinished_trigger = CASE WHEN d.attempt_count = f.attempt_number THEN NULL ELSE d.unfinished_trigger END,
                first_attempt_at = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.claimed_at ELSE d.first_attempt_at END,
                first_attempt_finished_at = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN clock_timestamp() ELSE d.first_attempt_finished_at END,
                first_attempt_trigger = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.trigger ELSE d.first_attempt_trigger END,
                first_attempt_url = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.url ELSE d.first_attempt_url END,
                first_attempt_status_code = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.status_code ELSE d.first_attempt_status_code END,
                first_attempt_latency_ms = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.latency_ms ELSE d.first_attempt_latency_ms END,
                first_attempt_response_enc = CASE WHEN ${INLINE_FIRST_ATTEMPT} THEN f.excerpt ELSE d.first_attempt_response_enc END
           FROM f
          WHERE d.id = f.delivery_id AND d.status ${PENDING}
         RETURNING d.id, d.manual, ${INLINE_FIRST_ATTEMPT} AS inline
       ), recorded AS (
         INSERT INTO event_delivery_attempts AS a
                (id, delivery_id, event_id, endpoint_id, pipeline_id, attempt_number, trigger, status, target, url,
                 response_status_code, response_excerpt_enc, error, latency_ms, created_at, finished_at)
         SELECT labflow_uuid_v7(), f.delivery_id, f.event_id, f.endpoint_id, f.pipeline_id, f.attempt_number, f.trigger,
                f.status, f.target, f.url, f.status_code, f.excerpt, f.error, f.latency_ms, f.claimed_at, clock_timestamp()
           FROM f
          -- A delivery removed meanwhile (its endpoint or pipeline was deleted) has nothing to record.
          WHERE EXISTS (SELECT 1 FROM event_deliveries d WHERE d.id = f.delivery_id)
            AND NOT EXISTS (SELECT 1 FROM finished WHERE finished.id = f.delivery_id AND finished.inline)
         ON CONFLICT (delivery_id, attempt_number) DO UPDATE
            SET status = EXCLUDED.status, url = EXCLUDED.url, response_status_code = EXCLUDED.response_status_code,
                response_excerpt_enc = EXCLUDED.response_excerpt_enc, error = EXCLUDED.error, latency_ms = EXCLUDED.latency_ms,
                finished_at = EXCLUDED.finished_at
          WHERE a.status = 'interrupted'
       )
       SELECT id, manual FROM finished`,
      [
        column((a) => a.claimed.id),
        column((a) => a.claimed.event_id),
        column((a) => a.claimed.target),
        column((a) => a.claimed.endpoint_id),
        column((a) => a.claimed.pipeline_id),
        column((a) => a.claimed.attempt_number),
        column((a) => a.claimed.trigger),
        column((a) => a.claimed.claimed_at),
        column((a) => a.url ?? a.claimed.url),
        column((a) => a.status),
        column((a) => a.statusCode),
        column((a) => a.sealedResponseExcerpt),
        column((a) => pgText(a.error)),
        column((a) => a.latencyMs),
        column((a) => a.delivery.status),
        column((a) => (a.delivery.status === 'pending' ? null : a.delivery.reason)),
        column((a) => (a.delivery.status === 'pending' ? Math.round(a.delivery.delayMs) : null)),
      ],
    );
    return new Set(rows.flatMap((row) => (row.manual ? [row.id] : [])));
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

  /**
   * Svix's "recover": every message of the endpoint created at or after `since` that failed for
   * good (exhausted, or cancelled while the endpoint was disabled) gets a manual attempt now, as
   * requestManualAttempt gives one. How many were queued.
   */
  async requestManualAttemptsSince(manager: EntityManager, endpointId: string, since: Date): Promise<number> {
    const count = await changedCount(
      manager,
      `UPDATE event_deliveries
          SET status = 'pending', status_reason = NULL, manual = true, next_attempt_at = clock_timestamp(),
              enqueued_at = NULL, updated_at = clock_timestamp()
        WHERE endpoint_id = $1 AND created_at >= $2 AND status IN ('exhausted', 'cancelled')
        RETURNING id`,
      [endpointId, since],
    );
    if (count > 0) await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
    return count;
  }
}
