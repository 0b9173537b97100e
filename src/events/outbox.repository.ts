import type { Client as PgClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import { PENDING } from './delivery-status';
import { changedCount } from '../common/write-statements';

/** Notification channel the outbox trigger (and a manual retry) signals; the relay LISTENs. */
export const OUTBOX_CHANNEL = 'labflow_outbox';

/**
 * The teams a relay works for: null for all (production). Tests sharing one database give each
 * stack's relay its own teams, so a relay never takes another test file's events.
 */
export type TeamScope = readonly string[] | null;

/**
 * A pending delivery's place in the lost-job sweep's order (next_attempt_at, id). The time is
 * Postgres's own text, microseconds included: a JS Date would round it to milliseconds, and the
 * next page would start before the row it is meant to follow.
 */
export interface OverduePosition {
  id: string;
  nextAttemptAt: string;
}

function teamClause(teams: TeamScope, param: number): string {
  return teams ? `AND team_id = ANY($${param}::uuid[])` : '';
}

function teamParams(params: unknown[], teams: TeamScope): unknown[] {
  return teams ? [...params, [...teams]] : params;
}

/** Which of a team's events `latestPerSubject` considers. */
export interface LatestEventsFilter {
  /** Only these subjects (e.g. order ids). */
  subjectIds?: string[];
  /** Only subjects whose latest event was written in [startAt, endAt]. */
  startAt?: Date;
  endAt?: Date;
}

/** The id of a new delivery: time-ordered, so inserts append to the primary key (migration 1763790602000). */
const NEW_DELIVERY_ID = 'labflow_uuid_v7()';

/** The webhook endpoints an event `o` goes to (the join's condition). */
const WEBHOOK_MATCH = `ON e.team_id = o.team_id AND e.environment = o.environment AND NOT e.disabled
            AND (e.filter_types IS NULL OR cardinality(e.filter_types) = 0 OR o.event_type = ANY(e.filter_types))`;

/** The RabbitMQ destinations (pipelines) an event `o` of team `t` goes to (the join's condition). */
const PIPELINE_MATCH = `ON p.team_id = o.team_id AND p.environment = o.environment AND p.region = t.region
            AND 'rabbitmq' = ANY(p.enabled)
            AND (p.event_type_prefixes IS NULL OR cardinality(p.event_type_prefixes) = 0
                 OR EXISTS (SELECT 1 FROM unnest(p.event_type_prefixes) AS prefix WHERE starts_with(o.event_type, prefix)))`;

/**
 * The statement parts (top-level CTEs, to follow `WITH` or a comma) that record events
 * (OutboxRepository.insertEvents), its ten parameters numbered from `first`: the nine column
 * arrays OutboxService.prepare builds (id, event_type, team_id, environment, user_id,
 * client_user_id, data_enc, subject_id, request_id), then the writer's traceparent. An id already
 * there adds nothing. Exported so that a statement writing the state change itself can record its
 * event in the same statement (order creation, OrderReadModel), with the outbox's own columns and
 * conflict rule.
 *
 * The fan-out happens here, in the writer's statement: one delivery per matching enabled webhook
 * endpoint and per matching RabbitMQ destination (as the relay's `claimAndFanOut` makes them for
 * events written without it), and the events are written relayed. Marking an event relayed
 * afterwards was an update of every outbox row (not HOT: `relayed_at` is in two index
 * predicates). The new deliveries are not enqueued (`enqueued_at` NULL): the relay hands them to
 * the delivery worker of its process, or enqueues them (EventRelay).
 */
export function recordEventsCtes(first: number): string {
  const p = (index: number) => `$${first + index}`;
  return `outbox_events AS (
    INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc, subject_id, request_id, trace_parent, relayed_at)
    SELECT *, ${p(9)}::text, clock_timestamp()
      FROM unnest(${p(0)}::uuid[], ${p(1)}::text[], ${p(2)}::uuid[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::text[])
    ON CONFLICT (id) DO NOTHING
    RETURNING id, event_type, team_id, environment, created_at
  ), outbox_webhooks AS (
    INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, created_at)
    SELECT ${NEW_DELIVERY_ID}, o.id, 'webhook', e.id, o.team_id, o.environment, o.event_type, o.created_at
      FROM outbox_events o
      JOIN webhook_endpoints e ${WEBHOOK_MATCH}
    ON CONFLICT DO NOTHING
  ), outbox_destinations AS (
    INSERT INTO event_deliveries (id, event_id, target, pipeline_id, team_id, environment, event_type, created_at)
    SELECT ${NEW_DELIVERY_ID}, o.id, 'rabbitmq', p.id, o.team_id, o.environment, o.event_type, o.created_at
      FROM outbox_events o
      JOIN teams t ON t.id = o.team_id
      JOIN etl_pipelines p ${PIPELINE_MATCH}
    ON CONFLICT DO NOTHING
  )`;
}

/**
 * The SQL of the outbox (`event_outbox`): recording events, the relay's fan-out into deliveries,
 * resending the latest events, and the retention sweep of old events. The fan-out statements read
 * management's delivery targets (the read model "Delivery targets" in src/events/README.md).
 */
export class OutboxRepository {
  constructor(private readonly db: DataSource) {}

  // ------------------------------------------------------------------------------------------
  // Recording

  /**
   * Inserts events in the caller's transaction, one column array per field (id, event_type,
   * team_id, environment, user_id, client_user_id, data_enc, subject_id), all with the writer's
   * `traceParent` (null: none). An id already there adds nothing.
   */
  async insertEvents(manager: EntityManager, columns: Array<Array<string | null>>, traceParent: string | null = null): Promise<void> {
    await manager.query(`WITH ${recordEventsCtes(1)} SELECT 1`, [...columns, traceParent]);
  }

  /** Subscribes a dedicated connection to the outbox channel (the trigger's and a manual retry's NOTIFY). */
  async listen(client: PgClient): Promise<void> {
    await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
  }

  // ------------------------------------------------------------------------------------------
  // Relay

  /**
   * Claims up to `limit` unrelayed events (SKIP LOCKED: relays in other processes take other
   * rows), creates one delivery per matching enabled webhook endpoint and per matching RabbitMQ
   * destination, and marks the events relayed — one transaction. Returns the new delivery ids,
   * and the traceparent of their event for those that have one.
   *
   * The deliveries are written as enqueued already: the relay enqueues their jobs right after
   * the commit and, should that fail (Redis down), hands them back with `markUnenqueued`. Marking
   * them afterwards instead cost a second write of every delivery row (enqueued_at is in an index
   * predicate, so never a HOT update). A relay that dies between the commit and the enqueue leaves
   * them to the lost-job sweep (EVENTS_LOST_JOB_GRACE) rather than to its next pass.
   */
  async claimAndFanOut(limit: number, teams: TeamScope = null): Promise<{ events: number; deliveryIds: string[]; traceParents: Map<string, string> }> {
    return this.db.transaction(async (manager) => {
      const claimed: Array<{ id: string }> = await manager.query(
        `SELECT id FROM event_outbox WHERE relayed_at IS NULL ${teamClause(teams, 2)}
          ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        teamParams([limit], teams),
      );
      if (claimed.length === 0) return { events: 0, deliveryIds: [], traceParents: new Map() };
      const ids = claimed.map((row) => row.id);
      const webhooks: Array<{ id: string; trace_parent: string | null }> = await manager.query(
        `WITH inserted AS (
         INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, created_at, enqueued_at)
         SELECT ${NEW_DELIVERY_ID}, o.id, 'webhook', e.id, o.team_id, o.environment, o.event_type, o.created_at, clock_timestamp()
           FROM event_outbox o
           JOIN webhook_endpoints e ${WEBHOOK_MATCH}
          WHERE o.id = ANY($1::uuid[])
          ORDER BY o.created_at, o.id
         ON CONFLICT DO NOTHING
         RETURNING id, event_id)
         SELECT inserted.id, o.trace_parent FROM inserted JOIN event_outbox o ON o.id = inserted.event_id`,
        [ids],
      );
      const destinations: Array<{ id: string; trace_parent: string | null }> = await manager.query(
        `WITH inserted AS (
         INSERT INTO event_deliveries (id, event_id, target, pipeline_id, team_id, environment, event_type, created_at, enqueued_at)
         SELECT ${NEW_DELIVERY_ID}, o.id, 'rabbitmq', p.id, o.team_id, o.environment, o.event_type, o.created_at, clock_timestamp()
           FROM event_outbox o
           JOIN teams t ON t.id = o.team_id
           JOIN etl_pipelines p ${PIPELINE_MATCH}
          WHERE o.id = ANY($1::uuid[])
          ORDER BY o.created_at, o.id
         ON CONFLICT DO NOTHING
         RETURNING id, event_id)
         SELECT inserted.id, o.trace_parent FROM inserted JOIN event_outbox o ON o.id = inserted.event_id`,
        [ids],
      );
      await manager.query(`UPDATE event_outbox SET relayed_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [ids]);
      const deliveries = [...webhooks, ...destinations];
      const traceParents = new Map(deliveries.flatMap((row) => (row.trace_parent ? [[row.id, row.trace_parent] as const] : [])));
      return { events: ids.length, deliveryIds: deliveries.map((row) => row.id), traceParents };
    });
  }

  /** Deliveries whose jobs could not be enqueued after all: the next pass enqueues them. */
  async markUnenqueued(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.db.query(`UPDATE event_deliveries SET enqueued_at = NULL WHERE id = ANY($1::uuid[]) AND status ${PENDING}`, [deliveryIds]);
  }

  async markEnqueued(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.db.query(`UPDATE event_deliveries SET enqueued_at = clock_timestamp() WHERE id = ANY($1::uuid[]) AND enqueued_at IS NULL`, [deliveryIds]);
  }

  /** Pending deliveries whose job was never (or no longer, after a manual retry) enqueued. */
  async unenqueued(limit: number, teams: TeamScope = null): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM event_deliveries WHERE status = 'pending' AND enqueued_at IS NULL ${teamClause(teams, 2)}
        ORDER BY created_at LIMIT $1`,
      teamParams([limit], teams),
    );
    return rows.map((row) => row.id);
  }

  /**
   * What a relay pass has to do, in one statement: whether events wait unrelayed (written without
   * the fan-out: `claimAndFanOut` takes them) and whether event batches are due
   * (`EventBatchFlusher` — `event_batches` is EventBatchesRepository's table, read here only for
   * this flag); and, with `handOff`, the pending deliveries due now that have no job (fresh from
   * the fan-out, a manual retry) and no attempt in flight (claimed less than `leaseMs` ago), oldest
   * first, but not those named in `except` (handed to the worker already): what the relay hands to
   * the delivery worker of its process, with the traceparent of their event where it has one.
   *
   * A pass used to claim unrelayed events and lock due batches in a transaction each whether there
   * were any or not: six round trips a pass, where most passes of a busy relay (one each time a
   * handed delivery finishes while the worker is full) find neither. Each flag reads a small index
   * (event_outbox_unrelayed, event_batches_due). Prepared (runPrepared): planning it was most of
   * its cost, as it was of the statements it replaces.
   */
  async relayWork(
    handOff: { limit: number; leaseMs: number; except: readonly string[] } | null,
    teams: TeamScope = null,
  ): Promise<{ unrelayed: boolean; batchesDue: boolean; fresh: Array<{ id: string; trace_parent: string | null }> }> {
    const team = (alias: string) => (teams ? `AND ${alias}.team_id = ANY($4::uuid[])` : '');
    const [row] = await runPrepared<{ unrelayed: boolean; batches_due: boolean; fresh: Array<{ id: string; trace_parent: string | null }> | null }>(
      this.db,
      teams ? 'labflow_relay_work_teams' : 'labflow_relay_work',
      `SELECT EXISTS (SELECT 1 FROM event_outbox o WHERE o.relayed_at IS NULL ${team('o')}) AS unrelayed,
              EXISTS (SELECT 1 FROM event_batches b WHERE b.flush_at <= clock_timestamp() ${team('b')}) AS batches_due,
              (SELECT json_agg(json_build_object('id', f.id, 'trace_parent', f.trace_parent) ORDER BY f.created_at)
                 FROM (SELECT d.id, o.trace_parent, d.created_at FROM event_deliveries d JOIN event_outbox o ON o.id = d.event_id
                        WHERE d.status = 'pending' AND d.enqueued_at IS NULL AND d.next_attempt_at <= clock_timestamp()
                          AND (d.unfinished_trigger IS NULL OR d.last_attempt_at <= clock_timestamp() - CAST($2 AS bigint) * interval '1 millisecond')
                          AND d.id <> ALL($3::uuid[]) ${team('d')}
                        ORDER BY d.created_at LIMIT $1) f) AS fresh`,
      teamParams([handOff?.limit ?? 0, Math.round(handOff?.leaseMs ?? 0), [...(handOff?.except ?? [])]], teams),
    );
    return { unrelayed: row.unrelayed, batchesDue: row.batches_due, fresh: row.fresh ?? [] };
  }

  /** Pending deliveries overdue by more than `graceMs`: their job may have been lost. */
  async overdue(graceMs: number, limit: number, teams: TeamScope = null, after: OverduePosition | null = null): Promise<OverduePosition[]> {
    const rows: Array<{ id: string; next_attempt_at: string }> = await this.db.query(
      `SELECT id, next_attempt_at::text FROM event_deliveries
        WHERE status = 'pending' AND enqueued_at IS NOT NULL
          AND next_attempt_at < clock_timestamp() - CAST($1 AS bigint) * interval '1 millisecond'
          AND ($3::timestamptz IS NULL OR (next_attempt_at, id) > ($3::timestamptz, $4::uuid)) ${teamClause(teams, 5)}
        ORDER BY next_attempt_at, id LIMIT $2`,
      teamParams([graceMs, limit, after?.nextAttemptAt ?? null, after?.id ?? null], teams),
    );
    return rows.map((row) => ({ id: row.id, nextAttemptAt: row.next_attempt_at }));
  }

  /**
   * For the lag gauges: seconds since the oldest unrelayed event was written, and since the most
   * overdue pending delivery was due (0 when none). Each side reads one partial index
   * (event_outbox_unrelayed, event_deliveries_due).
   */
  async lagSeconds(): Promise<{ outbox: number; delivery: number }> {
    const [row]: Array<{ outbox: number; delivery: number }> = await this.db.query(
      `SELECT COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - (SELECT min(created_at) FROM event_outbox WHERE relayed_at IS NULL)), 0)::float8 AS outbox,
              GREATEST(COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - (SELECT min(next_attempt_at) FROM event_deliveries WHERE status = 'pending')), 0), 0)::float8 AS delivery`,
    );
    return { outbox: Math.max(0, row.outbox), delivery: row.delivery };
  }

  // ------------------------------------------------------------------------------------------
  // Resend

  /**
   * The latest event of each subject of a team (of the given types), oldest first, at most
   * `limit`; read in the caller's transaction, which then hands the ids to `redeliver`.
   */
  async latestPerSubject(
    manager: EntityManager,
    scope: { teamId: string; environment: string },
    eventTypes: readonly string[],
    filter: LatestEventsFilter,
    limit: number,
  ): Promise<Array<{ id: string; subject_id: string }>> {
    const params: unknown[] = [scope.teamId, scope.environment, [...eventTypes], limit];
    const conditions: string[] = [];
    let subjects = '';
    if (filter.subjectIds) {
      params.push(filter.subjectIds);
      subjects = `AND subject_id = ANY($${params.length}::text[])`;
    }
    if (filter.startAt) {
      params.push(filter.startAt);
      conditions.push(`created_at >= $${params.length}`);
    }
    if (filter.endAt) {
      params.push(filter.endAt);
      conditions.push(`created_at <= $${params.length}`);
    }
    return manager.query(
      `SELECT id, subject_id FROM (
         SELECT DISTINCT ON (subject_id) id, subject_id, created_at
           FROM event_outbox
          WHERE team_id = $1 AND environment = $2 AND event_type = ANY($3::text[]) AND subject_id IS NOT NULL ${subjects}
          ORDER BY subject_id, created_at DESC, id DESC
       ) latest
       ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
       ORDER BY created_at, id LIMIT $4`,
      params,
    );
  }

  /**
   * Sends events again to every enabled webhook endpoint of their team that takes them now:
   * an existing delivery becomes due at once (a manual attempt), a missing one (endpoint created
   * later) is added. The relay enqueues them (NOTIFY wakes it). The webhook id stays the event id.
   */
  async redeliver(manager: EntityManager, eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await manager.query(
      `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, created_at, manual)
       SELECT labflow_uuid_v7(), o.id, 'webhook', e.id, o.team_id, o.environment, o.event_type, o.created_at, true
         FROM event_outbox o
         JOIN webhook_endpoints e
           ON e.team_id = o.team_id AND e.environment = o.environment AND NOT e.disabled
          AND (e.filter_types IS NULL OR cardinality(e.filter_types) = 0 OR o.event_type = ANY(e.filter_types))
        WHERE o.id = ANY($1::uuid[])
       ON CONFLICT (event_id, endpoint_id) DO UPDATE
          SET status = 'pending', status_reason = NULL, manual = true, next_attempt_at = clock_timestamp(),
              enqueued_at = NULL, updated_at = clock_timestamp()`,
      [eventIds],
    );
    await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  }

  // ------------------------------------------------------------------------------------------
  // Retention

  /**
   * Deletes up to `limit` events older than `retentionMs` that were relayed and have no pending
   * delivery, keeping the newest event of each subject (resend sends it however old it is). Their
   * deliveries and attempts go with them (ON DELETE CASCADE). Returns how many were deleted.
   */
  async deleteExpired(retentionMs: number, limit: number): Promise<number> {
    const count = await changedCount(
      this.db,
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
      [retentionMs / 1000, limit],
    );
    return count;
  }
}
