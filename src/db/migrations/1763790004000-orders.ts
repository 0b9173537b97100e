import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lab test orders (src/orders):
 *
 * - `order_transactions`: the group an order belongs to (an order and its redraws/recreations).
 * - `orders`: one lab order. `status` is the top-level status, `low_level_status` the detailed
 *   one; both only change through the order workflow's transition activity. PHI (patient
 *   details and address, shipping details, a pending kit registration) is stored encrypted
 *   (PhiCipher). `workflow_started_at` NULL means the order workflow may not have started yet:
 *   the reconciler starts it (the workflow id `order:<id>` makes a repeat harmless).
 * - `order_events`: the order's event log; `id` is the integer event id the API shows, `seq` the
 *   transition number the workflow assigns (unique per order, so a retried activity adds nothing).
 * - `order_results`: the lab's results of an order (encrypted: PHI), with their interpretation.
 * - `idempotency_keys`: `X-Idempotency-Key` on order creation: the first answer per team and key,
 *   replayed for 24 h; `in_progress` while the first request runs (a duplicate then gets 409).
 */
export class Orders1763790004000 implements MigrationInterface {
  name = 'Orders1763790004000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE order_transactions (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'cancelled')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);

    await db.query(`
      CREATE TABLE orders (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        lab_test_id uuid NOT NULL,
        lab_id integer NOT NULL,
        lab_account_id uuid NOT NULL,
        collection_method text NOT NULL,
        flow text NOT NULL,
        status text NOT NULL,
        low_level_status text NOT NULL,
        origin text NOT NULL DEFAULT 'initial' CHECK (origin IN ('initial', 'redraw', 'recreation')),
        order_transaction_id uuid NOT NULL REFERENCES order_transactions(id) ON DELETE CASCADE,
        registrable boolean NOT NULL DEFAULT false,
        sample_id text,
        patient_details_enc text,
        patient_address_enc text,
        shipping_details_enc text,
        pending_registration_enc text,
        registered_at timestamptz,
        physician jsonb,
        clinical_notes text,
        health_insurance_id text,
        priority boolean NOT NULL DEFAULT false,
        billing_type text,
        icd_codes text[],
        consents jsonb,
        activate_by date,
        passthrough text,
        interpretation text,
        has_abn boolean NOT NULL DEFAULT false,
        has_missing_results boolean,
        requisition_form_url text,
        shipment jsonb,
        workflow_started_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX orders_team_created ON orders (team_id, environment, created_at DESC, id)`);
    await db.query(`CREATE INDEX orders_user ON orders (user_id)`);
    await db.query(`CREATE INDEX orders_transaction ON orders (order_transaction_id)`);
    await db.query(`CREATE UNIQUE INDEX orders_sample_id ON orders (team_id, environment, sample_id) WHERE sample_id IS NOT NULL`);
    await db.query(`CREATE INDEX orders_workflow_not_started ON orders (created_at) WHERE workflow_started_at IS NULL`);
    await db.query(`CREATE INDEX orders_outbound_tracking ON orders ((shipment->>'outbound_tracking_number')) WHERE shipment IS NOT NULL`);
    await db.query(`CREATE INDEX orders_inbound_tracking ON orders ((shipment->>'inbound_tracking_number')) WHERE shipment IS NOT NULL`);

    await db.query(`
      CREATE TABLE order_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        status text NOT NULL,
        status_detail text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (order_id, seq)
      )`);

    await db.query(`
      CREATE TABLE order_results (
        order_id uuid PRIMARY KEY REFERENCES orders(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('final', 'partial')),
        interpretation text NOT NULL,
        results_enc text NOT NULL,
        missing_results jsonb NOT NULL DEFAULT '[]',
        date_collected timestamptz,
        date_received timestamptz,
        date_reported timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);

    await db.query(`
      CREATE TABLE idempotency_keys (
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'done')),
        status_code integer,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (team_id, environment, key)
      )`);
    await db.query(`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
    await db.query(`DROP TABLE order_results`);
    await db.query(`DROP TABLE order_events`);
    await db.query(`DROP TABLE orders`);
    await db.query(`DROP TABLE order_transactions`);
  }
}
