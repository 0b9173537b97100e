import type { DataSource, EntityManager } from 'typeorm';
import { OUTBOX_CHANNEL, type TeamScope } from './outbox.repository';

/** A batch row as written (its event's envelope fields, encrypted data parts). */
export interface BatchRow {
  id: string;
  /** Null: a single event queued behind the batches (no items). */
  batchKey: string | null;
  open: boolean;
  eventType: string;
  teamId: string;
  environment: string;
  userId: string;
  clientUserId: string;
  batchGroup: string | null;
  envelopeEnc: string;
  itemsField: string | null;
  itemCount: number;
  itemBytes: number;
  /** Milliseconds from now until it is due (0: due now). */
  dueInMs: number;
  requestId: string | null;
  traceParent: string | null;
}

/** What an append changes of an existing batch. */
export interface BatchGrowth {
  id: string;
  addCount: number;
  addBytes: number;
  seal: boolean;
}

/** A due batch, as the flush reads it. */
export interface DueBatch {
  id: string;
  event_type: string;
  team_id: string;
  environment: string;
  user_id: string;
  client_user_id: string;
  envelope_enc: string;
  items_field: string | null;
  request_id: string | null;
  trace_parent: string | null;
}

/**
 * The SQL of `event_batches` and `event_batch_items` (src/events/event-batches.ts): appending
 * under the open batch's row lock, sealing, and the relay's flush of due batches into
 * `event_outbox`.
 */
