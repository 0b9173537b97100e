import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { DeviceParams, IngestionEnvelopeDto, OptionalRangeQuery, StreamParams, SummaryIngestParams, UserIdParams } from './health-data.dto';
import { HealthDataIngestionService } from './health-data-ingestion.service';
import { LargeBody } from './large-body';
import { SummaryQueriesService } from './summary-queries.service';
import { ZodResponse } from 'nestjs-zod';
import { DeviceListResponse, DeviceResponse, IngestionResultResponse, KeyedDataResponse } from './health-data-responses.dto';

/** Summaries (activity, sleep, workouts, body, profile, ...): ingestion and reads. */
@ApiTags('summary')
@ApiSecurity('team-api-key')
@Controller()
export class SummariesController {
  constructor(
    private readonly ingestion: HealthDataIngestionService,
    private readonly queries: SummaryQueriesService,
  ) {}

  @Post('v2/summary/:resource/:user_id')
  @UserTokenRoute()
  @HttpCode(200)
  @LargeBody()
  @ZodResponse({ status: 200, type: IngestionResultResponse })
  ingest(@CurrentTeam() team: TeamPrincipal, @Param() params: SummaryIngestParams, @Body() body: IngestionEnvelopeDto) {
    return this.ingestion.ingestSummaries(team, params.user_id, params.resource, body);
  }

  @Get('v2/summary/:resource/:user_id')
  @UserTokenRoute()
  @ZodResponse({ status: 200, type: KeyedDataResponse })
  list(@CurrentTeam() team: TeamPrincipal, @Param() params: SummaryIngestParams, @Query() query: OptionalRangeQuery) {
    return this.queries.list(team, params.user_id, params.resource, query, false);
  }

  @Get('v2/summary/:resource/:user_id/raw')
  @UserTokenRoute()
  @ZodResponse({ status: 200, type: KeyedDataResponse })
  raw(@CurrentTeam() team: TeamPrincipal, @Param() params: SummaryIngestParams, @Query() query: OptionalRangeQuery) {
    return this.queries.list(team, params.user_id, params.resource, query, true);
  }

  @Get('v2/timeseries/workouts/:id/stream')
  @ZodResponse({ status: 200, type: KeyedDataResponse })
  workoutStream(@CurrentTeam() team: TeamPrincipal, @Param() params: StreamParams) {
    return this.queries.workoutStream(team, params.id);
  }
}

/** The devices a user's sources reported (from device summaries). */
@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user/:user_id/device')
export class DevicesController {
  constructor(private readonly queries: SummaryQueriesService) {}

  @Get()
  @ZodResponse({ status: 200, type: DeviceListResponse })
  list(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.queries.devices(team, params.user_id);
  }

  @Get(':device_id')
  @ZodResponse({ status: 200, type: DeviceResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: DeviceParams) {
    return this.queries.device(team, params.user_id, params.device_id);
  }
}
