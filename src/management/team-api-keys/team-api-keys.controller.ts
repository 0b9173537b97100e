import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeOrg, authorizeTeam } from '../common/access';
import { BulkResultDto, OrgEnvRegionParams } from '../common/dtos';
import { CreatedTeamApiKeyDto, CreateTeamApiKeyDto, ListTeamApiKeysQuery, RevokeTeamApiKeysQuery, TeamApiKeyListDto } from './team-api-keys.dto';
import { TeamApiKeysService } from './team-api-keys.service';

@ApiTags('team_api_keys')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team_api_keys/:env/:region')
export class TeamApiKeysController {
  constructor(private readonly keys: TeamApiKeysService) {}

  @Get()
  @ZodResponse({ status: 200, type: TeamApiKeyListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: ListTeamApiKeysQuery) {
    if (query.team_id) authorizeTeam(key, params.org_id, query.team_id);
    else authorizeOrg(key, params.org_id);
    return this.keys.list(key, scopeOf(params), query.team_id, query.next_cursor);
  }

  /** The key value is in this response only. */
  @Post()
  @ZodResponse({ status: 200, type: CreatedTeamApiKeyDto })
  create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Body() body: CreateTeamApiKeyDto) {
    authorizeTeam(key, params.org_id, body.team_id);
    return this.keys.create(params.org_id, scopeOf(params), body.team_id, body.label);
  }

  @Delete()
  @ZodResponse({ status: 200, type: BulkResultDto })
  revoke(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: RevokeTeamApiKeysQuery) {
    authorizeOrg(key, params.org_id);
    return this.keys.revoke(key, scopeOf(params), query.api_key_id);
  }
}

function scopeOf(params: OrgEnvRegionParams) {
  return { environment: params.env, region: params.region };
}
