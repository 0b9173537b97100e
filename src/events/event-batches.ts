import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DataSource, type EntityManager } from 'typeorm';
import { PhiCipher } from '../common/crypto';
import { currentRequestId } from '../common/request-context';
import { currentTraceParent } from '../common/tracing/trace-context';
import { isEventType } from './catalogue';
import { type BatchRow, EventBatchesRepository } from './event-batches.repository';
import type { TeamScope } from './outbox.repository';
import { type NewEvent, resolveEventId } from './outbox.service';

/** How a batch is bounded: open for `windowMs` after its first append, at most `maxItems` items and `maxBytes` of item JSON. */
export interface BatchBounds {
  windowMs: number;
  maxItems: number;
  maxBytes: number;
}

/** Items for the batched event of one key. */
export interface BatchAppend {
  eventType: NewEvent['eventType'];
  teamId: string;
  environment: NewEvent['environment'];
  userId: string;
  clientUserId: string;
  /**
   * What else separates batches of the same user and event type (for timeseries: provider and
   * source type). Batches are sealed by a prefix of it (`sealOpen`).
   */
  group: string;
  /** The event's `data` but its list of items, which goes in `itemsField`. */
  envelope: Record<string, unknown>;
  itemsField: string;
  /**
   * The items with their identity (within one event, a later item with the same key replaces an
   * earlier one), each as its JSON (batchItem): callers that make thousands write them directly.
   */
  items: BatchItem[];
}

/**
 * Events whose items are gathered across requests (timeseries samples): instead of an event per
 * request, an append goes into the open batch of its key — team, environment, user, event type
 * and group — which becomes one event when its window closes or its bounds are reached; more
 * items than fit go on into further batches, each one event under the bounds.
 *
 * Batches are rows in Postgres, written in the caller's transaction like outbox rows, so they
 * commit and roll back with the data and survive any process; the relay flushes due ones into the
 * outbox (EventBatchFlusher). The event id is the batch's id, fixed when it opened.
 */
@Injectable()
export class EventBatchesService {
  private readonly repo: EventBatchesRepository;

  constructor(
    @InjectDataSource() db: DataSource,
    private readonly cipher: PhiCipher,
  ) {
    this.repo = new EventBatchesRepository(db);
  }

  /** Appends the items; answers how many batches (future events) they went into. */
  async append(manager: EntityManager, append: BatchAppend, bounds: BatchBounds): Promise<number> {
    if (append.items.length === 0) return 0;
    if (!isEventType(append.eventType)) throw new Error(`Unknown event type: ${append.eventType}`);
    const row = (open: boolean, dueInMs: number): BatchRow => ({
      id: randomUUID(),
      batchKey: open ? batchKeyOf(append) : null,
      open,
      eventType: append.eventType,
      teamId: append.teamId,
      environment: append.environment,
      userId: append.userId,
      clientUserId: append.clientUserId,
      batchGroup: append.group,
      envelopeEnc: this.cipher.encryptJson(append.envelope),
      itemsField: append.itemsField,
      itemCount: 0,
      itemBytes: 0,
      dueInMs,
      requestId: currentRequestId() ?? null,
      traceParent: currentTraceParent(),
    });
    const first = await this.repo.lockOpen(manager, row(true, bounds.windowMs));
    const chunks = fill(append.items, { count: first.itemCount, bytes: first.itemBytes }, bounds);

    // The first chunk joins the open batch; the others are batches of their own, sealed (due now)
    // when full, the last one left open for the next append.
    const items: Array<{ batchId: string; count: number; items: Buffer }> = [];
    const added: BatchRow[] = [];
    chunks.forEach((chunk, index) => {
      const batchId = index === 0 ? first.id : randomUUID();
      if (index > 0) {
        const open = index === chunks.length - 1 && !chunk.full;
        added.push({ ...row(open, open ? bounds.windowMs : 0), id: batchId, itemCount: chunk.items.length, itemBytes: chunk.bytes });
      }
      // The JSON of [[key, item], ...], as the flush reads it.
      const list = `[${chunk.items.map((item) => item.entry).join(',')}]`;
      items.push({ batchId, count: chunk.items.length, items: sealItems(list, this.cipher) });
    });
    const [head] = chunks;
    if (head.items.length > 0 || head.full)
      await this.repo.grow(manager, { id: first.id, addCount: head.items.length, addBytes: head.bytes, seal: head.full || chunks.length > 1 });
    await this.repo.insert(manager, added);
    await this.repo.insertItems(
      manager,
      items.filter((item) => item.count > 0),
    );
    if (chunks.length > 1 || head.full) await this.repo.notify(manager);
    return chunks.filter((chunk) => chunk.items.length > 0).length;
  }

  /**
   * Records `event` behind the user's open batches of `eventTypes` in groups starting with
   * `groupPrefix`, which are sealed (due now): the relay writes them to the outbox first.
   */
  async enqueueAfterBatches(manager: EntityManager, scope: { eventTypes: string[]; groupPrefix: string }, event: NewEvent): Promise<void> {
    if (!isEventType(event.eventType)) throw new Error(`Unknown event type: ${event.eventType}`);
    await this.repo.sealOpen(manager, { teamId: event.teamId, environment: event.environment, userId: event.userId, ...scope });
    await this.repo.insert(manager, [
      {
        // A keyed event (a backfill's end, sent again) is queued once: same id, the insert skips it.
        id: event.eventId !== undefined || event.idempotencyKey !== undefined ? resolveEventId(event) : randomUUID(),
        batchKey: null,
        open: false,
        eventType: event.eventType,
        teamId: event.teamId,
        environment: event.environment,
        userId: event.userId,
        clientUserId: event.clientUserId,
        batchGroup: null,
        envelopeEnc: this.cipher.encryptJson(event.data ?? null),
        itemsField: null,
        itemCount: 0,
        itemBytes: 0,
        dueInMs: 0,
        requestId: currentRequestId() ?? null,
        traceParent: currentTraceParent(),
      },
    ]);
    await this.repo.notify(manager);
  }

