import { Controller, HttpCode, Post } from '@nestjs/common';
import { Query } from '../common/request-params';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, Public, type TeamPrincipal } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { ZodResponse } from 'nestjs-zod';
import { CreateLinkCodeQuery, ExchangeLinkCodeQuery, LinkCodeDto, LinkCodeExchangeResponse } from './mobile.dto';
import { LinkCodesService } from './link-codes.service';

@ApiTags('link')
@Controller('v2/link/code')
@LimitedPerAddress('link')
export class LinkCodesController {
  constructor(private readonly codes: LinkCodesService) {}

  @Post('create')
  @HttpCode(200)
  @ApiSecurity('team-api-key')
  @ApiOperation({ summary: 'A code for one user that an app exchanges once for a sign-in token (LINK_CODE_TTL, one hour, unless expires_at).' })
  @ApiOkResponse({ type: LinkCodeDto })
  create(@CurrentTeam() team: TeamPrincipal, @Query() query: CreateLinkCodeQuery) {
    return this.codes.create(team, query.user_id, query.expires_at ? new Date(query.expires_at) : undefined);
  }

  @Post('exchange')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'The link code, once, for a sign-in token of its user and the team it belongs to (name, logo).' })
  @ZodResponse({ status: 200, type: LinkCodeExchangeResponse })
  exchange(@Query() query: ExchangeLinkCodeQuery) {
    return this.codes.exchange(query.code);
  }
}
