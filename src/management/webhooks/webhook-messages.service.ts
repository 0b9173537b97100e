import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PhiCipher } from '../../common/crypto';
import { conflict, notFound } from '../../common/errors';
import { envelopeOf } from '../../events/catalogue';
import type { AttemptStatus, AttemptTrigger } from '../../events/delivery-attempts.types';
import type { DeliveryStatus } from '../../events/delivery-status';
import { DeliveriesRepository } from '../../events/deliveries.repository';
import { type AttemptRow, DeliveryLogRepository, type MessageRow } from '../../events/delivery-log.repository';
import { encodeCursor, type KeysetPosition } from '../../common/keyset-cursor';

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

/**
 * The management view of deliveries to one webhook endpoint: messages (newest first), their
 * attempts, and a manual retry. Callers check that the endpoint belongs to the team first.
 */
@Injectable()
export class WebhookMessagesService {
  private readonly log: DeliveryLogRepository;
  private readonly deliveries: DeliveriesRepository;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cipher: PhiCipher,
  ) {
    this.log = new DeliveryLogRepository(db);
    this.deliveries = new DeliveriesRepository(db);
  }

  async listMessages(
    endpointId: string,
    options: { limit: number; after?: KeysetPosition; status?: DeliveryStatus; eventTypes?: string[] },
  ): Promise<ListPage<MessageView>> {
    const rows = await this.log.listMessages(endpointId, options);
    return page(rows, options.limit, (row) => ({ at: row.keyset_at, id: row.delivery_id }), messageView);
  }

  /** One message with its payload (the envelope as delivered). */
  async getMessage(endpointId: string, eventId: string): Promise<MessageView & { payload: unknown }> {
    const row = await this.log.findMessage(endpointId, eventId);
    if (!row) throw notFound('Message');
    return { ...messageView(row), payload: envelopeOf(row, this.cipher.decryptJson(row.data_enc)) };
  }

  async listAttempts(
    endpointId: string,
    options: { limit: number; after?: KeysetPosition; eventId?: string; status?: AttemptStatus },
  ): Promise<ListPage<AttemptView>> {
    const rows = await this.log.listAttempts(endpointId, options);
    return page(
      rows,
      options.limit,
      (row) => ({ at: row.keyset_at, id: row.id }),
      (row) => attemptView(row, this.cipher),
    );
  }

  /** Whether the endpoint has this message at all (404 for the attempts of an unknown one). */
  async requireMessage(endpointId: string, eventId: string): Promise<void> {
    if (!(await this.log.hasMessage(endpointId, eventId))) throw notFound('Message');
  }

  /**
   * Sends the message to the endpoint again, now, whatever its state: a pending message's next
   * attempt is brought forward; a finished one gets a new attempt (trigger `manual`), and
   * scheduled retries if it fails. The webhook id stays the event id.
   */
  async retry(endpointId: string, eventId: string, endpointDisabled: boolean): Promise<MessageView> {
    if (endpointDisabled) throw conflict('The webhook endpoint is disabled; enable it before retrying a message.');
    const deliveryId = await this.log.findDeliveryId(endpointId, eventId);
    if (!deliveryId) throw notFound('Message');
    await this.db.transaction((manager) => this.deliveries.requestManualAttempt(manager, deliveryId));
    const { payload: _payload, ...view } = await this.getMessage(endpointId, eventId);
    return view;
  }

  /**
   * Svix's recover: sends again every message of the endpoint since `since` that failed for good
   * (exhausted, or cancelled while the endpoint was disabled). How many were queued.
   */
  async recover(endpointId: string, since: Date, endpointDisabled: boolean): Promise<{ recovered: number }> {
    if (endpointDisabled) throw conflict('The webhook endpoint is disabled; enable it before recovering its messages.');
    const recovered = await this.db.transaction((manager) => this.deliveries.requestManualAttemptsSince(manager, endpointId, since));
    return { recovered };
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

function attemptView(row: AttemptRow, cipher: PhiCipher): AttemptView {
  return {
    id: row.id,
    message_id: row.event_id,
    endpoint_id: row.endpoint_id,
    attempt_number: row.attempt_number,
    trigger: row.trigger,
    status: row.status,
    url: row.url,
    response_status_code: row.response_status_code,
    response: row.response_excerpt_enc !== null ? cipher.decrypt(row.response_excerpt_enc) : row.response_excerpt,
    error: row.error,
    latency_ms: row.latency_ms,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
