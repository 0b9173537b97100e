import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { Body, Param } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { UserIdParams } from '../users/users.dto';
import { CreatePortalUrlDto, CreatePortalUrlResponseDto, PortalUrlParams, RevokedPortalUrlsDto } from './portal-urls.dto';
import { PortalUrlsService } from './portal-urls.service';

@ApiTags('user')
@ApiSecurity('team-api-key')
@Controller('v2/user')
export class PortalUrlsController {
  constructor(private readonly urls: PortalUrlsService) {}

  @Post(':user_id/create_portal_url')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: CreatePortalUrlResponseDto })
  create(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams, @Body() body: CreatePortalUrlDto) {
    return this.urls.create(team, params.user_id, body);
  }

  /** Revokes one communications URL: its short link shows "revoked" from now on. */
  @Delete(':user_id/portal_url/:code')
  @ZodResponse({ status: 200, type: RevokedPortalUrlsDto })
  revoke(@CurrentTeam() team: TeamPrincipal, @Param() params: PortalUrlParams) {
    return this.urls.revoke(team, params.user_id, params.code);
  }

  /** Revokes every communications URL of the user. */
  @Delete(':user_id/portal_urls')
  @ZodResponse({ status: 200, type: RevokedPortalUrlsDto })
  revokeAll(@CurrentTeam() team: TeamPrincipal, @Param() params: UserIdParams) {
    return this.urls.revokeAll(team, params.user_id);
  }
}
