import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { LabReportWorkflows } from './lab-report-workflows';
import { LabReportsRepository } from './lab-reports.repository';
import { PeriodicPass } from '../common/periodic-pass';

/**
 * Starts the workflows of parsing jobs the API could not start (a crash or a Temporal outage
 * between the job's commit and its start): every LAB_REPORT_START_GRACE, the jobs older than that
 * without a known start. Harmless to run on several workers (the workflow id is fixed).
 */
@Injectable()
export class LabReportStarter implements OnModuleDestroy {
  private readonly logger = new Logger('lab-reports');
  private readonly periodic = new PeriodicPass(() => this.startUnstarted());

  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly workflows: LabReportWorkflows,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  start(): void {
    this.periodic.start(this.config.labReports.startGraceMs);
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** One pass; returns how many workflows it started. */
  async startUnstarted(): Promise<number> {
    let started = 0;
    for (const job of await this.jobs.unstarted(this.config.labReports.startGraceMs, 100)) {
      try {
        await this.workflows.start(job);
        started++;
      } catch (error) {
        this.logger.warn(`parsing job ${job.id}: workflow still not started (${(error as Error).message})`);
      }
    }
    return started;
  }
}
