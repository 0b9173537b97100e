import { Controller, Delete, Get, Patch, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeOrg, authorizeOrgAdmin, authorizeTeam } from '../common/access';
import { OrgIdParams, SuccessDto } from '../common/dtos';
import { CreateTeamDto, ListTeamsQuery, OrgTeamParams, PatchTeamDto, ResolveTeamDto, TeamDto, TeamListDto } from './teams.dto';
import { TeamsService } from './teams.service';

@ApiTags('team')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  /** Org keys see every team; team-admin keys see only their bound teams. */
  @Get('team')
  @ZodResponse({ status: 200, type: TeamListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Query() query: ListTeamsQuery) {
    if (query.team_id) authorizeTeam(key, params.org_id, query.team_id);
    else authorizeOrg(key, params.org_id);
    return this.teams.list(key, query);
  }

  @Post('team')
  @ZodResponse({ status: 200, type: TeamDto })
  create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Body() body: CreateTeamDto) {
    authorizeOrgAdmin(key, params.org_id, 'Creating a team');
    return this.teams.create(params.org_id, body);
  }

  @Post('resolve_team')
  @ZodResponse({ status: 200, type: TeamDto })
  resolve(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Body() body: ResolveTeamDto) {
    authorizeOrg(key, params.org_id);
    return this.teams.resolve(key, body.integration_team_id);
  }

  @Get('team/:team_id')
  @ZodResponse({ status: 200, type: TeamDto })
  get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.teams.get(params.org_id, params.team_id);
  }

  @Patch('team/:team_id')
  @ZodResponse({ status: 200, type: TeamDto })
  patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamParams, @Body() body: PatchTeamDto) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.teams.patch(params.org_id, params.team_id, body);
  }

  @Delete('team/:team_id')
  @ZodResponse({ status: 200, type: SuccessDto })
  delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamParams) {
    authorizeOrgAdmin(key, params.org_id, 'Deleting a team');
    return this.teams.delete(params.org_id, params.team_id);
  }
}
