import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { labReportWorkflowId, type LabReportWorkflowInput, SEARCH_ATTRIBUTES } from '../../workflows/contract';
import type { ParsingJobEntity } from './lab-report.entities';
import { LabReportsRepository } from './lab-reports.repository';

/**
 * Starts parsing job workflows (`lab-report:<job_id>`, on the lab report task queue). The API
 * starts one right after the job's transaction commits; the worker's sweep (LabReportStarter)
 * starts any the API could not. The fixed id with USE_EXISTING and REJECT_DUPLICATE makes a
 * repeated start harmless, also after the workflow finished.
 */
@Injectable()
export class LabReportWorkflows {
  private readonly logger = new Logger('lab-reports');

  constructor(
    private readonly jobs: LabReportsRepository,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  handle(jobId: string) {
    return this.temporal.workflow.getHandle(labReportWorkflowId(jobId));
  }

  async start(job: ParsingJobEntity): Promise<void> {
    const settings = this.config.labReports;
    const input: LabReportWorkflowInput = {
      jobId: job.id,
      teamId: job.teamId,
      // Refused at upload unless the team enabled review, so asking is enough here.
      humanReview: job.needsHumanReview,
      timers: {
        stepTimeout: settings.stepTimeout as Duration,
        heartbeatTimeout: settings.heartbeatTimeout as Duration,
        retryInterval: settings.retryInterval as Duration,
        maxAttempts: settings.maxAttempts,
      },
    };
    try {
      await this.temporal.workflow.start('labReportWorkflow', {
        workflowId: labReportWorkflowId(job.id),
        taskQueue: settings.taskQueue,
        args: [input],
        typedSearchAttributes: [
          { key: SEARCH_ATTRIBUTES.teamId, value: job.teamId },
          { key: SEARCH_ATTRIBUTES.labReportStatus, value: job.status },
        ],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    await this.jobs.markWorkflowStarted(job.id);
  }

  /** Starts the workflow after the job's commit; a failure is left to the worker's sweep. */
  async startAfterCommit(job: ParsingJobEntity): Promise<void> {
    try {
      await this.start(job);
    } catch (error) {
      this.logger.warn(`parsing job ${job.id}: workflow not started yet (${(error as Error).message}); the worker's sweep will start it`);
    }
  }
}
