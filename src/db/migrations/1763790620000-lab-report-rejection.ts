import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reviewer may reject a parsing job waiting in `pending_review` (a report of another patient,
 * an unreadable one): the job ends `rejected`, its results never filed, with the reviewer's reason
 * sealed (PhiCipher: free text that may name the patient).
 */
export class LabReportRejection1763790620000 implements MigrationInterface {
  name = 'LabReportRejection1763790620000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_report_parsing_jobs DROP CONSTRAINT IF EXISTS lab_report_parsing_jobs_status_check`);
    await db.query(
      `ALTER TABLE lab_report_parsing_jobs ADD CONSTRAINT lab_report_parsing_jobs_status_check CHECK (status IN ('upload_pending', 'started', 'pending_review', 'completed', 'failed', 'rejected'))`,
    );
    await db.query(`ALTER TABLE lab_report_parsing_jobs ADD COLUMN rejection_reason_enc text`);
    await db.query(
      `ALTER TABLE lab_report_parsing_jobs ADD CONSTRAINT lab_report_parsing_jobs_rejection_check CHECK ((status = 'rejected') = (rejection_reason_enc IS NOT NULL))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_report_parsing_jobs DROP CONSTRAINT lab_report_parsing_jobs_rejection_check`);
    await db.query(`ALTER TABLE lab_report_parsing_jobs DROP COLUMN rejection_reason_enc`);
    await db.query(`DELETE FROM lab_report_parsing_jobs WHERE status = 'rejected'`);
    await db.query(`ALTER TABLE lab_report_parsing_jobs DROP CONSTRAINT IF EXISTS lab_report_parsing_jobs_status_check`);
    await db.query(
      `ALTER TABLE lab_report_parsing_jobs ADD CONSTRAINT lab_report_parsing_jobs_status_check CHECK (status IN ('upload_pending', 'started', 'pending_review', 'completed', 'failed'))`,
    );
  }
}
