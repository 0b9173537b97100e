import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a parsing job waits for a reviewer when labflow sent it there itself: the report's patient
 * name or date of birth does not match its user's demographics, or could not be read. A code,
 * never the names or dates compared (those are PHI).
 */
export class LabReportReviewReason1763790450000 implements MigrationInterface {
  name = 'LabReportReviewReason1763790450000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_report_parsing_jobs ADD COLUMN review_reason text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE lab_report_parsing_jobs DROP COLUMN review_reason`);
  }
}
