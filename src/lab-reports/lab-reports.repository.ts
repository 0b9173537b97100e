import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import type { LabReportStage, ParsingFailureReason, ParsingJobStatus } from '../../workflows/contract';
import type { IdentityReviewReason } from './patient-identity';
import { LabReportArtifactEntity, LabReportFileEntity, ParsingJobEntity } from './lab-report.entities';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** What a status change writes besides the status (undefined: unchanged). */
export interface JobChange {
  status: ParsingJobStatus;
  failureReason?: ParsingFailureReason | null;
  dataEnc?: string | null;
  isReviewed?: boolean;
  reviewReason?: IdentityReviewReason | null;
  /** The reviewer's reason for rejecting the job, sealed. */
  rejectionReasonEnc?: string | null;
}

/** Intent-named queries over parsing jobs, their files and their step artifacts. */
@Injectable()
export class LabReportsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The job row and its (encrypted) file, in the caller's transaction. */
  async insertJob(manager: EntityManager, job: ParsingJobEntity, contentEnc: Buffer): Promise<void> {
    await manager.getRepository(ParsingJobEntity).insert(job);
    await manager.getRepository(LabReportFileEntity).insert({ jobId: job.id, contentEnc });
  }

  findScoped(scope: Scope, jobId: string): Promise<ParsingJobEntity | null> {
    return this.db.getRepository(ParsingJobEntity).findOneBy({ id: jobId, teamId: scope.teamId, environment: scope.environment });
  }

  findById(jobId: string, manager: EntityManager = this.db.manager): Promise<ParsingJobEntity | null> {
    return manager.getRepository(ParsingJobEntity).findOneBy({ id: jobId });
  }

  async markWorkflowStarted(jobId: string): Promise<void> {
    await this.db.query(`UPDATE lab_report_parsing_jobs SET workflow_started_at = now() WHERE id = $1 AND workflow_started_at IS NULL`, [jobId]);
  }

  /** Jobs created more than `graceMs` ago whose workflow is not known to have started. */
  unstarted(graceMs: number, limit: number): Promise<ParsingJobEntity[]> {
    return this.db
      .getRepository(ParsingJobEntity)
      .createQueryBuilder('job')
      .where('job.workflow_started_at IS NULL')
      .andWhere(`job.created_at < now() - make_interval(secs => :seconds)`, { seconds: graceMs / 1000 })
      .orderBy('job.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  async readFile(jobId: string): Promise<Buffer | null> {
    const row = await this.db.getRepository(LabReportFileEntity).findOneBy({ jobId });
    return row?.contentEnc ?? null;
  }

  /** Stores a step's output once: a step re-run after a crash finds the first write kept. */
  async saveArtifact(jobId: string, stage: LabReportStage, contentEnc: Buffer): Promise<void> {
    await this.db.query(`INSERT INTO lab_report_artifacts (job_id, stage, content_enc) VALUES ($1, $2, $3) ON CONFLICT (job_id, stage) DO NOTHING`, [
      jobId,
      stage,
      contentEnc,
    ]);
  }

  async readArtifact(jobId: string, stage: LabReportStage): Promise<Buffer | null> {
    const row = await this.db.getRepository(LabReportArtifactEntity).findOneBy({ jobId, stage });
    return row?.contentEnc ?? null;
  }

  /**
   * Moves the job to `change.status` if it is in one of `from`, in the caller's transaction, and
   * returns the row as written; null when it was not in `from` (the change was already made, or
   * the job is gone), so a retried step changes nothing.
   */
  async transition(manager: EntityManager, jobId: string, from: readonly ParsingJobStatus[], change: JobChange): Promise<ParsingJobEntity | null> {
    const set: Record<string, unknown> = { status: change.status, updatedAt: () => 'now()' };
    if (change.failureReason !== undefined) set.failureReason = change.failureReason;
    if (change.dataEnc !== undefined) set.dataEnc = change.dataEnc;
    if (change.isReviewed !== undefined) set.isReviewed = change.isReviewed;
    if (change.reviewReason !== undefined) set.reviewReason = change.reviewReason;
    if (change.rejectionReasonEnc !== undefined) set.rejectionReasonEnc = change.rejectionReasonEnc;
    const result = await manager
      .createQueryBuilder()
      .update(ParsingJobEntity)
      .set(set)
      .where('id = :jobId AND status IN (:...from)', { jobId, from })
      .execute();
    if (!result.affected) return null;
    return manager.getRepository(ParsingJobEntity).findOneBy({ id: jobId });
  }
}
