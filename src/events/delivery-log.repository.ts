import type { DataSource } from 'typeorm';
import type { AttemptStatus, AttemptTrigger } from './delivery-attempts.types';
import type { DeliveryStatus } from './delivery-status';

/** A place in a newest-first listing: the row's created_at (`YYYY-MM-DDTHH:MM:SS.ffffff`, UTC) and id. */
export interface LogPosition {
  at: string;
  id: string;
}

/** A delivery to one endpoint, as the message listing reads it. */
export interface MessageRow {
  delivery_id: string;
  id: string;
  event_type: string;
  status: DeliveryStatus;
  status_reason: string | null;
  attempt_count: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  created_at: Date;
  keyset_at: string;
}

/** A message with the event it carries (still encrypted). */
export type MessageWithEventRow = MessageRow & { data_enc: string; team_id: string; user_id: string; client_user_id: string };

export interface AttemptRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempt_number: number;
  trigger: AttemptTrigger;
  status: AttemptStatus;
  url: string | null;
  response_status_code: number | null;
  /** Sealed (PhiCipher.encrypt). */
  response_excerpt_enc: string | null;
  /** An excerpt recorded in plaintext before excerpts were sealed. */
  response_excerpt: string | null;
  error: string | null;
  latency_ms: number | null;
  created_at: Date;
  finished_at: Date | null;
  keyset_at: string;
}

/** One delivery as an operator replays it: where it goes and whether that target still takes events. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  target: 'webhook' | 'rabbitmq';
  endpoint_id: string | null;
  pipeline_id: string | null;
  team_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** The endpoint is disabled, or the pipeline no longer sends to RabbitMQ. */
  target_disabled: boolean;
}

/** An event of one subject (an order) with its deliveries, for an operator's view. */
export interface SubjectEventRow {
  id: string;
  event_type: string;
  created_at: Date;
  relayed_at: Date | null;
}

/** A delivery of one of those events (any target): a message's columns and where it goes. */
export type SubjectDeliveryRow = Pick<MessageRow, 'status' | 'status_reason' | 'attempt_count' | 'next_attempt_at' | 'last_attempt_at' | 'created_at'> &
  Pick<DeliveryRow, 'id' | 'event_id' | 'target' | 'endpoint_id' | 'pipeline_id'>;

/** An attempt row's columns, as AttemptRow names them (keyset_at aside). */
const ATTEMPT_COLUMNS = `a.id, a.event_id, a.endpoint_id, a.attempt_number, a.trigger, a.status, a.url, a.response_status_code,
  a.response_excerpt_enc, a.response_excerpt, a.error, a.latency_ms, a.created_at, a.finished_at`;

/**
 * A first attempt that succeeded, written on its delivery row (DeliveriesRepository.finishAttempts),
 * as an attempt row: attempt 1, its id the delivery's (attempt ids are random, so none collides).
 */
const INLINE_ATTEMPT = `d.id, d.event_id, d.endpoint_id, 1 AS attempt_number, d.first_attempt_trigger AS trigger, 'succeeded' AS status,
  d.first_attempt_url AS url, d.first_attempt_status_code AS response_status_code, d.first_attempt_response_enc AS response_excerpt_enc,
  NULL::text AS response_excerpt, NULL::text AS error, d.first_attempt_latency_ms AS latency_ms, d.first_attempt_at AS created_at,
  d.first_attempt_finished_at AS finished_at`;

