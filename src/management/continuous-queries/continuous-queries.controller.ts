import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { ContinuousQueriesService } from '../../health-data/continuous-queries/continuous-queries.service';
import { TeamLookup } from '../teams/team-lookup';
import { authorizeTeam } from '../common/access';
import { ContinuousQueriesParams, ContinuousQueryParams, CreateContinuousQueryDto, PatchContinuousQueryDto } from './continuous-queries.dto';

/**
 * A team's continuous queries (Junction defines them in its dashboard): org keys, or team-admin
 * keys bound to the team. The API reads them per user (`/aggregate/v1/user/{user_id}/continuous_query/…`).
 */
@ApiTags('continuous_query')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/:environment/continuous_query')
export class ContinuousQueriesManagementController {
  constructor(
    private readonly queries: ContinuousQueriesService,
    private readonly teams: TeamLookup,
  ) {}

  @Get()
  async list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueriesParams) {
    return this.queries.list(await this.owner(key, params));
  }

  @Post()
  @HttpCode(200)
  async create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueriesParams, @Body() body: CreateContinuousQueryDto) {
    return this.queries.define(await this.owner(key, params), body);
  }

  @Get(':query_id_or_slug')
  async get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams) {
    return this.queries.get(await this.owner(key, params), params.query_id_or_slug);
  }

  @Patch(':query_id_or_slug')
  async patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams, @Body() body: PatchContinuousQueryDto) {
    return this.queries.update(await this.owner(key, params), params.query_id_or_slug, body);
  }

  @Delete(':query_id_or_slug')
  @HttpCode(204)
  @ApiNoContentResponse()
  async delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams): Promise<void> {
    await this.queries.remove(await this.owner(key, params), params.query_id_or_slug);
  }

  /** Authorizes the key for the team in the path (which must be the org's) and names the team's queries. */
  private async owner(key: ManagementPrincipal, params: ContinuousQueriesParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    await this.teams.requireInOrg(params.org_id, params.team_id);
    return { teamId: params.team_id, environment: params.environment };
  }
}