export class EventBatchesRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The open batch of `row.batchKey`, created from `row` when there is none, locked until the
   * caller's transaction ends (concurrent appenders of the same key wait for each other).
   */
  async lockOpen(manager: EntityManager, row: BatchRow): Promise<{ id: string; itemCount: number; itemBytes: number }> {
    const [locked]: Array<{ id: string; item_count: number; item_bytes: number }> = await manager.query(
      `INSERT INTO event_batches (id, batch_key, open, event_type, team_id, environment, user_id, client_user_id, batch_group,
                                  envelope_enc, items_field, item_count, item_bytes, flush_at, request_id, trace_parent)
       VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8, $9, $10, 0, 0, clock_timestamp() + $11::bigint * interval '1 millisecond', $12, $13)
       ON CONFLICT (batch_key) WHERE open DO UPDATE SET batch_key = EXCLUDED.batch_key
       RETURNING id, item_count, item_bytes`,
      [
        row.id,
        row.batchKey,
        row.eventType,
        row.teamId,
        row.environment,
        row.userId,
        row.clientUserId,
        row.batchGroup,
        row.envelopeEnc,
        row.itemsField,
        Math.round(row.dueInMs),
        row.requestId,
        row.traceParent,
      ],
    );
    return { id: locked.id, itemCount: locked.item_count, itemBytes: locked.item_bytes };
  }

  /** Adds batches (further ones of an append, or a queued single event). */
  async insert(manager: EntityManager, rows: BatchRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <T>(pick: (row: BatchRow) => T): T[] => rows.map(pick);
    await manager.query(
      `INSERT INTO event_batches (id, batch_key, open, event_type, team_id, environment, user_id, client_user_id, batch_group,
                                  envelope_enc, items_field, item_count, item_bytes, flush_at, request_id, trace_parent)
       SELECT id, batch_key, open, event_type, team_id, environment, user_id, client_user_id, batch_group,
              envelope_enc, items_field, item_count, item_bytes, clock_timestamp() + due_ms * interval '1 millisecond',
              request_id, trace_parent
         FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
                     $10::text[], $11::text[], $12::int[], $13::int[], $14::bigint[], $15::text[], $16::text[])
              WITH ORDINALITY AS r(id, batch_key, open, event_type, team_id, environment, user_id, client_user_id, batch_group,
                                   envelope_enc, items_field, item_count, item_bytes, due_ms, request_id, trace_parent, n)
        ORDER BY n
       ON CONFLICT (id) DO NOTHING`,
      [
        column((row) => row.id),
        column((row) => row.batchKey),
        column((row) => row.open),
        column((row) => row.eventType),
        column((row) => row.teamId),
        column((row) => row.environment),
        column((row) => row.userId),
        column((row) => row.clientUserId),
        column((row) => row.batchGroup),
        column((row) => row.envelopeEnc),
        column((row) => row.itemsField),
        column((row) => row.itemCount),
        column((row) => row.itemBytes),
        column((row) => Math.round(row.dueInMs)),
        column((row) => row.requestId),
        column((row) => row.traceParent),
      ],
    );
  }

  /** Counts an append into an existing batch; a sealed one is due at once. */
  async grow(manager: EntityManager, growth: BatchGrowth): Promise<void> {
    await manager.query(
      `UPDATE event_batches
          SET item_count = item_count + $2, item_bytes = item_bytes + $3,
              open = open AND NOT $4::boolean,
              flush_at = CASE WHEN $4::boolean THEN LEAST(flush_at, clock_timestamp()) ELSE flush_at END
        WHERE id = $1`,
      [growth.id, growth.addCount, growth.addBytes, growth.seal],
    );
  }

  /** What one append adds to each of its batches (encrypted item lists). */
  async insertItems(manager: EntityManager, items: Array<{ batchId: string; count: number; items: Buffer }>): Promise<void> {
    if (items.length === 0) return;
    // A row of parameters per list, not arrays: the ciphertext (hundreds of kilobytes) goes to
    // Postgres as it is, not escaped into an array literal. Rows go in list order.
    await manager.query(
      `INSERT INTO event_batch_items (batch_id, item_count, items)
       VALUES ${items.map((_, i) => `($${3 * i + 1}::uuid, $${3 * i + 2}::int, $${3 * i + 3}::bytea)`).join(', ')}`,
      items.flatMap((item) => [item.batchId, item.count, item.items]),
    );
  }

  /**
   * Seals a user's open batches of these event types whose group starts with `groupPrefix`, due
   * now (a backfill ended: what it sent goes out before the event that says so).
   */
  async sealOpen(
    manager: EntityManager,
    scope: { teamId: string; environment: string; userId: string; eventTypes: string[]; groupPrefix: string },
  ): Promise<void> {
    await manager.query(
      `UPDATE event_batches SET open = false, flush_at = LEAST(flush_at, clock_timestamp())
        WHERE team_id = $1 AND environment = $2 AND user_id = $3 AND open AND event_type = ANY($4::text[])
          AND starts_with(batch_group, $5)`,
      [scope.teamId, scope.environment, scope.userId, scope.eventTypes, scope.groupPrefix],
    );
  }

  /** Wakes the relay at commit (a batch is due now). */
  async notify(manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  }

  // ------------------------------------------------------------------------------------------
  // Flush (the relay)

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Up to `limit` due batches, oldest first, locked (SKIP LOCKED: an appender or another relay has them). */
  async lockDue(manager: EntityManager, limit: number, teams: TeamScope = null): Promise<DueBatch[]> {
    return manager.query(
      `SELECT id, event_type, team_id, environment, user_id, client_user_id, envelope_enc, items_field, request_id, trace_parent
         FROM event_batches
        WHERE flush_at <= clock_timestamp() ${teams ? 'AND team_id = ANY($2::uuid[])' : ''}
        ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      teams ? [limit, [...teams]] : [limit],
    );
  }

  /** The item lists of these batches, in append order. */
  /** `items`: binary ciphertext; `items_enc`: the text form of lists written before migration 1763790190000. */
  async items(manager: EntityManager, batchIds: string[]): Promise<Array<{ batch_id: string; items: Buffer | null; items_enc: string | null }>> {
    return manager.query(`SELECT batch_id, items, items_enc FROM event_batch_items WHERE batch_id = ANY($1::uuid[]) ORDER BY batch_id, seq`, [batchIds]);
  }

  /** Writes the flushed events to the outbox (in the order given) and removes the batches. */
  async replaceWithEvents(
    manager: EntityManager,
    events: Array<{
      id: string;
      eventType: string;
      teamId: string;
      environment: string;
      userId: string;
      clientUserId: string;
      dataEnc: string;
      requestId: string | null;
      traceParent: string | null;
    }>,
    batchIds: string[],
  ): Promise<void> {
    if (batchIds.length === 0) return;
    await manager.query(`DELETE FROM event_batches WHERE id = ANY($1::uuid[])`, [batchIds]);
    if (events.length === 0) return;
    const column = <T>(pick: (event: (typeof events)[number]) => T): T[] => events.map(pick);
    await manager.query(
      `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc, request_id, trace_parent)
       SELECT id, event_type, team_id, environment, user_id, client_user_id, data_enc, request_id, trace_parent
         FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              WITH ORDINALITY AS e(id, event_type, team_id, environment, user_id, client_user_id, data_enc, request_id, trace_parent, n)
        ORDER BY n
       ON CONFLICT (id) DO NOTHING`,
      [
        column((event) => event.id),
        column((event) => event.eventType),
        column((event) => event.teamId),
        column((event) => event.environment),
        column((event) => event.userId),
        column((event) => event.clientUserId),
        column((event) => event.dataEnc),
        column((event) => event.requestId),
        column((event) => event.traceParent),
      ],
    );
  }

  /** Batches not flushed yet: all of them, or a team's (the health-data bench, tests). */
  async pendingCount(teamId?: string): Promise<number> {
    const [row]: Array<{ count: number }> = await this.db.query(
      `SELECT count(*)::int AS count FROM event_batches ${teamId ? 'WHERE team_id = $1' : ''}`,
      teamId ? [teamId] : [],
    );
    return row.count;
  }
}
