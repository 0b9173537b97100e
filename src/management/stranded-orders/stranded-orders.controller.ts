import { Controller, Get } from '@nestjs/common';
import { Param, Query } from '../../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import { OrgTeamParams } from '../teams/teams.dto';
import { ListStrandedOrdersQuery, StrandedOrderListDto } from './stranded-orders.dto';
import { StrandedOrdersService } from './stranded-orders.service';

@ApiTags('stranded_orders')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/stranded_orders')
export class StrandedOrdersController {
  constructor(private readonly stranded: StrandedOrdersService) {}

  /** Orders of the team whose workflow closed, vanished or stalled while they had not ended. */
  @Get()
  @ZodResponse({ status: 200, type: StrandedOrderListDto })
  list(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: OrgTeamParams, @Query() query: ListStrandedOrdersQuery) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.stranded.list(params.org_id, params.team_id, query);
  }
}
