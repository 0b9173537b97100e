import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Link Migration (Junction's bulk import, export, pause and historical pull of OAuth
 * connections), off unless an org admin turns it on for the team: an export hands out the
 * users' provider tokens.
 *
 * `paused` connections: labflow neither fetches their data nor refreshes their tokens (a team
 * exporting them keeps tokens that stay valid); signing in again or importing them resumes them.
 *
 * `link_bulk_ops` are the background operations (import, historical pull), each run by a
 * `link-bulk-op:<id>` workflow; `link_bulk_op_items` their users in submission order, with an
 * import's tokens sealed (PHI key) until the item is processed, then cleared.
 */
export class LinkMigration1763790360000 implements MigrationInterface {
  name = 'LinkMigration1763790360000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE teams ADD COLUMN link_migration_enabled boolean NOT NULL DEFAULT false`);
    await db.query(`ALTER TABLE provider_connections DROP CONSTRAINT provider_connections_status_check`);
    await db.query(`ALTER TABLE provider_connections ADD CONSTRAINT provider_connections_status_check CHECK (status IN ('connected', 'error', 'paused'))`);
    await db.query(`
      CREATE TABLE link_bulk_ops (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        region text NOT NULL,
        type text NOT NULL CHECK (type IN ('link_bulk_import', 'link_bulk_historical_trigger')),
        provider text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress', 'success', 'failure', 'aborted')),
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        CHECK ((status = 'in_progress') = (ended_at IS NULL))
      )`);
    await db.query(`CREATE INDEX link_bulk_ops_listing ON link_bulk_ops (team_id, environment, started_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE link_bulk_op_items (
        op_id uuid NOT NULL REFERENCES link_bulk_ops(id) ON DELETE CASCADE,
        position int NOT NULL,
        user_id uuid NOT NULL,
        credentials_enc text,
        provider_user_id text,
        outcome text CHECK (outcome IN ('done', 'failed')),
        detail text,
        PRIMARY KEY (op_id, position)
      )`);
    await db.query(`CREATE INDEX link_bulk_op_items_pending ON link_bulk_op_items (op_id, position) WHERE outcome IS NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE link_bulk_op_items');
    await db.query('DROP TABLE link_bulk_ops');
    await db.query(`DELETE FROM provider_connections WHERE status = 'paused'`);
    await db.query(`ALTER TABLE provider_connections DROP CONSTRAINT provider_connections_status_check`);
    await db.query(`ALTER TABLE provider_connections ADD CONSTRAINT provider_connections_status_check CHECK (status IN ('connected', 'error'))`);
    await db.query('ALTER TABLE teams DROP COLUMN link_migration_enabled');
  }
}
