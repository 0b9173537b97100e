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
   * Sorts ids for a bulk operation: teams of the org the key may act on (`allowed`), teams of
   * the org outside the key's bindings (`refused`), and ids that are no team of the org.
   */
  async partition(key: ManagementPrincipal, teamIds: string[]) {
    const found = await this.teams.findManyInOrg(key.orgId, teamIds);
    const byId = new Map(found.map((team) => [team.id, team]));
    const allowed: TeamEntity[] = [];
    const refused: string[] = [];
    const unknown: string[] = [];
    for (const id of teamIds) {
      const team = byId.get(id);
      if (!team) unknown.push(id);
      else if (!canActOnTeam(key, id)) refused.push(id);
      else allowed.push(team);
    }
    return { allowed, refused, unknown };
  }
}
