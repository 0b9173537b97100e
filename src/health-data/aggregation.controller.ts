import { Controller, HttpCode, Post } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { AggregationUserParams, QueryBatchDto } from './aggregation.dto';
import { AggregationService } from './aggregation.service';
import { ZodResponse } from 'nestjs-zod';
import { AggregationResponse } from './health-data-responses.dto';

@ApiTags('aggregate')
@ApiSecurity('team-api-key')
@Controller('aggregate/v1/user')
export class AggregationController {
  constructor(private readonly aggregation: AggregationService) {}

  @Post(':user_id/query')
  @UserTokenRoute()
  @HttpCode(200)
  @ApiOperation({
    summary: "Aggregates of a user's timeseries, sleep and activity over a timeframe, whole or per group (time buckets, parts of the day, source).",
  })
  @ZodResponse({ status: 200, type: AggregationResponse })
  query(@CurrentTeam() team: TeamPrincipal, @Param() params: AggregationUserParams, @Body() body: QueryBatchDto) {
    return this.aggregation.query(team, params.user_id, body);
  }
}
