import { Injectable } from '@nestjs/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { TeamPrincipal } from '../auth/principal';
import { badRequest, conflict, notFound } from '../common/errors';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { type LabReportReview, rejectLabReport, reviewLabReport } from '../../workflows/contract';
import { reviewRefusal } from '../../workflows/lab-report/lab-report-lifecycle';
import { LabReportViews } from './lab-report-views';
import { LabReportWorkflows } from './lab-report-workflows';
import type { ParsingJobView, ReviewParsingJobDto } from './lab-reports.dto';
import { LabReportsRepository } from './lab-reports.repository';

/**
 * labflow's review of a parsing job in `pending_review` (`POST
 * /lab_report/v1/parser/job/{job_id}/review`): an approval's corrections go to the job's workflow
 * as the reviewLabReport update, which stores them and completes the job with `is_reviewed: true`;
 * a rejection goes as rejectLabReport, which ends the job `rejected` with the reason and nothing
 * filed. The answer is the job as stored then. Teams without human review get 400, as for the upload,
 * unless labflow sent the job to review because its report names another patient.
 */
@Injectable()
export class LabReportReviewsService {
  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly teamSettings: TeamSettingsRepository,
    private readonly workflows: LabReportWorkflows,
    private readonly views: LabReportViews,
  ) {}

  async review(team: TeamPrincipal, jobId: string, body: ReviewParsingJobDto): Promise<ParsingJobView> {
    const job = await this.jobs.findScoped(team, jobId);
    if (!job) throw notFound('Parsing job');
    // A job labflow sent to review itself (its report names another patient) is reviewed by any team.
    if (job.reviewReason === null && !(await this.teamSettings.labReportHumanReviewEnabled(team.teamId))) {
      throw badRequest('Human review is not enabled for this team.');
    }
    // Asked here first so the usual refusals need no round trip; the workflow asks again.
    const refusal = reviewRefusal(job.status, job.needsHumanReview || job.reviewReason !== null);
    if (refusal) throw conflict(refusal);
    try {
      const handle = this.workflows.handle(jobId);
      if (body.decision === 'reject') await handle.executeUpdate(rejectLabReport, { args: [{ reason: body.reason ?? '' }] });
      else await handle.executeUpdate(reviewLabReport, { args: [{ results: body.results, metadata: body.metadata as LabReportReview['metadata'] }] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw conflict(error.cause instanceof Error ? error.cause.message : 'The job refused the review.');
      // The job's workflow ended between the check above and the update.
      if (error instanceof WorkflowNotFoundError) throw conflict('The parsing job has ended; it takes no review.');
      throw error;
    }
    const reviewed = await this.jobs.findScoped(team, jobId);
    if (!reviewed) throw notFound('Parsing job');
    return this.views.job(reviewed);
  }
}
