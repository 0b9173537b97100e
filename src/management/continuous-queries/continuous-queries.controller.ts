import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { Body, Param } from '../../common/request-params';
import { ApiNoContentResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import {
  ContinuousQueriesParams,
  ContinuousQueryParams,
  CreateContinuousQueryDto,
  PatchContinuousQueryDto,
  ContinuousQueryListResponse,
  ContinuousQueryResponse,
} from './continuous-queries.dto';
import { ContinuousQueriesManagementService, type QueryTarget } from './continuous-queries.service';
import { ZodResponse } from 'nestjs-zod';

/**
 * A team's continuous queries (Junction defines them in its dashboard): org keys, or team-admin
 * keys bound to the team. The API reads them per user (`/aggregate/v1/user/{user_id}/continuous_query/…`).
 */
@ApiTags('continuous_query')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/:environment/continuous_query')
export class ContinuousQueriesManagementController {
  constructor(private readonly queries: ContinuousQueriesManagementService) {}

  @Get()
  @ZodResponse({ status: 200, type: ContinuousQueryListResponse })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueriesParams) {
    return this.queries.list(target(key, params));
  }

  @Post()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: ContinuousQueryResponse })
  create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueriesParams, @Body() body: CreateContinuousQueryDto) {
    return this.queries.create(target(key, params), body);
  }

  @Get(':query_id_or_slug')
  @ZodResponse({ status: 200, type: ContinuousQueryResponse })
  get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams) {
    return this.queries.get(target(key, params), params.query_id_or_slug);
  }

  @Patch(':query_id_or_slug')
  @ZodResponse({ status: 200, type: ContinuousQueryResponse })
  patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams, @Body() body: PatchContinuousQueryDto) {
    return this.queries.update(target(key, params), params.query_id_or_slug, body);
  }

  @Delete(':query_id_or_slug')
  @HttpCode(204)
  @ApiNoContentResponse()
  async delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ContinuousQueryParams): Promise<void> {
    await this.queries.remove(target(key, params), params.query_id_or_slug);
  }
}

/** Authorizes the key for the team in the path and names the team's queries. */
function target(key: ManagementPrincipal, params: ContinuousQueriesParams): QueryTarget {
  authorizeTeam(key, params.org_id, params.team_id);
  return { orgId: params.org_id, teamId: params.team_id, environment: params.environment };
}