const KEYSET_AT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS keyset_at`;

/**
 * The read side of deliveries for the management API (src/management/webhooks): the messages of
 * one webhook endpoint (newest first), their payloads and attempts. One row more than `limit` is
 * returned when there is a next page.
 */
export class DeliveryLogRepository {
  constructor(private readonly db: DataSource) {}

  listMessages(endpointId: string, options: { limit: number; after?: LogPosition; status?: DeliveryStatus; eventTypes?: string[] }): Promise<MessageRow[]> {
    const params: unknown[] = [endpointId, options.limit + 1];
    let where = 'd.endpoint_id = $1';
    if (options.status) {
      params.push(options.status);
      where += ` AND d.status = $${params.length}`;
    }
    if (options.eventTypes?.length) {
      params.push(options.eventTypes);
      where += ` AND d.event_type = ANY($${params.length}::text[])`;
    }
    if (options.after) {
      params.push(options.after.at, options.after.id);
      where += ` AND (d.created_at, d.id) < (CAST($${params.length - 1} AS timestamp) AT TIME ZONE 'UTC', CAST($${params.length} AS uuid))`;
    }
    return this.db.query(
      `SELECT d.id AS delivery_id, d.event_id AS id, d.event_type, d.status, d.status_reason, d.attempt_count,
              d.next_attempt_at, d.last_attempt_at, d.created_at, ${KEYSET_AT('d.created_at')}
         FROM event_deliveries d WHERE ${where}
        ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
      params,
    );
  }

  /** The endpoint's message of this event, with the event, if any. */
  async findMessage(endpointId: string, eventId: string): Promise<MessageWithEventRow | null> {
    const rows: MessageWithEventRow[] = await this.db.query(
      `SELECT d.id AS delivery_id, d.event_id AS id, d.event_type, d.status, d.status_reason, d.attempt_count,
              d.next_attempt_at, d.last_attempt_at, d.created_at, ${KEYSET_AT('d.created_at')},
              o.data_enc, o.team_id, o.user_id, o.client_user_id
         FROM event_deliveries d JOIN event_outbox o ON o.id = d.event_id
        WHERE d.endpoint_id = $1 AND d.event_id = $2`,
      [endpointId, eventId],
    );
    return rows[0] ?? null;
  }

  /**
   * The endpoint's attempts, newest first: the rows of `event_delivery_attempts` and the first
   * attempts that succeeded, which are written on their delivery row (INLINE_ATTEMPT) — each side
   * read newest first through its own index, merged.
   */
  listAttempts(endpointId: string, options: { limit: number; after?: LogPosition; eventId?: string; status?: AttemptStatus }): Promise<AttemptRow[]> {
    const params: unknown[] = [endpointId, options.limit + 1];
    let rows = 'a.endpoint_id = $1';
    let inline = 'd.endpoint_id = $1 AND d.first_attempt_at IS NOT NULL';
    if (options.eventId) {
      params.push(options.eventId);
      rows += ` AND a.event_id = $${params.length}`;
      inline += ` AND d.event_id = $${params.length}`;
    }
    if (options.status) {
      params.push(options.status);
      rows += ` AND a.status = $${params.length}`;
      inline += ` AND $${params.length} = 'succeeded'`;
    }
    if (options.after) {
      params.push(options.after.at, options.after.id);
      const position = `(CAST($${params.length - 1} AS timestamp) AT TIME ZONE 'UTC', CAST($${params.length} AS uuid))`;
      rows += ` AND (a.created_at, a.id) < ${position}`;
      inline += ` AND (d.first_attempt_at, d.id) < ${position}`;
    }
    return this.db.query(
      `SELECT x.*, ${KEYSET_AT('x.created_at')} FROM (
         (SELECT ${ATTEMPT_COLUMNS} FROM event_delivery_attempts a WHERE ${rows} ORDER BY a.created_at DESC, a.id DESC LIMIT $2)
         UNION ALL
         (SELECT ${INLINE_ATTEMPT} FROM event_deliveries d WHERE ${inline} ORDER BY d.first_attempt_at DESC, d.id DESC LIMIT $2)
       ) x ORDER BY x.created_at DESC, x.id DESC LIMIT $2`,
      params,
    );
  }

  /** Whether the endpoint has a message of this event. */
  async hasMessage(endpointId: string, eventId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM event_deliveries WHERE endpoint_id = $1 AND event_id = $2`, [endpointId, eventId]);
    return rows.length > 0;
  }

  /** The id of the endpoint's delivery of this event, if any. */
  async findDeliveryId(endpointId: string, eventId: string): Promise<string | null> {
    const rows: Array<{ id: string }> = await this.db.query(`SELECT id FROM event_deliveries WHERE endpoint_id = $1 AND event_id = $2`, [endpointId, eventId]);
    return rows[0]?.id ?? null;
  }

  /** A delivery by its id, with whether its target still takes events. */
  async findDelivery(deliveryId: string): Promise<DeliveryRow | null> {
    const rows: DeliveryRow[] = await this.db.query(
      `SELECT d.id, d.event_id, d.event_type, d.target, d.endpoint_id, d.pipeline_id, d.team_id, d.status, d.attempt_count,
              CASE d.target WHEN 'webhook' THEN coalesce(e.disabled, true)
                            ELSE p.id IS NULL OR NOT ('rabbitmq' = ANY(p.enabled)) END AS target_disabled
         FROM event_deliveries d
         LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
         LEFT JOIN etl_pipelines p ON p.id = d.pipeline_id
        WHERE d.id = $1`,
      [deliveryId],
    );
    return rows[0] ?? null;
  }

  /** The events of a subject (an order id), oldest first, their deliveries and the attempts of those. */
  async ofSubject(
    teamId: string,
    subjectId: string,
  ): Promise<{ events: SubjectEventRow[]; deliveries: SubjectDeliveryRow[]; attempts: Array<AttemptRow & { delivery_id: string }> }> {
    const events: SubjectEventRow[] = await this.db.query(
      `SELECT id, event_type, created_at, relayed_at FROM event_outbox
        WHERE team_id = $1 AND subject_id = $2 ORDER BY created_at, id`,
      [teamId, subjectId],
    );
    const eventIds = events.map((event) => event.id);
    if (eventIds.length === 0) return { events, deliveries: [], attempts: [] };
    const deliveries: SubjectDeliveryRow[] = await this.db.query(
      `SELECT id, event_id, target, endpoint_id, pipeline_id, status, status_reason, attempt_count, next_attempt_at,
              last_attempt_at, created_at
         FROM event_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY created_at, id`,
      [eventIds],
    );
    const attempts: Array<AttemptRow & { delivery_id: string }> = deliveries.length ? await this.attemptsOf(deliveries.map((delivery) => delivery.id)) : [];
    return { events, deliveries, attempts };
  }

  /** Every attempt of these deliveries (rows and first attempts on the delivery row), by delivery and attempt number. */
  attemptsOf(deliveryIds: readonly string[]): Promise<Array<AttemptRow & { delivery_id: string }>> {
    return this.db.query(
      `SELECT x.*, ${KEYSET_AT('x.created_at')} FROM (
         SELECT a.delivery_id, ${ATTEMPT_COLUMNS} FROM event_delivery_attempts a WHERE a.delivery_id = ANY($1::uuid[])
         UNION ALL
         SELECT d.id, ${INLINE_ATTEMPT} FROM event_deliveries d WHERE d.id = ANY($1::uuid[]) AND d.first_attempt_at IS NOT NULL
       ) x ORDER BY x.delivery_id, x.attempt_number`,
      [[...deliveryIds]],
    );
  }
}
