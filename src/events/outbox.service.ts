import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import type { NewEvent } from '../../workflows/contract';
import { PhiCipher } from '../common/crypto';
import { currentTraceParent } from '../common/tracing/trace-context';
import { currentRequestId } from '../common/request-context';
import { isEventType } from './catalogue';
import { eventIdFor } from './event-id';
import { OutboxRepository } from './outbox.repository';

export type { NewEvent } from '../../workflows/contract';

/** Events ready to insert (OutboxService.prepare): the parameters of recordEventsCtes. */
export interface PreparedEvents {
  /** The events' ids, input order. */
  ids: string[];
  /** One array per column, as recordEventsCtes takes them. */
  columns: Array<Array<string | null>>;
  traceParent: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id an event gets: its eventId, else the UUID v5 of its idempotencyKey, else random. */
export function resolveEventId(event: Pick<NewEvent, 'eventId' | 'idempotencyKey'>): string {
  if (event.eventId !== undefined) {
    if (!UUID.test(event.eventId)) throw new Error(`eventId must be a UUID: ${event.eventId}`);
    return event.eventId.toLowerCase();
  }
  return event.idempotencyKey !== undefined ? eventIdFor(event.idempotencyKey) : randomUUID();
}

/** The resource an event is about: subjectId, else `data.id`, else `data.order_id` (strings only). */
export function subjectOf(event: Pick<NewEvent, 'subjectId' | 'data'>): string | null {
  if (event.subjectId !== undefined) return event.subjectId;
  const data = event.data as { id?: unknown; order_id?: unknown } | null | undefined;
  if (typeof data?.id === 'string') return data.id;
  if (typeof data?.order_id === 'string') return data.order_id;
  return null;
}

/**
 * The transactional outbox. `record` writes events with the caller's EntityManager, so they
 * commit (or roll back) with the state change that causes them; the relay (src/events/relay.ts)
 * then fans them out to webhook endpoints and event destinations. The payload is stored
 * encrypted (order events carry patient details).
 */
@Injectable()
export class OutboxService {
  private readonly repo: OutboxRepository;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cipher: PhiCipher,
  ) {
    this.repo = new OutboxRepository(db);
  }

  /**
   * Inserts the events inside the caller's transaction and returns their ids (input order).
   * ON CONFLICT (id) DO NOTHING: recording an event id again (a retried request or activity)
   * adds nothing, and the first write wins.
   */
  async record(manager: EntityManager, events: NewEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const { ids, columns, traceParent } = this.prepare(events);
    await this.repo.insertEvents(manager, columns, traceParent);
    return ids;
  }

  /**
   * The rows `record` would insert, checked and encrypted, without inserting them: for a
   * statement that writes its state change and its events at once (recordEventsCtes), so they
   * commit together without a transaction of several statements (order creation).
   */
  prepare(events: NewEvent[]): PreparedEvents {
    const ids = events.map(resolveEventId);
    const columns: Array<Array<string | null>> = [[], [], [], [], [], [], [], [], []];
    // The request behind these events (its id reaches activities through a Temporal header).
    const requestId = currentRequestId() ?? null;
    events.forEach((event, index) => {
      if (!isEventType(event.eventType)) throw new Error(`Unknown event type: ${event.eventType}`);
      if (event.environment !== 'sandbox' && event.environment !== 'production') {
        throw new Error(`Unknown environment: ${String(event.environment)}`);
      }
      const row = [
        ids[index],
        event.eventType,
        event.teamId,
        event.environment,
        event.userId,
        event.clientUserId,
        this.cipher.encryptJson(event.data ?? null),
        subjectOf(event),
        requestId,
      ];
      row.forEach((value, column) => columns[column].push(value));
    });
    // The writer's trace (a request, an activity) goes with the events to their deliveries.
    return { ids, columns, traceParent: currentTraceParent() };
  }

  /** `record` in a transaction of its own (the emitEvents activity, scripts). */
  emit(events: NewEvent[]): Promise<string[]> {
    return this.db.transaction((manager) => this.record(manager, events));
  }
}
