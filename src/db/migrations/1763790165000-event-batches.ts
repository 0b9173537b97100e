import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events waiting to be batched (src/events/event-batches.ts): timeseries samples of one
 * (team, user, event type, provider, source type) gathered for a short window, across requests,
 * into one event, instead of an event per ingestion request.
 *
 * - `event_batches`: one row per future event. At most one is `open` per `batch_key` (appends go
 *   there, under its row lock); it is sealed when it reaches its bounds, or when a backfill's last
 *   chunk asks for everything before it. The relay turns rows due at `flush_at` into outbox
 *   events (id = the row's id, so a flush repeated after a crash writes the same event) and
 *   deletes them, in `seq` order, in one transaction. A row without `batch_key` is a single
 *   event queued behind the batches (the `historical.data.*` event of a finished backfill).
 * - `event_batch_items`: what each append added (encrypted JSON: [key, item] pairs).
 *
 * Rows are written in the transaction that stores the samples, so a pending batch is as durable
 * as the data: a process that dies leaves it to the next relay pass.
 */
export class EventBatches1763790165000 implements MigrationInterface {
  name = 'EventBatches1763790165000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE event_batches (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL,
        batch_key text,
        open boolean NOT NULL DEFAULT false,
        event_type text NOT NULL,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id text NOT NULL,
        client_user_id text NOT NULL,
        batch_group text,
        envelope_enc text NOT NULL,
        items_field text,
        item_count integer NOT NULL DEFAULT 0,
        item_bytes integer NOT NULL DEFAULT 0,
        flush_at timestamptz NOT NULL,
        request_id text,
        trace_parent text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK (NOT open OR batch_key IS NOT NULL)
      )`);
    await db.query(`CREATE UNIQUE INDEX event_batches_open ON event_batches (batch_key) WHERE open`);
    await db.query(`CREATE INDEX event_batches_due ON event_batches (flush_at)`);
    await db.query(`CREATE INDEX event_batches_user ON event_batches (team_id, environment, user_id) WHERE open`);
    await db.query(`
      CREATE TABLE event_batch_items (
        batch_id uuid NOT NULL REFERENCES event_batches(id) ON DELETE CASCADE,
        seq bigserial NOT NULL,
        item_count integer NOT NULL,
        items_enc text NOT NULL,
        PRIMARY KEY (batch_id, seq)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE event_batch_items`);
    await db.query(`DROP TABLE event_batches`);
  }
}
