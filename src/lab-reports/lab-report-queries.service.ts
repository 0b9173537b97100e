import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';
import { LabReportViews } from './lab-report-views';
import type { ParsingJobView } from './lab-reports.dto';
import { LabReportsRepository } from './lab-reports.repository';

/** `GET /lab_report/v1/parser/job/{job_id}`, from Postgres; another team's job is not found. */
@Injectable()
export class LabReportQueriesService {
  constructor(
    private readonly jobs: LabReportsRepository,
    private readonly views: LabReportViews,
  ) {}

  async get(team: TeamPrincipal, jobId: string): Promise<ParsingJobView> {
    const job = await this.jobs.findScoped(team, jobId);
    if (!job) throw notFound('Parsing job');
    return this.views.job(job);
  }
}
