import { Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { UserTokenRoute } from '../auth/user-tokens';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, Public, type TeamPrincipal } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import {
  BeginLinkDto,
  CompleteMfaDto,
  EmailAuthLinkDto,
  EmailProviderDto,
  LinkProviderParams,
  LinkTokenDto,
  LinkTokenValidationDto,
  ManualConnectionDto,
  ManualProviderParams,
  OauthProviderParams,
  PasswordAuthLinkDto,
  PasswordProviderDto,
} from './link.dto';
import { LinkService } from './link.service';
import { ZodResponse } from 'nestjs-zod';
import { SuccessResponse } from '../common/openapi';
import {
  LinkConnectionAttemptResponse,
  LinkProviderListResponse,
  LinkStartResponse,
  LinkStateResponse,
  LinkTokenResponse,
  LinkTokenValidityResponse,
  OauthProviderResponse,
  TeamLinkConfigResponse,
} from './link-responses.dto';

const LINK_TOKEN = 'x-vital-link-token';
const linkTokenHeader = ApiHeader({ name: LINK_TOKEN, required: true, description: 'The link token from POST /v2/link/token.' });

/**
 * Junction's Link: the team's backend makes a link token (API key); the routes after it are
 * called from the user's browser (the hosted Link page, or the team's own UI) with the link
 * token instead of an API key.
 */
@ApiTags('link')
@Controller('v2/link')
@LimitedPerAddress('link')
export class LinkController {
  constructor(private readonly link: LinkService) {}

  @Post('token')
  @HttpCode(200)
  @ApiSecurity('team-api-key')
  @ApiOperation({ summary: 'A link token for one user: ten minutes, one connection. link_web_url opens the hosted Link page.' })
  @ZodResponse({ status: 200, type: LinkTokenResponse })
  token(@CurrentTeam() team: TeamPrincipal, @Body() body: LinkTokenDto) {
    return this.link.createToken(team, body);
  }

  @Post('token/isValid')
  @HttpCode(200)
  @ApiSecurity('team-api-key')
  @ApiOperation({ summary: "Whether one of the team's link tokens can still connect someone." })
  @ZodResponse({ status: 200, type: LinkTokenValidityResponse })
  isValid(@CurrentTeam() team: TeamPrincipal, @Body() body: LinkTokenValidationDto) {
    return this.link.isValid(team, body.token);
  }

  @Get('state')
  @Public()
  @linkTokenHeader
  @ApiOperation({ summary: "Where the link token's flow stands (poll it as a heartbeat)." })
  @ZodResponse({ status: 200, type: LinkStateResponse })
  state(@Headers(LINK_TOKEN) token?: string) {
    return this.link.state(token);
  }

  @Get('providers')
  @Public()
  @linkTokenHeader
  @ApiOperation({ summary: 'The providers the link token offers, with how each signs in.' })
  @ZodResponse({ status: 200, type: LinkProviderListResponse })
  providers(@Headers(LINK_TOKEN) token?: string) {
    return this.link.providers(token);
  }

  @Post('start')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'The user picked a provider.' })
  @ZodResponse({ status: 200, type: LinkStartResponse })
  start(@Body() body: BeginLinkDto) {
    return this.link.start(body.link_token, body.provider);
  }

  @Get('provider/oauth/:oauth_provider')
  @Public()
  @linkTokenHeader
  @ApiOperation({ summary: "The provider's page where the user grants access (oauth_url); it returns to labflow, which connects the user." })
  @ZodResponse({ status: 200, type: OauthProviderResponse })
  oauth(@Param() params: OauthProviderParams, @Headers(LINK_TOKEN) token?: string) {
    return this.link.beginOauth(token, params.oauth_provider);
  }

  @Post('provider/password/:provider')
  @Public()
  @HttpCode(200)
  @linkTokenHeader
  @ApiOperation({ summary: "Connect with the user's username and password at the provider (never stored)." })
  @ZodResponse({ status: 200, type: LinkConnectionAttemptResponse })
  password(@Param() params: LinkProviderParams, @Body() body: PasswordProviderDto, @Headers(LINK_TOKEN) token?: string) {
    return this.link.connectPassword(token, params.provider, body);
  }

  @Post('provider/password/:provider/complete_mfa')
  @Public()
  @HttpCode(200)
  @linkTokenHeader
  @ApiOperation({ summary: 'The second factor the provider asked for.' })
  @ZodResponse({ status: 200, type: LinkConnectionAttemptResponse })
  completeMfa(@Param() params: LinkProviderParams, @Body() body: CompleteMfaDto, @Headers(LINK_TOKEN) token?: string) {
    return this.link.completeMfa(token, params.provider, body.mfa_code);
  }

  @Post('provider/email/:provider')
  @Public()
  @HttpCode(200)
  @linkTokenHeader
  @ApiOperation({ summary: 'Connect a provider that shares data by an e-mail invitation (Freestyle Libre).' })
  @ZodResponse({ status: 200, type: LinkConnectionAttemptResponse })
  email(@Param() params: LinkProviderParams, @Body() body: EmailProviderDto, @Headers(LINK_TOKEN) token?: string) {
    return this.link.connectEmail(token, params.provider, body.email, body.region);
  }

  @Post('provider/manual/:provider')
  @UserTokenRoute({ body: 'user_id' })
  @HttpCode(200)
  @ApiSecurity('team-api-key')
  @ApiOperation({ summary: "A source whose data the user's phone or app pushes (HealthKit, Health Connect, Bluetooth meters): connected at once." })
  @ZodResponse({ status: 200, type: SuccessResponse })
  manual(@CurrentTeam() team: TeamPrincipal, @Param() params: ManualProviderParams, @Body() body: ManualConnectionDto) {
    return this.link.connectManual(team, params.provider, body.user_id, body.provider_id);
  }

  @Post('auth')
  @Public()
  @HttpCode(200)
  @linkTokenHeader
  @ApiOperation({ summary: 'Deprecated by Junction for POST /v2/link/provider/password/{provider}; the same.', deprecated: true })
  @ZodResponse({ status: 200, type: LinkConnectionAttemptResponse })
  passwordAuth(@Body() body: PasswordAuthLinkDto, @Headers(LINK_TOKEN) token?: string) {
    return this.link.connectPassword(token, body.provider, body);
  }

  @Post('auth/email')
  @Public()
  @HttpCode(200)
  @linkTokenHeader
  @ApiOperation({ summary: 'Deprecated by Junction for POST /v2/link/provider/email/{provider}; the same.', deprecated: true })
  @ZodResponse({ status: 200, type: LinkConnectionAttemptResponse })
  emailAuth(@Body() body: EmailAuthLinkDto, @Headers(LINK_TOKEN) token?: string) {
    return this.link.connectEmail(token, body.provider, body.email, body.region);
  }
}

/** `GET /v2/team/link/config`: what the Link widget shows of the team, for the link token's holder. */
@ApiTags('team')
@Controller('v2/team/link')
@LimitedPerAddress('link')
export class TeamLinkConfigController {
  constructor(private readonly link: LinkService) {}

  @Get('config')
  @Public()
  @linkTokenHeader
  @ApiOperation({
    summary:
      "The Link widget settings of the link token's team, as the management API sets them (name, logo_url, brand_information, the environment's settings), and the providers the token offers.",
  })
  @ZodResponse({ status: 200, type: TeamLinkConfigResponse })
  config(@Headers(LINK_TOKEN) token?: string) {
    return this.link.teamConfig(token);
  }
}
