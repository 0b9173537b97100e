import { Controller, Get, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { Body, Query } from '../common/request-params';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { BulkExportDto, BulkHistoricalPullDto, BulkImportDto, BulkPauseDto, BulkTeamQuery, ListBulkOpsQuery } from './link-migration.dto';
import { type BulkOpAnswer, LinkMigrationService } from './link-migration.service';
import { ZodResponse } from 'nestjs-zod';
import { BulkExportResponse, BulkHistoricalPullResponse, BulkImportResponse, BulkOpListResponse, BulkPauseResponse } from './link-responses.dto';

/** 200 when the operation ended while the request waited, 202 while it goes on in the background. */
function answer(reply: FastifyReply, outcome: BulkOpAnswer) {
  reply.status(outcome.ended ? 200 : 202);
}

/** Junction's Link Migration (`/v2/link/bulk_*`): off unless enabled for the team (management API). */
@ApiTags('link')
@ApiSecurity('team-api-key')
@Controller('v2/link')
export class LinkMigrationController {
  constructor(private readonly migration: LinkMigrationService) {}

  @Get('bulk_op')
  @ApiOperation({ summary: "The team's Link Migration operations (imports, historical pulls), newest first." })
  @ZodResponse({ status: 200, type: BulkOpListResponse })
  list(@CurrentTeam() team: TeamPrincipal, @Query() query: ListBulkOpsQuery) {
    return this.migration.list(team, query.team_id, query.next_cursor, query.page_size);
  }

  @Post('bulk_import')
  @ApiOperation({ summary: 'Connections another system holds (OAuth tokens) become labflow connections, in the background.' })
  @ZodResponse({ status: 200, type: BulkImportResponse })
  @ZodResponse({ status: 202, description: 'Still running: the ids done so far.', type: BulkImportResponse })
  async bulkImport(
    @CurrentTeam() team: TeamPrincipal,
    @Query() query: BulkTeamQuery,
    @Body() body: BulkImportDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-idempotency-key') idempotencyKey?: string,
  ) {
    const outcome = await this.migration.bulkImport(team, query.team_id, body, idempotencyKey);
    answer(reply, outcome);
    return { user_ids_imported: outcome.done, user_ids_failed: outcome.failed };
  }

  @Post('bulk_trigger_historical_pull')
  @ApiOperation({ summary: "The connections' history is fetched again (historical.data.* events), paced for the provider's rate limit, in the background." })
  @ZodResponse({ status: 200, type: BulkHistoricalPullResponse })
  @ZodResponse({ status: 202, description: 'Still running: the ids done so far.', type: BulkHistoricalPullResponse })
  async bulkHistoricalPull(
    @CurrentTeam() team: TeamPrincipal,
    @Query() query: BulkTeamQuery,
    @Body() body: BulkHistoricalPullDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-idempotency-key') idempotencyKey?: string,
  ) {
    const outcome = await this.migration.bulkHistoricalPull(team, query.team_id, body, idempotencyKey);
    answer(reply, outcome);
    return { user_ids_pulled: outcome.done, user_ids_failed: outcome.failed };
  }

  @Post('bulk_pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'labflow stops fetching through (and refreshing) these connections, before they are exported.' })
  @ZodResponse({ status: 200, type: BulkPauseResponse })
  bulkPause(@CurrentTeam() team: TeamPrincipal, @Query() query: BulkTeamQuery, @Body() body: BulkPauseDto) {
    return this.migration.bulkPause(team, query.team_id, body);
  }

  @Post('bulk_export')
  @HttpCode(200)
  @ApiOperation({ summary: "The connections' OAuth tokens, a page at a time, for another system to take over." })
  @ZodResponse({ status: 200, type: BulkExportResponse })
  bulkExport(@CurrentTeam() team: TeamPrincipal, @Query() query: BulkTeamQuery, @Body() body: BulkExportDto) {
    return this.migration.bulkExport(team, query.team_id, body);
  }
}
