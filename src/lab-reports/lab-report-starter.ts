import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { LabReportWorkflows } from './lab-report-workflows';
import { LabReportsRepository } from './lab-reports.repository';

/**
 * Starts the workflows of parsing jobs the API could not start (a crash or a Temporal outage
 * between the job's commit and its start): every LAB_REPORT_START_GRACE, the jobs older than that
 * without a known start. Harmless to run on several workers (the workflow id is fixed).
 */
@Injectable()
export class LabReportStarter implements OnModuleDestroy {
  private readonly logger = new Logger('lab-reports');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly workflows: LabReportWorkflows,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  start(): void {
    const interval = this.config.labReports.startGraceMs;
    if (this.timer || interval <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.startUnstarted().finally(() => (this.running = null));
    }, interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
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
