import { Controller, Delete, Get } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { WebhookPortalAccessService } from './webhook-portal-access.service';
import { RevokedWebhookPortalSessionsDto } from '../management/webhooks/webhook-portal-sessions.dto';
import { WebhookPortalUrlDto } from './webhook-portal.dto';

@ApiTags('team')
@ApiSecurity('team-api-key')
@Controller('v2/team')
export class WebhookPortalUrlsController {
  constructor(private readonly access: WebhookPortalAccessService) {}

  @Get('svix/url')
  @ApiOperation({
    summary: 'A short-lived URL to the hosted webhook portal',
    description:
      "The team's webhook endpoints in the key's environment, each message with its payload and attempts; resend, recover since a time, disable and enable. The URL opens once, within expires_in seconds.",
  })
  @ZodResponse({ status: 200, type: WebhookPortalUrlDto })
  url(@CurrentTeam() team: TeamPrincipal) {
    return this.access.launchUrl(team);
  }

  @Delete('svix/sessions')
  @ApiOperation({
    summary: "Revoke the team's webhook portal sessions (labflow extension)",
    description:
      "Every open session of the hosted webhook portal in the key's environment, and every portal URL not yet opened, is refused from its next request on. Answers how many were revoked.",
  })
  @ZodResponse({ status: 200, type: RevokedWebhookPortalSessionsDto })
  revoke(@CurrentTeam() team: TeamPrincipal) {
    return this.access.revokeAll(team);
  }
}
