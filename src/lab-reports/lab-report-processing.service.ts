import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { EntityManager } from 'typeorm';
import { PhiCipher } from '../common/crypto';
import { OutboxService } from '../events/outbox.service';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { UserInfoService } from '../users/user-info.service';
import { UsersRepository } from '../users/users.repository';
import type { LabReportProcessing } from '../../activities/lab-reports';
import type { LabReportRejection, LabReportReview, LabReportStage, LabReportStored, ParsingFailureReason } from '../../workflows/contract';
import { JOB_MOVES_FROM } from '../../workflows/lab-report/lab-report-lifecycle';
import type { ParsingJobEntity } from './lab-report.entities';
import { LabReportViews } from './lab-report-views';
import type { LabReportResultView, ParsedLabReportDataView } from './lab-reports.dto';
import { type JobChange, LabReportsRepository } from './lab-reports.repository';
import { identityReviewReason, type IdentityReviewReason } from './patient-identity';
import {
  buildLoincCatalogue,
  closeOcr,
  detectReportFileKind,
  type ExtractedDocument,
  extractReport,
  type LoincCatalogue,
  matchReport,
  type ParsedReport,
  parseReport,
  ReportParseFailure,
} from './parsing';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

/** A job the worker was asked about no longer exists (its user was erased): nothing to do. */
class ParsingJobGoneError extends Error {}

/**
 * The worker side of parsing jobs, behind activities/lab-reports.ts. Each step reads its input
 * from the step before (kept encrypted in lab_report_artifacts), skips itself when its own output
 * is already stored, and stores what it produced; each status change is conditional on the status
 * before it and writes its `lab_report.parsing_job.updated` event in the same transaction, with an
 * id derived from job and status, so any of them may run twice.
 */
