import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../auth/api-keys.service';
import { ApiError, conflict, notFound } from '../common/errors';
import { ManagementKeysRepository } from '../management/keys/management-keys.repository';
import { ManagementKeysService } from '../management/keys/management-keys.service';
import { OrgsService } from '../management/orgs.service';
import { TeamApiKeysRepository } from '../management/team-api-keys/team-api-keys.repository';
import { TeamApiKeysService } from '../management/team-api-keys/team-api-keys.service';
import { TeamsRepository } from '../management/teams/teams.repository';
import type { ApiEnvironment, ManagementKeyEntity, TeamApiKeyEntity } from '../tenancy/entities';

/** A key as the CLI prints it; `key` (the value) only when it was made now. */
export interface KeyView {
  kind: 'management_key' | 'team_api_key';
  id: string;
  label: string;
  /** The readable start of a key made earlier (a new key is shown whole instead). */
  key_prefix?: string;
  org_id?: string;
  role?: string;
  team_id?: string;
  environment?: ApiEnvironment;
  region?: string;
  created_at: string;
  key?: string;
}

type FoundKey = { kind: 'management_key'; record: ManagementKeyEntity } | { kind: 'team_api_key'; record: TeamApiKeyEntity };

/**
 * Keys as an operator handles them, by id alone, without a management key of their own: an
 * org's first org_admin key, a team API key, rotating (a new key with the same grants, the old
 * one revoked, one transaction) and revoking either kind. Issuance, the bindings check and the
 * "an org keeps one org key" rule are the management API's own (ManagementKeysService, the
 * repositories' revoke).
 */
@Injectable()
export class KeyAdminService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly orgs: OrgsService,
    private readonly teams: TeamsRepository,
    private readonly issuer: ApiKeysService,
    private readonly managementKeys: ManagementKeysService,
    private readonly managementKeyRows: ManagementKeysRepository,
    private readonly teamKeys: TeamApiKeysService,
    private readonly teamKeyRows: TeamApiKeysRepository,
  ) {}

  async createOrgAdminKey(orgId: string, label: string): Promise<KeyView> {
    await this.orgs.get(orgId);
    const created = await this.managementKeys.createInOrg(orgId, { role: 'org_admin', label }, null);
    return {
      kind: 'management_key',
      id: created.id,
      label: created.label,
      org_id: orgId,
      role: created.role,
      created_at: created.created_at,
      key: created.key,
    };
  }

  async createTeamKey(teamId: string, environment: ApiEnvironment, label: string): Promise<KeyView> {
    const team = await this.teams.findById(teamId);
    if (!team) throw notFound('Team');
    const created = await this.teamKeys.create(team.orgId, { environment, region: team.region }, team.id, label);
    return {
      kind: 'team_api_key',
      id: created.id,
      label: created.label,
      team_id: team.id,
      environment,
      region: team.region,
      created_at: created.created_at,
      key: created.value,
    };
  }

  /** A new key with the old one's grants and label; the old one stops working at once. */
  async rotate(keyId: string): Promise<{ revoked: KeyView; created: KeyView }> {
    const found = await this.find(keyId);
    return this.db.transaction(async (manager) => {
      if (found.kind === 'management_key') {
        const old = found.record;
        const issued = await this.issuer.issueManagementKey(old.orgId, old.role, old.label, old.teamIds, old.creatorKeyId, manager);
        if ((await this.managementKeyRows.revoke(old.orgId, old.id, manager)) !== 'revoked') throw keyNotFound(keyId);
        return { revoked: viewOf(found), created: { ...viewOf({ kind: found.kind, record: issued.record }), key: issued.value } };
      }
      const old = found.record;
      const issued = await this.issuer.issueTeamKey({ id: old.teamId, region: old.region }, old.environment, old.label, manager);
      if ((await this.teamKeyRows.revoke([old.id], manager)) !== 1) throw keyNotFound(keyId);
      return { revoked: viewOf(found), created: { ...viewOf({ kind: found.kind, record: issued.record }), key: issued.value } };
    });
  }

  async revoke(keyId: string): Promise<KeyView> {
    const found = await this.find(keyId);
    if (found.kind === 'management_key') {
      const outcome = await this.managementKeyRows.revoke(found.record.orgId, found.record.id);
      if (outcome === 'not_found') throw keyNotFound(keyId);
      if (outcome === 'last_org_key') {
        throw conflict("This is the org's last org_admin key; create another (`key create --org`) or rotate it instead.");
      }
    } else if ((await this.teamKeyRows.revoke([found.record.id])) !== 1) {
      throw keyNotFound(keyId);
    }
    return viewOf(found);
  }

  /** An unrevoked key of either kind (ids are UUIDs: they never collide). */
  private async find(keyId: string): Promise<FoundKey> {
    const management = await this.managementKeyRows.findActiveById(keyId);
    if (management) return { kind: 'management_key', record: management };
    const team = await this.teamKeyRows.findLiveById(keyId);
    if (team) return { kind: 'team_api_key', record: team };
    throw keyNotFound(keyId);
  }
}

const keyNotFound = (keyId: string) => new ApiError(404, `No unrevoked management key or team API key has id ${keyId}.`);

function viewOf(found: FoundKey): KeyView {
  const common = { id: found.record.id, label: found.record.label, key_prefix: found.record.keyPrefix, created_at: found.record.createdAt.toISOString() };
  if (found.kind === 'management_key') return { kind: found.kind, ...common, org_id: found.record.orgId, role: found.record.role };
  return { kind: found.kind, ...common, team_id: found.record.teamId, environment: found.record.environment, region: found.record.region };
}
