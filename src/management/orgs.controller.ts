import { Controller, Get, Patch } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../auth/principal';
import { authorizeOrgAdmin } from './common/access';
import { OrgIdParams } from './common/dtos';
import { OrgDto, PatchOrgDto } from './orgs.dto';
import { OrgsService } from './orgs.service';

/** The org itself: org keys only (a key never sees another org: a foreign id answers 404). */
@ApiTags('org')
@ApiSecurity('management-key')
@Controller('v1/org')
export class OrgsController {
  constructor(private readonly orgs: OrgsService) {}

  @Get(':org_id')
  @ZodResponse({ status: 200, type: OrgDto })
  get(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams) {
    authorizeOrgAdmin(key, params.org_id, 'Reading the org');
    return this.orgs.get(params.org_id);
  }

  @Patch(':org_id')
  @ZodResponse({ status: 200, type: OrgDto })
  patch(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgIdParams, @Body() body: PatchOrgDto) {
    authorizeOrgAdmin(key, params.org_id, 'Changing the org');
    return this.orgs.rename(params.org_id, body.name);
  }
}
