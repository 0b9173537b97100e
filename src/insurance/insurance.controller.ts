import { Controller, Get, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { ClientFacingInsuranceDto, CreateInsuranceDto, InsuranceUserParams, LatestInsuranceQuery } from './insurance.dto';
import { InsuranceService } from './insurance.service';

@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user/:user_id/insurance')
export class InsuranceController {
  constructor(private readonly insurance: InsuranceService) {}

  @Post()
  @ZodResponse({ status: 200, description: 'The stored insurance, with company resolved from payor_code.', type: ClientFacingInsuranceDto })
  create(@CurrentTeam() team: TeamPrincipal, @Param() params: InsuranceUserParams, @Body() body: CreateInsuranceDto) {
    return this.insurance.create(team, params.user_id, body);
  }

  @Get('latest')
  @ZodResponse({ status: 200, description: 'The most recently created insurance of the user.', type: ClientFacingInsuranceDto })
  latest(@CurrentTeam() team: TeamPrincipal, @Param() params: InsuranceUserParams, @Query() query: LatestInsuranceQuery) {
    return this.insurance.latest(team, params.user_id, query.is_primary);
  }
}
