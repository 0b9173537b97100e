import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ApiEnvironment } from '../tenancy/entities';
import type { LabReportStage, ParsingFailureReason, ParsingJobStatus } from '../../workflows/contract';
import type { ReportFileKind } from './parsing';
import type { IdentityReviewReason } from './patient-identity';

/**
 * A lab report parsing job. `status` changes only through the job's workflow (its activities);
 * `dataEnc` holds the ParsedLabReportData as PhiCipher JSON once results are stored.
 */
@Entity({ name: 'lab_report_parsing_jobs' })
export class ParsingJobEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text') status!: ParsingJobStatus;
  @Column('text', { name: 'failure_reason', nullable: true }) failureReason!: ParsingFailureReason | null;
  @Column('boolean', { name: 'needs_human_review' }) needsHumanReview!: boolean;
  @Column('boolean', { name: 'is_reviewed', default: false }) isReviewed!: boolean;
  /** Why labflow itself sent the job to review (the report's patient is not the user's); null otherwise. */
  @Column('text', { name: 'review_reason', nullable: true }) reviewReason!: IdentityReviewReason | null;
  /** The reviewer's reason for a `rejected` job (PhiCipher JSON: free text that may name the patient). */
  @Column('text', { name: 'rejection_reason_enc', nullable: true }) rejectionReasonEnc!: string | null;
  @Column('text', { name: 'file_kind' }) fileKind!: ReportFileKind;
  @Column('integer', { name: 'file_size' }) fileSize!: number;
  @Column('text', { name: 'data_enc', nullable: true }) dataEnc!: string | null;
  @Column('timestamptz', { name: 'workflow_started_at', nullable: true }) workflowStartedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** The uploaded file (PhiCipher bytes), written in the job's transaction. */
@Entity({ name: 'lab_report_files' })
export class LabReportFileEntity {
  @PrimaryColumn('uuid', { name: 'job_id' }) jobId!: string;
  @Column('bytea', { name: 'content_enc' }) contentEnc!: Buffer;
}

/** What a processing step produced (gzip'd JSON, PhiCipher bytes), one row per job and stage. */
@Entity({ name: 'lab_report_artifacts' })
export class LabReportArtifactEntity {
  @PrimaryColumn('uuid', { name: 'job_id' }) jobId!: string;
  @PrimaryColumn('text') stage!: LabReportStage;
  @Column('bytea', { name: 'content_enc' }) contentEnc!: Buffer;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}

export const LAB_REPORT_ENTITIES = [ParsingJobEntity, LabReportFileEntity, LabReportArtifactEntity];
