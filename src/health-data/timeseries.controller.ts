import { Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiSecurity, ApiTags, ApiOkResponse } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { JSON_CONTENT_TYPE } from '../common/json-text';
import {
  GroupedQuery,
  IngestionEnvelopeDto,
  RangeQuery,
  StreamParams,
  SubtypeReadParams,
  TimeseriesIngestParams,
  TimeseriesReadParams,
} from './health-data.dto';
import { HealthDataIngestionService } from './health-data-ingestion.service';
import { LargeBody } from './large-body';
import { TimeseriesQueriesService } from './timeseries-queries.service';
import { ZodResponse } from 'nestjs-zod';
import { GroupedTimeseriesResponse, IngestionResultResponse, SampleListResponse, SleepStreamResponse } from './health-data-responses.dto';

/** Timeseries: ingestion, grouped and legacy reads, workout and sleep streams. */
@ApiTags('vitals')
@ApiSecurity('team-api-key')
@Controller('v2/timeseries')
export class TimeseriesController {
  constructor(
    private readonly ingestion: HealthDataIngestionService,
    private readonly queries: TimeseriesQueriesService,
  ) {}

  @Get('sleep/:id/stream')
  @ZodResponse({ status: 200, type: SleepStreamResponse })
  sleepStream(@CurrentTeam() team: TeamPrincipal, @Param() params: StreamParams) {
    return this.queries.sleepStream(team, params.id);
  }

  @Post(':user_id/:resource')
  @UserTokenRoute()
  @HttpCode(200)
  @LargeBody()
  @ZodResponse({ status: 200, type: IngestionResultResponse })
  ingest(@CurrentTeam() team: TeamPrincipal, @Param() params: TimeseriesIngestParams, @Body() body: IngestionEnvelopeDto) {
    return this.ingestion.ingestTimeseries(team, params.user_id, params.resource, body);
  }

  @Get(':user_id/:resource/grouped')
  @UserTokenRoute()
  // The service writes this body as JSON text (JsonText): sent as it is, with the content type
  // Fastify gives the JSON it serializes.
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOkResponse({ type: GroupedTimeseriesResponse.Output })
  grouped(@CurrentTeam() team: TeamPrincipal, @Param() params: TimeseriesReadParams, @Query() query: GroupedQuery) {
    return this.queries.grouped(team, params.user_id, params.resource, query);
  }

  @Get(':user_id/:resource')
  @UserTokenRoute()
  @ZodResponse({ status: 200, type: SampleListResponse })
  legacy(@CurrentTeam() team: TeamPrincipal, @Param() params: TimeseriesReadParams, @Query() query: RangeQuery) {
    return this.queries.legacy(team, params.user_id, params.resource, query);
  }

  @Get(':user_id/:resource/:subtype')
  @UserTokenRoute()
  @ZodResponse({ status: 200, type: SampleListResponse })
  legacySubtype(@CurrentTeam() team: TeamPrincipal, @Param() params: SubtypeReadParams, @Query() query: RangeQuery) {
    return this.queries.legacySubtype(team, params.user_id, params.resource, params.subtype, query);
  }
}