@Injectable()
export class LabReportProcessingService implements LabReportProcessing, OnModuleDestroy {
  private catalogue: Promise<LoincCatalogue> | null = null;

  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly views: LabReportViews,
    private readonly outbox: OutboxService,
    private readonly users: UsersRepository,
    private readonly userInfos: UserInfoService,
    private readonly labCatalog: LabCatalogRepository,
    private readonly cipher: PhiCipher,
  ) {}

  /** The OCR worker threads end with the worker. */
  async onModuleDestroy(): Promise<void> {
    await closeOcr();
  }

  async extract(jobId: string): Promise<void> {
    if (await this.jobs.readArtifact(jobId, 'extracted')) return;
    const sealed = await this.jobs.readFile(jobId);
    if (!sealed) throw new ParsingJobGoneError(`parsing job ${jobId} has no file`);
    const bytes = this.cipher.decryptBytes(sealed);
    const kind = detectReportFileKind(bytes);
    if (!kind) throw new ReportParseFailure('invalid_input', 'The file is not a PDF, JPEG or PNG report.');
    await this.saveArtifact(jobId, 'extracted', await extractReport(bytes, kind));
  }

  async parse(jobId: string): Promise<void> {
    if (await this.jobs.readArtifact(jobId, 'parsed')) return;
    const document = await this.readArtifact<ExtractedDocument>(jobId, 'extracted');
    await this.saveArtifact(jobId, 'parsed', parseReport(document));
  }

  async match(jobId: string): Promise<void> {
    if (await this.jobs.readArtifact(jobId, 'matched')) return;
    const report = await this.readArtifact<ParsedReport>(jobId, 'parsed');
    await this.saveArtifact(jobId, 'matched', matchReport(report, await this.loincCatalogue()));
  }

  /**
   * Files the results, unless the report's patient is not the user labflow has on file: then the
   * job waits for a reviewer with the reason, whether or not the upload asked for review.
   */
  async storeResults(jobId: string, pendingReview: boolean): Promise<LabReportStored> {
    const data = await this.readArtifact<ParsedLabReportDataView>(jobId, 'matched');
    const reviewReason = await this.identityReviewReason(jobId, data);
    const status = pendingReview || reviewReason ? 'pending_review' : 'completed';
    await this.change(jobId, JOB_MOVES_FROM[status], { status, dataEnc: this.views.sealData(data), reviewReason });
    return { status };
  }

  /** Null when the user has no demographics on file (nothing to compare) or the report names them. */
  private async identityReviewReason(jobId: string, data: ParsedLabReportDataView): Promise<IdentityReviewReason | null> {
    const job = await this.jobs.findById(jobId);
    if (!job) throw new ParsingJobGoneError(`parsing job ${jobId} is gone`);
    const onFile = await this.userInfos.onFile(job.userId);
    return onFile ? identityReviewReason(data.metadata, onFile) : null;
  }

  async fail(jobId: string, reason: ParsingFailureReason): Promise<void> {
    await this.change(jobId, JOB_MOVES_FROM.failed, { status: 'failed', failureReason: reason });
  }

  async completeReview(jobId: string, review: LabReportReview): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (!job || job.status !== 'pending_review') return;
    const parsed = this.views.openData(job) ?? { metadata: { patient_first_name: '', patient_last_name: '', dob: '', lab_name: '' }, results: [] };
    const data: ParsedLabReportDataView = {
      metadata: { ...parsed.metadata, ...(review.metadata ?? {}) } as ParsedLabReportDataView['metadata'],
      results: (review.results as LabReportResultView[] | undefined) ?? parsed.results,
    };
    await this.change(jobId, ['pending_review'], { status: 'completed', isReviewed: true, dataEnc: this.views.sealData(data) });
  }

  /** The reviewer refused the results: the job ends `rejected` with the reason, its data dropped, so nothing is filed. */
  async reject(jobId: string, rejection: LabReportRejection): Promise<void> {
    await this.change(jobId, JOB_MOVES_FROM.rejected, {
      status: 'rejected',
      isReviewed: true,
      dataEnc: null,
      rejectionReasonEnc: this.cipher.encryptJson(rejection.reason),
    });
  }

  /** A status change and its update event, atomically; nothing when the job already moved. */
  private async change(jobId: string, from: JobChange['status'][] | readonly JobChange['status'][], change: JobChange): Promise<void> {
    await this.jobs.transaction(async (manager) => {
      const job = await this.jobs.transition(manager, jobId, from, change);
      if (job) await this.recordUpdated(manager, job);
    });
  }

  private async recordUpdated(manager: EntityManager, job: ParsingJobEntity): Promise<void> {
    await this.outbox.record(manager, [
      {
        eventType: 'lab_report.parsing_job.updated',
        idempotencyKey: `lab-report:${job.id}:${job.status}`,
        teamId: job.teamId,
        environment: job.environment,
        userId: job.userId,
        clientUserId: (await this.users.clientUserIdOf(job.userId, manager)) ?? '',
        data: this.views.job(job),
        subjectId: job.id,
      },
    ]);
  }

  /** The LOINC table (seeded by migration, so read once per process). */
  private loincCatalogue(): Promise<LoincCatalogue> {
    if (!this.catalogue) {
      this.catalogue = this.labCatalog.loincCatalogueRows().then(buildLoincCatalogue);
      // A failed read is tried again by the next step, not remembered.
      this.catalogue.catch(() => (this.catalogue = null));
    }
    return this.catalogue;
  }

  private async saveArtifact(jobId: string, stage: LabReportStage, value: unknown): Promise<void> {
    const packed = await zip(Buffer.from(JSON.stringify(value)));
    await this.jobs.saveArtifact(jobId, stage, this.cipher.encryptBytes(packed));
  }

  private async readArtifact<T>(jobId: string, stage: LabReportStage): Promise<T> {
    const sealed = await this.jobs.readArtifact(jobId, stage);
    // The step before always stores its output first; missing means the job was erased meanwhile.
    if (!sealed) throw new ParsingJobGoneError(`parsing job ${jobId} has no ${stage} output`);
    return JSON.parse((await unzip(this.cipher.decryptBytes(sealed))).toString('utf8')) as T;
  }
}
