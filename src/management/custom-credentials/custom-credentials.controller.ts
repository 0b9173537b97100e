import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeOrg, authorizeTeam } from '../common/access';
import { BulkResultDto, OrgEnvRegionParams } from '../common/dtos';
import {
  CustomCredentialDto,
  CustomCredentialListDto,
  DeleteCustomCredentialsQuery,
  ListCustomCredentialsQuery,
  UpsertCustomCredentialDto,
} from './custom-credentials.dto';
import { CustomCredentialsService } from './custom-credentials.service';

@ApiTags('team_custom_credentials')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team_custom_credentials/:env/:region')
export class CustomCredentialsController {
  constructor(private readonly credentials: CustomCredentialsService) {}

  @Get()
  @ZodResponse({ status: 200, type: CustomCredentialListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: ListCustomCredentialsQuery) {
    if (query.team_id) authorizeTeam(key, params.org_id, query.team_id);
    else authorizeOrg(key, params.org_id);
    return this.credentials.list(key, scopeOf(params), query);
  }

  @Post()
  @ZodResponse({ status: 200, type: CustomCredentialDto })
  upsert(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Body() body: UpsertCustomCredentialDto) {
    authorizeTeam(key, params.org_id, body.team_id);
    return this.credentials.upsert(params.org_id, scopeOf(params), body);
  }

  @Delete()
  @ZodResponse({ status: 200, type: BulkResultDto })
  delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgEnvRegionParams, @Query() query: DeleteCustomCredentialsQuery) {
    authorizeOrg(key, params.org_id);
    return this.credentials.delete(key, scopeOf(params), query.credential_id);
  }
}

function scopeOf(params: OrgEnvRegionParams) {
  return { environment: params.env, region: params.region };
}
