import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { Body, Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { CreatePayorDto, PayorSearchBody, PayorSearchQuery, DeprecatedPayorListResponse, PayorListResponse, PayorResponse } from './payors.dto';
import { PayorsService } from './payors.service';
import { ZodResponse } from 'nestjs-zod';

/** Payor search and a team's own payors (Junction's insurance and payor routes). */
@ApiTags('insurance')
@ApiSecurity('team-api-key')
@Controller()
export class PayorsController {
  constructor(private readonly payors: PayorsService) {}

  @Get('v3/insurance/search/payor')
  @ZodResponse({ status: 200, type: PayorListResponse })
  search(@CurrentTeam() team: TeamPrincipal, @Query() query: PayorSearchQuery) {
    return this.payors.search(team, { name: query.insurance_name, provider: query.provider, providerPayorId: query.provider_payor_id });
  }

  /** The older search: a body instead of a query, and each payor's code as `code`. */
  @Post('v3/insurance/search/payor')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: DeprecatedPayorListResponse })
  async searchDeprecated(@CurrentTeam() team: TeamPrincipal, @Body() body: PayorSearchBody) {
    const found = await this.payors.search(team, {
      name: body.insurance_name ?? undefined,
      provider: body.provider ?? undefined,
      providerPayorId: body.provider_id ?? undefined,
    });
    return found.map(({ payor_code, ...rest }) => ({ code: payor_code, ...rest }));
  }

  @Post('v3/payor')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PayorResponse })
  create(@CurrentTeam() team: TeamPrincipal, @Body() body: CreatePayorDto) {
    return this.payors.create(team, body);
  }
}
