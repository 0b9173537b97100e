import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, notFound, validationError } from '../common/errors';
import { zodIssues } from '../common/validation';
import { RequestValidationError } from '../common/errors';
import { OutboxService } from '../events/outbox.service';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { UsersRepository } from '../users/users.repository';
import { ParsingJobEntity } from './lab-report.entities';
import { LabReportViews } from './lab-report-views';
import { LabReportWorkflows } from './lab-report-workflows';
import { type ParsingJobView, uploadFields } from './lab-reports.dto';
import { LabReportsRepository } from './lab-reports.repository';
import { detectReportFileKind } from './parsing';

/** A multipart upload as the controller read it: the `file` part and the text fields. */
export interface UploadForm {
  file: Buffer | null;
  fields: Record<string, string>;
}

/**
 * `POST /lab_report/v1/parser/job`: checks the upload, then writes the job (`started`), its
 * encrypted file and `lab_report.parsing_job.created` in one transaction; the job's workflow
 * starts after the commit.
 */
@Injectable()
export class LabReportUploadsService {
  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly users: UsersRepository,
    private readonly teamSettings: TeamSettingsRepository,
    private readonly views: LabReportViews,
    private readonly workflows: LabReportWorkflows,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
  ) {}

  async create(team: TeamPrincipal, form: UploadForm): Promise<ParsingJobView> {
    const parsed = uploadFields.safeParse(form.fields);
    if (!parsed.success) throw new RequestValidationError(zodIssues(parsed.error, form.fields, ['body']));
    if (!form.file) throw validationError(['body', 'file'], 'Field required', undefined, 'missing');
    if (form.file.length === 0) throw validationError(['body', 'file'], 'The file is empty.', undefined, 'value_error');
    const kind = detectReportFileKind(form.file);
    if (!kind) {
      throw validationError(['body', 'file'], 'Unsupported file: send the report as a PDF, JPEG or PNG file.', undefined, 'value_error');
    }
    const { user_id: userId, needs_human_review: needsHumanReview } = parsed.data;
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    if (needsHumanReview && !(await this.teamSettings.labReportHumanReviewEnabled(team.teamId))) {
      throw badRequest('Human review is not enabled for this team.');
    }
    const now = new Date();
    const job = Object.assign(new ParsingJobEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      environment: team.environment,
      userId,
      status: 'started',
      failureReason: null,
      needsHumanReview,
      isReviewed: false,
      fileKind: kind,
      fileSize: form.file.length,
      dataEnc: null,
      reviewReason: null,
      rejectionReasonEnc: null,
      workflowStartedAt: null,
      createdAt: now,
      updatedAt: now,
    } satisfies ParsingJobEntity);
    const view = this.views.job(job);
    const sealed = this.cipher.encryptBytes(form.file);
    await this.jobs.transaction(async (manager) => {
      await this.jobs.insertJob(manager, job, sealed);
      await this.outbox.record(manager, [
        {
          eventType: 'lab_report.parsing_job.created',
          idempotencyKey: `lab-report:${job.id}:created`,
          teamId: team.teamId,
          environment: team.environment,
          userId,
          clientUserId: user.clientUserId,
          data: view,
          subjectId: job.id,
        },
      ]);
    });
    await this.workflows.startAfterCommit(job);
    return view;
  }
}
