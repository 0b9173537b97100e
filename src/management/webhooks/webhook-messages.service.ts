import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PhiCipher } from '../../common/crypto';
import { conflict, notFound } from '../../common/errors';
import { envelopeOf } from '../../events/catalogue';
import type { AttemptStatus, AttemptTrigger, DeliveryStatus } from '../../events/events.repository';
import { EventsRepository } from '../../events/events.repository';
import { encodeCursor, type KeysetPosition } from '../common/cursor';

/** A message = one event as delivered to one endpoint; its id is the event id (= webhook-id). */
export interface MessageView {
  id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Why a message is cancelled or exhausted (`endpoint_gone`, `endpoint_disabled`, `retries_exhausted`). */
  status_reason: string | null;
  attempt_count: number;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  created_at: string;
  payload?: unknown;
}

export interface AttemptView {
  id: string;
  message_id: string;
  endpoint_id: string;
  attempt_number: number;
  trigger: AttemptTrigger;
  status: AttemptStatus;
  url: string | null;
  response_status_code: number | null;
  /** The first 1000 characters of the response body. */
  response: string | null;
  error: string | null;
  latency_ms: number | null;
  created_at: string;
  finished_at: string | null;
}

export interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
}

interface MessageRow {
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

interface AttemptRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempt_number: number;
  trigger: AttemptTrigger;
  status: AttemptStatus;
  url: string | null;
  response_status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
  latency_ms: number | null;
  created_at: Date;
  finished_at: Date | null;
  keyset_at: string;
}

const KEYSET_AT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS keyset_at`;

/**
 * The management view of deliveries to one webhook endpoint: messages (newest first), their
 * attempts, and a manual retry. Callers check that the endpoint belongs to the team first.
 */
@Injectable()
export class WebhookMessagesService {
  private readonly repo: EventsRepository;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cipher: PhiCipher,
  ) {
    this.repo = new EventsRepository(db);
  }

  async listMessages(
    endpointId: string,
    options: { limit: number; after?: KeysetPosition; status?: DeliveryStatus; eventTypes?: string[] },
  ): Promise<ListPage<MessageView>> {
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
    const rows: MessageRow[] = await this.db.query(
      `SELECT d.id AS delivery_id, d.event_id AS id, d.event_type, d.status, d.status_reason, d.attempt_count,
              d.next_attempt_at, d.last_attempt_at, d.created_at, ${KEYSET_AT('d.created_at')}
         FROM event_deliveries d WHERE ${where}
        ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
      params,
    );
    return page(rows, options.limit, (row) => ({ at: row.keyset_at, id: row.delivery_id }), messageView);
  }

  /** One message with its payload (the envelope as delivered). */
  async getMessage(endpointId: string, eventId: string): Promise<MessageView & { payload: unknown }> {
    const rows: Array<MessageRow & { data_enc: string; team_id: string; user_id: string; client_user_id: string }> =
      await this.db.query(
        `SELECT d.id AS delivery_id, d.event_id AS id, d.event_type, d.status, d.status_reason, d.attempt_count,
                d.next_attempt_at, d.last_attempt_at, d.created_at, ${KEYSET_AT('d.created_at')},
                o.data_enc, o.team_id, o.user_id, o.client_user_id
           FROM event_deliveries d JOIN event_outbox o ON o.id = d.event_id
          WHERE d.endpoint_id = $1 AND d.event_id = $2`,
        [endpointId, eventId],
      );
    const row = rows[0];
    if (!row) throw notFound('Message');
    return { ...messageView(row), payload: envelopeOf(row, this.cipher.decryptJson(row.data_enc)) };
  }

  async listAttempts(
    endpointId: string,
    options: { limit: number; after?: KeysetPosition; eventId?: string; status?: AttemptStatus },
  ): Promise<ListPage<AttemptView>> {
    const params: unknown[] = [endpointId, options.limit + 1];
    let where = 'a.endpoint_id = $1';
    if (options.eventId) {
      params.push(options.eventId);
      where += ` AND a.event_id = $${params.length}`;
    }
    if (options.status) {
      params.push(options.status);
      where += ` AND a.status = $${params.length}`;
    }
    if (options.after) {
      params.push(options.after.at, options.after.id);
      where += ` AND (a.created_at, a.id) < (CAST($${params.length - 1} AS timestamp) AT TIME ZONE 'UTC', CAST($${params.length} AS uuid))`;
    }
    const rows: AttemptRow[] = await this.db.query(
      `SELECT a.id, a.event_id, a.endpoint_id, a.attempt_number, a.trigger, a.status, a.url, a.response_status_code,
              a.response_excerpt, a.error, a.latency_ms, a.created_at, a.finished_at, ${KEYSET_AT('a.created_at')}
         FROM event_delivery_attempts a WHERE ${where}
        ORDER BY a.created_at DESC, a.id DESC LIMIT $2`,
      params,
    );
    return page(rows, options.limit, (row) => ({ at: row.keyset_at, id: row.id }), attemptView);
  }

  /** Whether the endpoint has this message at all (404 for the attempts of an unknown one). */
  async requireMessage(endpointId: string, eventId: string): Promise<void> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM event_deliveries WHERE endpoint_id = $1 AND event_id = $2`, [
      endpointId,
      eventId,
    ]);
    if (rows.length === 0) throw notFound('Message');
  }

  /**
   * Sends the message to the endpoint again, now, whatever its state: a pending message's next
   * attempt is brought forward; a finished one gets a new attempt (trigger `manual`), and
   * scheduled retries if it fails. The webhook id stays the event id.
   */
  async retry(endpointId: string, eventId: string, endpointDisabled: boolean): Promise<MessageView> {
    if (endpointDisabled) throw conflict('The webhook endpoint is disabled; enable it before retrying a message.');
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM event_deliveries WHERE endpoint_id = $1 AND event_id = $2`,
      [endpointId, eventId],
    );
    if (!rows[0]) throw notFound('Message');
    await this.db.transaction((manager) => this.repo.requestManualAttempt(manager, rows[0].id));
    const { payload: _payload, ...view } = await this.getMessage(endpointId, eventId);
    return view;
  }
}

function page<R, V>(rows: R[], limit: number, position: (row: R) => KeysetPosition, view: (row: R) => V): ListPage<V> {
  const items = rows.slice(0, limit);
  const next = rows.length > limit ? encodeCursor(position(items[items.length - 1])) : null;
  return { data: items.map(view), next_cursor: next };
}

function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    event_type: row.event_type,
    status: row.status,
    status_reason: row.status_reason,
    attempt_count: row.attempt_count,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

function attemptView(row: AttemptRow): AttemptView {
  return {
    id: row.id,
    message_id: row.event_id,
    endpoint_id: row.endpoint_id,
    attempt_number: row.attempt_number,
    trigger: row.trigger,
    status: row.status,
    url: row.url,
    response_status_code: row.response_status_code,
    response: row.response_excerpt,
    error: row.error,
    latency_ms: row.latency_ms,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
