import { Injectable } from '@nestjs/common';
import { notFound } from '../../common/errors';
import { TeamLookup } from '../teams/team-lookup';
import { TeamsRepository } from '../teams/teams.repository';
import { type PortalSessionScope, WebhookPortalSessionsRepository } from './webhook-portal-sessions.repository';

/**
 * Revoking a team's webhook portal sessions (`DELETE /v2/team/svix/sessions` with a team API key,
 * the management API's `DELETE …/{environment}/webhook_portal/sessions`, the ops CLI's
 * `webhook-portal revoke`): every open session and every launch URL not yet opened, in one
 * environment. The portal checks its session's row on every request, so the next one is refused.
 */
@Injectable()
export class WebhookPortalSessionsService {
  constructor(
    private readonly sessions: WebhookPortalSessionsRepository,
    private readonly teams: TeamsRepository,
    private readonly lookup: TeamLookup,
  ) {}

  /** The management API's: the team must be the org's (404 otherwise). */
  async revokeInOrg(orgId: string, scope: PortalSessionScope): Promise<{ success: true; revoked: number }> {
    await this.lookup.requireInOrg(orgId, scope.teamId);
    return { success: true, revoked: await this.sessions.revokeAll(scope) };
  }

  /** As revokeAll, for a team named by id alone (the ops CLI): 404 for no such team. */
  async revokeForTeam(scope: PortalSessionScope): Promise<{ success: true; revoked: number }> {
    if (!(await this.teams.findById(scope.teamId))) throw notFound('Team');
    return { success: true, revoked: await this.sessions.revokeAll(scope) };
  }
}
