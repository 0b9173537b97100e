import { Injectable } from '@nestjs/common';
import type { ManagementPrincipal } from '../../auth/principal';
import { ApiKeysService } from '../../auth/api-keys.service';
import type { ApiEnvironment, Region, TeamApiKeyEntity } from '../../tenancy/entities';
import { canActOnTeam, teamRestriction } from '../common/access';
import type { KeysetPosition } from '../../common/keyset-cursor';
import { type BulkResult, PAGE_SIZE } from '../common/params';
import { TeamLookup } from '../teams/team-lookup';
import type { TeamApiKeyView } from './team-api-keys.dto';
import { TeamApiKeysRepository } from './team-api-keys.repository';

export interface KeyScope {
  environment: ApiEnvironment;
  region: Region;
}

/** Team API keys (main API credentials) per environment and region. */
@Injectable()
export class TeamApiKeysService {
  constructor(
    private readonly keys: TeamApiKeysRepository,
    private readonly issuer: ApiKeysService,
    private readonly teams: TeamLookup,
  ) {}

  /** Without team_id: every team the caller may act on. The team, if given, is authorized already. */
  async list(caller: ManagementPrincipal, scope: KeyScope, teamId: string | undefined, after: KeysetPosition | undefined) {
    if (teamId) await this.teams.requireInOrg(caller.orgId, teamId);
    const page = await this.keys.listLivePage(
      { orgId: caller.orgId, ...scope },
      { teamId, onlyTeamIds: teamRestriction(caller) ?? undefined },
      after,
      PAGE_SIZE,
    );
    return { api_keys: page.items.map(toView), next_cursor: page.nextCursor };
  }

  async create(orgId: string, scope: KeyScope, teamId: string, label: string) {
    const team = await this.teams.requireInRegion(orgId, teamId, scope.region, ['path', 'region']);
    const { record, value } = await this.issuer.issueTeamKey(team, scope.environment, label);
    return { id: record.id, label: record.label, value, team_id: record.teamId, created_at: record.createdAt.toISOString() };
  }

  /**
   * Revokes keys: `success` (revoked now, or already revoked), `not_found` (no such key in this
   * org, environment and region, or a key of a team the caller is not bound to: a team-admin key
   * learns nothing of other teams' keys, so both answer alike). `failure` stays empty.
   */
  async revoke(caller: ManagementPrincipal, scope: KeyScope, ids: string[]): Promise<BulkResult> {
    const unique = [...new Set(ids)];
    const found = new Map((await this.keys.findInScope({ orgId: caller.orgId, ...scope }, unique)).map((key) => [key.id, key]));
    const result: BulkResult = { success: [], failure: [], not_found: [] };
    for (const id of unique) {
      const key = found.get(id);
      if (key && canActOnTeam(caller, key.teamId)) result.success.push(id);
      else result.not_found.push(id);
    }
    await this.keys.revoke(result.success);
    return result;
  }
}

function toView(key: TeamApiKeyEntity): TeamApiKeyView {
  return { id: key.id, label: key.label, team_id: key.teamId, created_at: key.createdAt.toISOString(), key_prefix: key.keyPrefix };
}
