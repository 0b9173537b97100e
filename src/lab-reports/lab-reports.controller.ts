import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { AcceptsMultipart } from '../common/multipart';
import { LabReportQueriesService } from './lab-report-queries.service';
import { LabReportReviewsService } from './lab-report-reviews.service';
import { LabReportUploadsService } from './lab-report-uploads.service';
import { MAX_REPORT_BYTES, ParsingJobDto, ParsingJobIdParams, ReviewParsingJobDto } from './lab-reports.dto';
import { readUploadForm } from './upload-form';

@ApiTags('lab_report')
@ApiSecurity('team-api-key')
@Controller('lab_report/v1/parser/job')
export class LabReportsController {
  constructor(
    private readonly uploads: LabReportUploadsService,
    private readonly queries: LabReportQueriesService,
    private readonly reviews: LabReportReviewsService,
  ) {}

  /** Uploads a lab report (PDF, JPEG or PNG, at most 10 MB) and starts parsing it. Beta. */
  @Post()
  @HttpCode(200)
  @AcceptsMultipart()
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file', 'user_id'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The report: PDF, JPEG or PNG, at most 10 MB.' },
        user_id: { type: 'string', format: 'uuid' },
        needs_human_review: { type: 'boolean', default: false, description: 'Only for teams with human review enabled (otherwise 400).' },
      },
    },
  })
  @ApiOkResponse({ type: ParsingJobDto })
  async create(@CurrentTeam() team: TeamPrincipal, @Req() request: FastifyRequest) {
    const form = await readUploadForm(request, MAX_REPORT_BYTES);
    return this.uploads.create(team, form);
  }

  @Get(':job_id')
  @ApiOkResponse({ type: ParsingJobDto })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: ParsingJobIdParams) {
    return this.queries.get(team, params.job_id);
  }

  /**
   * labflow: completes a job waiting in `pending_review` with a reviewer's corrections (`results`
   * replaces the parsed results, `metadata` the fields it names; an empty body accepts them as
   * parsed); answers the job, now `completed` with `is_reviewed: true`. `{"decision": "reject",
   * "reason": "..."}` refuses the results instead: the job ends `rejected`, nothing filed, the
   * reason kept. 400 for teams without human review, 409 for a job not waiting for review.
   */
  @Post(':job_id/review')
  @HttpCode(200)
  @ApiOkResponse({ type: ParsingJobDto })
  review(@CurrentTeam() team: TeamPrincipal, @Param() params: ParsingJobIdParams, @Body() body: ReviewParsingJobDto) {
    return this.reviews.review(team, params.job_id, body);
  }
}
