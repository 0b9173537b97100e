import { Injectable } from '@nestjs/common';
import type { ManagementPrincipal } from '../../auth/principal';
import { notFound, validationError } from '../../common/errors';
import type { Region, TeamEntity } from '../../tenancy/entities';
import { canActOnTeam } from '../common/access';
import { TeamsRepository } from './teams.repository';

/** Used by the team-scoped resources (keys, webhooks, pipelines, credentials) to find a team. */
@Injectable()
export class TeamLookup {
  constructor(private readonly teams: TeamsRepository) {}

  /** The team, if it belongs to the org; 404 otherwise. */
  async requireInOrg(orgId: string, teamId: string): Promise<TeamEntity> {
    const team = await this.teams.findInOrg(orgId, teamId);
    if (!team) throw notFound('Team');
    return team;
  }

  /** As requireInOrg, and the team must live in `region` (a 422 on `loc` otherwise). */
  async requireInRegion(orgId: string, teamId: string, region: Region, loc: Array<string | number>): Promise<TeamEntity> {
    const team = await this.requireInOrg(orgId, teamId);
    if (team.region !== region) {
      throw validationError(loc, `Team ${teamId} is in region ${team.region}, not ${region}.`, teamId, 'value_error', {
        region: team.region,
      });
    }
    return team;
  }

  /**
   * The teams among `teamIds` that belong to the key's org and that it may act on, for a bulk
   * operation; the others (no team, another org's, outside the key's bindings) are all alike unknown.
   */
  async actionable(key: ManagementPrincipal, teamIds: string[]): Promise<TeamEntity[]> {
    const found = await this.teams.findManyInOrg(key.orgId, teamIds);
    return found.filter((team) => canActOnTeam(key, team.id));
  }
}
