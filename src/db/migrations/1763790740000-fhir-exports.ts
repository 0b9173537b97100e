import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * FHIR Bulk Data exports (src/fhir/export/):
 *
 * - `fhir_exports`: one row per export a team asked for (`$export`): the request, the types,
 *   `_since`, the transaction time, its status (in_progress → completed → expired), and when its
 *   files expire. A cancelled export (DELETE) is deleted with its parts.
 * - `fhir_export_parts`: the NDJSON files, a page each: (export, type, seq) → the page's lines,
 *   sealed (PhiCipher bytes) as the lab report files are, and how many resources it holds. A
 *   file is its parts in seq order. Postgres rather than object storage, as for lab report
 *   files: self-hosters run no extra service, and the retention (the export workflow's timer)
 *   deletes them.
 */
export class FhirExports1763790740000 implements MigrationInterface {
  name = 'FhirExports1763790740000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE fhir_exports (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        api_key_id uuid,
        request_url text NOT NULL,
        base_url text NOT NULL,
        types text[] NOT NULL,
        since timestamptz,
        transaction_time timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress', 'completed', 'expired')),
        completed_at timestamptz,
        expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX fhir_exports_team ON fhir_exports (team_id, environment, created_at)`);
    await db.query(`
      CREATE TABLE fhir_export_parts (
        export_id uuid NOT NULL REFERENCES fhir_exports(id) ON DELETE CASCADE,
        type text NOT NULL,
        seq integer NOT NULL,
        count integer NOT NULL,
        content_enc bytea NOT NULL,
        PRIMARY KEY (export_id, type, seq)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE fhir_export_parts`);
    await db.query(`DROP TABLE fhir_exports`);
  }
}
