import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeOrg, authorizeTeam } from '../common/access';
import { BulkResultDto, OrgEnvRegionParams } from '../common/dtos';
import { DeleteEtlPipelinesQuery, EtlPipelineListDto, ListEtlPipelinesQuery, UpsertEtlPipelineDto } from './etl-pipelines.dto';
import { EtlPipelinesService } from './etl-pipelines.service';

/** Event destinations (ETL pipelines), Scale plan: org keys, or team-admin keys for their teams. */
@ApiTags('team_etl_pipelines')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team_etl_pipelines/:env/:region')
export class EtlPipelinesController {
  constructor(private readonly pipelines: EtlPipelinesService) {}

  @Get()
  @ZodResponse({ status: 200, type: EtlPipelineListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: ListEtlPipelinesQuery) {
    if (query.team_id) authorizeTeam(key, params.org_id, query.team_id);
    else authorizeOrg(key, params.org_id);
    return this.pipelines.list(key, scopeOf(params), query.team_id, query.next_cursor);
  }

  /** Creates or replaces the pipeline of every team in team_ids (all or none). */
  @Post()
  @ZodResponse({ status: 200, type: EtlPipelineListDto })
  upsert(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Body() body: UpsertEtlPipelineDto) {
    for (const teamId of body.team_ids) authorizeTeam(key, params.org_id, teamId);
    return this.pipelines.upsert(params.org_id, scopeOf(params), body);
  }

  @Delete()
  @ZodResponse({ status: 200, type: BulkResultDto })
  delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: DeleteEtlPipelinesQuery) {
    authorizeOrg(key, params.org_id);
    return this.pipelines.delete(key, scopeOf(params), query.team_id);
  }
}

function scopeOf(params: OrgEnvRegionParams) {
  return { environment: params.env, region: params.region };
}
