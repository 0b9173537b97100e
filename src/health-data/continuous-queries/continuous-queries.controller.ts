import { Controller, Get } from '@nestjs/common';
import { Param, Query } from '../../common/request-params';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../../auth/principal';
import { ContinuousQueryUserParams, TaskHistoryQuery } from './continuous-queries.dto';
import { ContinuousQueriesService } from './continuous-queries.service';
import { ZodResponse } from 'nestjs-zod';
import { ResultTableResponse, TaskHistoryResponse } from '../health-data-responses.dto';

/** A team's continuous queries as seen per user (defined through the management API). */
@ApiTags('aggregate')
@ApiSecurity('team-api-key')
@Controller('aggregate/v1/user')
export class ContinuousQueriesController {
  constructor(private readonly queries: ContinuousQueriesService) {}

  @Get(':user_id/continuous_query/:query_id_or_slug/result_table')
  @ApiOperation({ summary: "The continuous query's result table for the user, over its window ending today (UTC)." })
  @ZodResponse({ status: 200, type: ResultTableResponse })
  resultTable(@CurrentTeam() team: TeamPrincipal, @Param() params: ContinuousQueryUserParams) {
    return this.queries.resultTable(team, params.user_id, params.query_id_or_slug);
  }

  @Get(':user_id/continuous_query/:query_id_or_slug/task_history')
  @ApiOperation({ summary: "The continuous query's evaluations for the user (scheduled by changes of the data it reads), newest first." })
  @ZodResponse({ status: 200, type: TaskHistoryResponse })
  taskHistory(@CurrentTeam() team: TeamPrincipal, @Param() params: ContinuousQueryUserParams, @Query() query: TaskHistoryQuery) {
    return this.queries.taskHistory(team, params.user_id, params.query_id_or_slug, query.next_cursor, query.limit);
  }
}
