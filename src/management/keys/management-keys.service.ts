import { Injectable } from '@nestjs/common';
import type { ManagementPrincipal } from '../../auth/principal';
import { ApiKeysService } from '../../auth/api-keys.service';
import { conflict, notFound, validationError } from '../../common/errors';
import type { ManagementKeyEntity, ManagementKeyRole } from '../../tenancy/entities';
import { PAGE_SIZE } from '../common/params';
import { TeamsRepository } from '../teams/teams.repository';
import type { CreateManagementKeyDto, ListManagementKeysQuery, ManagementKeyView, PatchManagementKeyDto } from './management-keys.dto';
import { ManagementKeysRepository } from './management-keys.repository';

/** Management keys of an org. Only org keys get here (the controller checks). */
@Injectable()
export class ManagementKeysService {
  constructor(
    private readonly keys: ManagementKeysRepository,
    private readonly issuer: ApiKeysService,
    private readonly teams: TeamsRepository,
  ) {}

  async list(orgId: string, query: ListManagementKeysQuery) {
    const page = await this.keys.listActivePage(orgId, { teamId: query.team_id, role: query.role }, query.next_cursor, PAGE_SIZE);
    return { data: page.items.map(toView), next_cursor: page.nextCursor };
  }

  /** The value is in this response only; labflow keeps just its hash. */
  async create(caller: ManagementPrincipal, body: CreateManagementKeyDto): Promise<ManagementKeyView & { key: string }> {
    return this.createInOrg(caller.orgId, body, caller.keyId);
  }

  /** As `create`, for an org the caller names (the ops CLI: no key made it, so no creator). */
  async createInOrg(orgId: string, body: CreateManagementKeyDto, creatorKeyId: string | null): Promise<ManagementKeyView & { key: string }> {
    const teamIds = await this.checkBindings(orgId, body.role, body.team_role_bindings);
    const issued = await this.issuer.issueManagementKey(orgId, body.role, body.label, teamIds, creatorKeyId);
    return { ...toView(issued.record), key: issued.value };
  }

  async patch(orgId: string, keyId: string, body: PatchManagementKeyDto): Promise<ManagementKeyView> {
    const key = await this.keys.findActive(orgId, keyId);
    if (!key) throw notFound('Management key');
    if (body.label !== undefined) key.label = body.label;
    if (body.team_role_bindings !== undefined) key.teamIds = await this.checkBindings(orgId, key.role, body.team_role_bindings);
    return toView(await this.keys.save(key));
  }

  async revoke(orgId: string, keyId: string): Promise<{ success: true }> {
    const outcome = await this.keys.revoke(orgId, keyId);
    if (outcome === 'not_found') throw notFound('Management key');
    if (outcome === 'last_org_key') {
      throw conflict("This is the org's last org key; create another org key before deleting it.");
    }
    return { success: true };
  }

  /** team_admin keys need at least one team of the org; org_admin keys take none. */
  private async checkBindings(orgId: string, role: ManagementKeyRole, bindings: Array<{ team_id: string }> | undefined): Promise<string[]> {
    const teamIds = [...new Set((bindings ?? []).map((binding) => binding.team_id))];
    if (role === 'org_admin') {
      if (teamIds.length) {
        throw validationError(['body', 'team_role_bindings'], 'An org_admin key acts on the whole org and takes no team bindings.', bindings);
      }
      return [];
    }
    if (!teamIds.length) {
      throw validationError(['body', 'team_role_bindings'], 'A team_admin key needs at least one team binding.', bindings ?? null);
    }
    const found = new Set((await this.teams.findManyInOrg(orgId, teamIds)).map((team) => team.id));
    const index = (bindings ?? []).findIndex((binding) => !found.has(binding.team_id));
    if (index >= 0) {
      const teamId = bindings![index].team_id;
      throw validationError(['body', 'team_role_bindings', index, 'team_id'], `Team ${teamId} is not a team of this org.`, teamId);
    }
    return teamIds;
  }
}

export function toView(key: ManagementKeyEntity): ManagementKeyView {
  return {
    id: key.id,
    label: key.label,
    created_at: key.createdAt.toISOString(),
    role: key.role,
    team_role_bindings: key.teamIds.map((teamId) => ({ team_id: teamId })),
    creator: key.creatorKeyId ? { type: 'management_key', id: key.creatorKeyId } : null,
  };
}
