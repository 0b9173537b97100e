import { Controller, Delete, Get, Patch, Post } from '@nestjs/common';
import { Body, Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeOrgAdmin } from '../common/access';
import { OrgIdParams, SuccessDto } from '../common/dtos';
import {
  CreatedManagementKeyDto,
  CreateManagementKeyDto,
  ListManagementKeysQuery,
  ManagementKeyDto,
  ManagementKeyListDto,
  ManagementKeyParams,
  PatchManagementKeyDto,
} from './management-keys.dto';
import { ManagementKeysService } from './management-keys.service';

/** Managing keys needs an org key: team-admin keys get 403 on every route here. */
@ApiTags('management_key')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/management_key')
export class ManagementKeysController {
  constructor(private readonly keys: ManagementKeysService) {}

  @Get()
  @ZodResponse({ status: 200, type: ManagementKeyListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Query() query: ListManagementKeysQuery) {
    authorizeOrgAdmin(key, params.org_id, 'Managing management keys');
    return this.keys.list(params.org_id, query);
  }

  @Post()
  @ZodResponse({ status: 200, type: CreatedManagementKeyDto })
  create(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Body() body: CreateManagementKeyDto) {
    authorizeOrgAdmin(key, params.org_id, 'Managing management keys');
    return this.keys.create(key, body);
  }

  @Patch(':key_id')
  @ZodResponse({ status: 200, type: ManagementKeyDto })
  patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ManagementKeyParams, @Body() body: PatchManagementKeyDto) {
    authorizeOrgAdmin(key, params.org_id, 'Managing management keys');
    return this.keys.patch(params.org_id, params.key_id, body);
  }

  @Delete(':key_id')
  @ZodResponse({ status: 200, type: SuccessDto })
  delete(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: ManagementKeyParams) {
    authorizeOrgAdmin(key, params.org_id, 'Managing management keys');
    return this.keys.revoke(params.org_id, params.key_id);
  }
}
