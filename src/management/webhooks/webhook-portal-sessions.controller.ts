import { Controller, Delete } from '@nestjs/common';
import { Param } from '../../common/request-params';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { CurrentManagementKey, type ManagementPrincipal } from '../../auth/principal';
import { authorizeTeam } from '../common/access';
import { RevokedWebhookPortalSessionsDto } from './webhook-portal-sessions.dto';
import { WebhookPortalSessionsService } from './webhook-portal-sessions.service';
import { WebhooksParams } from './webhooks.dto';

/** The hosted webhook portal's sessions of a team: org keys, or team-admin keys bound to the team. */
@ApiTags('webhook')
@ApiSecurity('management-key')
@Controller('v1/org/:org_id/team/:team_id/:environment/webhook_portal')
export class WebhookPortalSessionsController {
  constructor(private readonly sessions: WebhookPortalSessionsService) {}

  @Delete('sessions')
  @ApiOperation({
    summary: "Revoke the team's webhook portal sessions",
    description:
      'Every open session of the hosted webhook portal in the environment, and every portal URL not yet opened, is refused from its next request on.',
  })
  @ZodResponse({ status: 200, type: RevokedWebhookPortalSessionsDto })
  revoke(@CurrentManagementKey() key: ManagementPrincipal, @Param() params: WebhooksParams) {
    authorizeTeam(key, params.org_id, params.team_id);
    return this.sessions.revokeInOrg(params.org_id, { teamId: params.team_id, environment: params.environment });
  }
}
