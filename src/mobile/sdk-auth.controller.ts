import { Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, Public, type TeamPrincipal } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { UserTokenRoute } from '../auth/user-tokens';
import { UserIdParams } from '../users/users.dto';
import { SdkSyncService } from './sdk-sync.service';
import { ZodResponse } from 'nestjs-zod';
import { SuccessResponse } from '../common/openapi';
import {
  HistoricalStageDto,
  JwksResponse,
  SdkProviderParams,
  SdkSyncStateResponse,
  SignInTokenResponseDto,
  SignOutResponse,
  SyncProgressDto,
  TokenRequestDto,
  TokenResponseDto,
} from './mobile.dto';
import { SdkTokensService, TOKEN_EXCHANGE_GRANT, tokenRefusal } from './sdk-tokens.service';
import { SigningKeys } from './signing-keys';

/** The team's backend signs a user's phone in: a sign-in token, and signing the user out everywhere. */
@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user')
export class SdkSignInController {
  constructor(
    private readonly tokens: SdkTokensService,
    private readonly sync: SdkSyncService,
  ) {}

  @Post(':user_id/sign_in_token')
  @HttpCode(200)
  @ApiOperation({ summary: 'A sign-in token for the mobile SDKs: one user, once, for MOBILE_SIGN_IN_TOKEN_TTL (10 minutes).' })
  @ApiOkResponse({ type: SignInTokenResponseDto })
  signInToken(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.tokens.createSignInToken(team, params.user_id);
  }

  @Post(':user_id/sdk_sync_state/:provider')
  @UserTokenRoute()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "What a phone source's SDK should sync (apple_health_kit, health_connect, samsung_health): status active | paused | error from its connection, the window to read, the user's ingestion bounds.",
  })
  @ZodResponse({ status: 200, type: SdkSyncStateResponse })
  sdkSyncState(@CurrentTeam() team: TeamPrincipal, @Param() params: SdkProviderParams) {
    return this.sync.state(team, params.user_id, params.provider);
  }

  @Post(':user_id/sdk_start_historical_stage/:provider')
  @UserTokenRoute()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "The iOS SDK begins a historical stage: the range it will upload of one backfill type (heartrate, steps…), recorded on the user's connection (the same type begun again replaces it). 404 before the SDK connected the source.",
  })
  @ZodResponse({ status: 200, type: SuccessResponse })
  sdkStartHistoricalStage(@CurrentTeam() team: TeamPrincipal, @Param() params: SdkProviderParams, @Body() body: HistoricalStageDto) {
    return this.sync.startHistoricalStage(team, params.user_id, params.provider, body);
  }

  @Post(':user_id/sdk_sync_progress/:provider')
  @UserTokenRoute()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "The iOS SDK's sync progress report (every reporting interval): its progress per backfill type and the device, the latest kept on the user's connection.",
  })
  @ZodResponse({ status: 200, type: SuccessResponse })
  sdkSyncProgress(@CurrentTeam() team: TeamPrincipal, @Param() params: SdkProviderParams, @Body() body: SyncProgressDto) {
    return this.sync.reportProgress(team, params.user_id, params.provider, body);
  }

  @Post(':user_id/sign_out')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'labflow extension: signs the user out of every mobile SDK installation at once (their access and refresh tokens stop working, sign-in tokens not yet exchanged too). Deleting the user does the same.',
  })
  @ZodResponse({ status: 200, type: SignOutResponse })
  signOut(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.tokens.revoke(team, params.user_id);
  }
}

/** Where the mobile SDKs exchange and refresh their tokens, and labflow's public keys. */
@ApiTags('mobile sdk')
@Controller()
@LimitedPerAddress('link')
export class SdkTokenController {
  constructor(
    private readonly tokens: SdkTokensService,
    private readonly keys: SigningKeys,
  ) {}

  @Post('v1/token')
  @Public()
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @ApiOperation({
    summary:
      'RFC 8693 token exchange of a sign-in token (grant_type=urn:ietf:params:oauth:grant-type:token-exchange, subject_token) or refresh (grant_type=refresh_token): an access token for one user and a new refresh token. Refusals: 401 {detail: {error_type: invalid_token | reauthentication_required}}.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  token(@Body() body: TokenRequestDto) {
    if (body.grant_type === TOKEN_EXCHANGE_GRANT) {
      if (!body.subject_token) throw tokenRefusal('invalid_request', 'subject_token is required with the token-exchange grant.');
      return this.tokens.exchange(body.subject_token);
    }
    if (body.grant_type === 'refresh_token') {
      if (!body.refresh_token) throw tokenRefusal('invalid_request', 'refresh_token is required with the refresh_token grant.');
      return this.tokens.refresh(body.refresh_token);
    }
    throw tokenRefusal('invalid_request', `Unsupported grant_type: use ${TOKEN_EXCHANGE_GRANT} or refresh_token.`);
  }

  @Get('.well-known/jwks.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({ summary: 'The public keys that verify the sign-in and access tokens labflow signs (RS256), by kid.' })
  @ZodResponse({ status: 200, type: JwksResponse })
  jwks() {
    return this.keys.jwks();
  }
}