  /** Batches not yet flushed (a team's, or all). */
  pending(teamId?: string): Promise<number> {
    return this.repo.pendingCount(teamId);
  }
}

/**
 * An item list as stored: its JSON compressed (raw deflate, level 1), then encrypted. Sample
 * lists repeat the same keys and time formats, so they shrink about 14 times (290 KB to 21 KB for
 * 2,500 heart-rate samples) for about a millisecond of CPU; uncompressed, writing them cost
 * Postgres as much as storing the samples themselves. (Compressing before encrypting reveals
 * only the compressed size, to whoever reads the database; the content is the user's own.)
 */
function sealItems(json: string, cipher: PhiCipher): Buffer {
  return cipher.encryptBytes(deflateRawSync(Buffer.from(json, 'utf8'), { level: 1 }));
}

function openItems(sealed: Buffer, cipher: PhiCipher): string {
  return inflateRawSync(cipher.decryptBytes(sealed)).toString('utf8');
}

function batchKeyOf(append: BatchAppend): string {
  return [append.teamId, append.environment, append.userId, append.eventType, append.group].join('|');
}

/**
 * An item of a batch: `[key, item]` as JSON (the stored list is these entries in an array; a
 * later entry with the same key replaces an earlier one), and what the item counts towards
 * maxBytes: the length of its JSON plus a separator.
 */
export interface BatchItem {
  entry: string;
  bytes: number;
}

/** The batch item of the item `json` (its JSON) under `key`. */
export function batchItem(key: string, json: string): BatchItem {
  return { entry: `[${JSON.stringify(key)},${json}]`, bytes: json.length + 1 };
}

interface Chunk {
  items: BatchItem[];
  bytes: number;
  /** Reached a bound: sealed. */
  full: boolean;
}

/**
 * Splits items into chunks under the bounds, the first one continuing a batch that already holds
 * `start`. An item larger than maxBytes alone still makes a chunk of one (it cannot be split).
 */
export function fill(items: BatchItem[], start: { count: number; bytes: number }, bounds: Pick<BatchBounds, 'maxItems' | 'maxBytes'>): Chunk[] {
  const chunks: Chunk[] = [];
  let current: Chunk = { items: [], bytes: 0, full: false };
  let count = start.count;
  let bytes = start.bytes;
  for (const entry of items) {
    const size = entry.bytes;
    if (count > 0 && (count + 1 > bounds.maxItems || bytes + size > bounds.maxBytes)) {
      current.full = true;
      chunks.push(current);
      current = { items: [], bytes: 0, full: false };
      count = 0;
      bytes = 0;
    }
    current.items.push(entry);
    current.bytes += size;
    count++;
    bytes += size;
  }
  if (count >= bounds.maxItems || bytes >= bounds.maxBytes) current.full = true;
  chunks.push(current);
  return chunks;
}

/**
 * The relay's side: turns due batches into outbox events, oldest first, in one transaction per
 * round (rows locked by an appender are left for the next pass). Items with the same key keep
 * their first place and their latest value.
 */
export class EventBatchFlusher {
  constructor(
    private readonly repo: EventBatchesRepository,
    private readonly cipher: PhiCipher,
  ) {}

  /** Flushes due batches, `limit` per transaction; answers how many events it wrote. */
  async flushDue(teams: TeamScope = null, limit = 200): Promise<number> {
    let written = 0;
    for (;;) {
      const count = await this.repo.transaction(async (manager) => {
        const due = await this.repo.lockDue(manager, limit, teams);
        if (due.length === 0) return 0;
        const itemLists = new Map<string, Array<[string, unknown]>>();
        for (const row of await this.repo.items(
          manager,
          due.filter((batch) => batch.items_field).map((batch) => batch.id),
        )) {
          const list = itemLists.get(row.batch_id) ?? [];
          const json = row.items ? openItems(row.items, this.cipher) : this.cipher.decrypt(row.items_enc as string);
          for (const entry of JSON.parse(json) as Array<[string, unknown]>) list.push(entry);
          itemLists.set(row.batch_id, list);
        }
        const events = due.flatMap((batch) => {
          let data = this.cipher.decryptJson<unknown>(batch.envelope_enc);
          if (batch.items_field) {
            const latest = new Map<string, unknown>();
            for (const [key, item] of itemLists.get(batch.id) ?? []) latest.set(key, item);
            // Never empty as written (a batch opens with its first items); nothing to send if so.
            if (latest.size === 0) return [];
            data = { ...(data as Record<string, unknown>), [batch.items_field]: [...latest.values()] };
          }
          return [
            {
              id: batch.id,
              eventType: batch.event_type,
              teamId: batch.team_id,
              environment: batch.environment,
              userId: batch.user_id,
              clientUserId: batch.client_user_id,
              dataEnc: this.cipher.encryptJson(data),
              requestId: batch.request_id,
              traceParent: batch.trace_parent,
            },
          ];
        });
        await this.repo.replaceWithEvents(
          manager,
          events,
          due.map((batch) => batch.id),
        );
        return due.length;
      });
      written += count;
      if (count < limit) return written;
    }
  }
}
