import { Controller, Get } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { AreaInfoQuery, OrderAppointmentParams, OrderPscInfoQuery, PscInfoQuery } from './appointments.dto';
import { AppointmentAreasService } from './appointment-areas.service';
import { ZodResponse } from 'nestjs-zod';
import { AreaInfoResponse, PscInfoResponse } from './appointment-responses.dto';

/** Where a patient can be served: at-home phlebotomy and each lab's service centers around a zip code. */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@Controller('v3/order')
export class AppointmentAreasController {
  constructor(private readonly areas: AppointmentAreasService) {}

  @Get('area/info')
  @ZodResponse({ status: 200, type: AreaInfoResponse })
  areaInfo(@CurrentTeam() team: TeamPrincipal, @Query() query: AreaInfoQuery) {
    return this.areas.areaInfo(team, query);
  }

  @Get('psc/info')
  @ZodResponse({ status: 200, type: PscInfoResponse })
  pscInfo(@CurrentTeam() team: TeamPrincipal, @Query() query: PscInfoQuery) {
    return this.areas.pscInfo(team, query);
  }

  @Get(':order_id/psc/info')
  @ZodResponse({ status: 200, type: PscInfoResponse })
  orderPscInfo(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Query() query: OrderPscInfoQuery) {
    return this.areas.orderPscInfo(team, params.order_id, query);
  }
}
