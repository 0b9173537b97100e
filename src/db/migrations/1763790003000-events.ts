import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events and their delivery (src/events):
 *
 * - `event_outbox`: every event, written in the transaction of the state change that causes it.
 *   The id is stable (a retry inserts nothing: ON CONFLICT (id) DO NOTHING); `data_enc` is the
 *   PhiCipher-encrypted payload (order events carry patient details); `subject_id` names the
 *   resource the event is about (order, appointment, parsing job). A statement trigger
 *   NOTIFYs `labflow_outbox` at commit so the relay wakes without polling.
 * - `event_deliveries`: one row per event × target (webhook endpoint or event destination),
 *   unique per pair; the row id is the BullMQ job id. Postgres is the truth for status and the
 *   retry schedule; Redis only holds the timers.
 * - `event_delivery_attempts`: every attempt (status, latency, error, response excerpt).
 * - `webhook_endpoint_health`: since when an endpoint has been failing, and why it was disabled.
 */
export class Events1763790003000 implements MigrationInterface {
  name = 'Events1763790003000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE event_outbox (
        id uuid PRIMARY KEY,
        event_type text NOT NULL,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id text NOT NULL,
        client_user_id text NOT NULL,
        subject_id text,
        data_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        relayed_at timestamptz
      )`);
    await db.query(`CREATE INDEX event_outbox_unrelayed ON event_outbox (created_at, id) WHERE relayed_at IS NULL`);
    await db.query(`CREATE INDEX event_outbox_team ON event_outbox (team_id, environment, created_at)`);
    // "The latest event of each order" (POST /v3/order/resend_events).
    await db.query(`CREATE INDEX event_outbox_subject ON event_outbox (team_id, environment, subject_id, created_at) WHERE subject_id IS NOT NULL`);
    await db.query(`
      CREATE FUNCTION labflow_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('labflow_outbox', '');
        RETURN NULL;
      END
      $$`);
    await db.query(`
      CREATE TRIGGER event_outbox_notify AFTER INSERT ON event_outbox
        FOR EACH STATEMENT EXECUTE FUNCTION labflow_notify_outbox()`);

    await db.query(`
      CREATE TABLE event_deliveries (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL REFERENCES event_outbox(id) ON DELETE CASCADE,
        target text NOT NULL CHECK (target IN ('webhook', 'rabbitmq')),
        endpoint_id uuid REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        pipeline_id uuid REFERENCES etl_pipelines(id) ON DELETE CASCADE,
        team_id uuid NOT NULL,
        environment text NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'exhausted', 'cancelled')),
        status_reason text,
        attempt_count integer NOT NULL DEFAULT 0,
        manual boolean NOT NULL DEFAULT false,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_attempt_at timestamptz,
        enqueued_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((target = 'webhook') = (endpoint_id IS NOT NULL)),
        CHECK ((target = 'rabbitmq') = (pipeline_id IS NOT NULL)),
        UNIQUE (event_id, endpoint_id),
        UNIQUE (event_id, pipeline_id)
      )`);
    await db.query(`CREATE INDEX event_deliveries_unenqueued ON event_deliveries (created_at) WHERE status = 'pending' AND enqueued_at IS NULL`);
    await db.query(`CREATE INDEX event_deliveries_due ON event_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await db.query(`CREATE INDEX event_deliveries_endpoint ON event_deliveries (endpoint_id, created_at, id) WHERE endpoint_id IS NOT NULL`);
    await db.query(`CREATE INDEX event_deliveries_pipeline ON event_deliveries (pipeline_id) WHERE pipeline_id IS NOT NULL`);

    await db.query(`
      CREATE TABLE event_delivery_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES event_deliveries(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        endpoint_id uuid,
        pipeline_id uuid,
        attempt_number integer NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('scheduled', 'manual')),
        status text NOT NULL CHECK (status IN ('sending', 'succeeded', 'failed', 'interrupted')),
        target text NOT NULL,
        url text,
        response_status_code integer,
        response_excerpt text,
        error text,
        latency_ms integer,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz,
        UNIQUE (delivery_id, attempt_number)
      )`);
    await db.query(`CREATE INDEX event_delivery_attempts_endpoint ON event_delivery_attempts (endpoint_id, created_at, id) WHERE endpoint_id IS NOT NULL`);

    await db.query(`
      CREATE TABLE webhook_endpoint_health (
        endpoint_id uuid PRIMARY KEY REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        failing_since timestamptz,
        last_failure_at timestamptz,
        disabled_at timestamptz,
        disabled_reason text
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS webhook_endpoint_health`);
    await db.query(`DROP TABLE IF EXISTS event_delivery_attempts`);
    await db.query(`DROP TABLE IF EXISTS event_deliveries`);
    await db.query(`DROP TRIGGER IF EXISTS event_outbox_notify ON event_outbox`);
    await db.query(`DROP TABLE IF EXISTS event_outbox`);
    await db.query(`DROP FUNCTION IF EXISTS labflow_notify_outbox()`);
  }
}
