import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lab report parsing jobs (src/lab-reports, workflows/lab-report/).
 *
 * - `lab_report_parsing_jobs`: one row per uploaded report. `status` is the ParsingJob status
 *   (`started` from the upload on, `pending_review` while a reviewer holds it, then `completed` or
 *   `failed` with `failure_reason`); `data_enc` the results (PhiCipher JSON) once stored;
 *   `workflow_started_at` null until its workflow `lab-report:<id>` is known to run (the partial
 *   index lets a sweep find the ones a crash left unstarted).
 * - `lab_report_files`: the uploaded file, encrypted (PhiCipher bytes), written in the job's
 *   transaction so the job never exists without its file. Postgres rather than object storage: the
 *   file, the job and its `created` event commit atomically, self-hosters run no extra service,
 *   and backups cover it; files are at most 10 MB.
 * - `lab_report_artifacts`: what each processing step produced (extracted words, parsed report,
 *   matched results), encrypted and keyed by job and stage, so a retried or resumed step reads its
 *   input from here instead of from a large workflow payload.
 */
export class LabReports1763790120000 implements MigrationInterface {
  name = 'LabReports1763790120000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE teams ADD COLUMN lab_report_human_review_enabled boolean NOT NULL DEFAULT false`);
    await db.query(`
      CREATE TABLE lab_report_parsing_jobs (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('upload_pending', 'started', 'pending_review', 'completed', 'failed')),
        failure_reason text CHECK (failure_reason IN ('invalid_input', 'low_quality', 'not_english', 'too_many_pages', 'processing_error')),
        needs_human_review boolean NOT NULL,
        is_reviewed boolean NOT NULL DEFAULT false,
        file_kind text NOT NULL CHECK (file_kind IN ('pdf', 'jpeg', 'png')),
        file_size integer NOT NULL,
        data_enc text,
        workflow_started_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'failed') = (failure_reason IS NOT NULL))
      )`);
    await db.query(`CREATE INDEX lab_report_parsing_jobs_team ON lab_report_parsing_jobs (team_id, environment, created_at)`);
    await db.query(`CREATE INDEX lab_report_parsing_jobs_user ON lab_report_parsing_jobs (user_id)`);
    await db.query(`CREATE INDEX lab_report_parsing_jobs_unstarted ON lab_report_parsing_jobs (created_at) WHERE workflow_started_at IS NULL`);
    await db.query(`
      CREATE TABLE lab_report_files (
        job_id uuid PRIMARY KEY REFERENCES lab_report_parsing_jobs(id) ON DELETE CASCADE,
        content_enc bytea NOT NULL
      )`);
    await db.query(`
      CREATE TABLE lab_report_artifacts (
        job_id uuid NOT NULL REFERENCES lab_report_parsing_jobs(id) ON DELETE CASCADE,
        stage text NOT NULL CHECK (stage IN ('extracted', 'parsed', 'matched')),
        content_enc bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, stage)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE lab_report_artifacts`);
    await db.query(`DROP TABLE lab_report_files`);
    await db.query(`DROP TABLE lab_report_parsing_jobs`);
    await db.query(`ALTER TABLE teams DROP COLUMN lab_report_human_review_enabled`);
  }
}
