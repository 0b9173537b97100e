import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { generateSecret, hashSecret, secretMatches } from '../common/crypto';
import { ApiKeysRepository } from '../tenancy/api-keys.repository';
import type { ApiEnvironment, ManagementKeyEntity, ManagementKeyRole, Region, TeamApiKeyEntity, TeamEntity } from '../tenancy/entities';
import type { ManagementPrincipal, TeamPrincipal } from './principal';

/** Readable prefixes: a key says what it is, so a misplaced one gets a precise error. */
export const MANAGEMENT_KEY_PREFIX = 'mg_';
export const teamKeyPrefix = (region: Region) => `sk_${region}_`;
export const looksLikeManagementKey = (value: string) => value.startsWith(MANAGEMENT_KEY_PREFIX);
export const looksLikeTeamKey = (value: string) => value.startsWith('sk_');

const DISPLAY_PREFIX_LENGTH = 10;

export interface IssuedTeamKey {
  record: TeamApiKeyEntity;
  /** The key itself: returned once, never stored. */
  value: string;
}

export interface IssuedManagementKey {
  record: ManagementKeyEntity;
  value: string;
}

/** Issues and verifies team API keys and management keys; only hashes are stored. */
@Injectable()
export class ApiKeysService {
  private readonly keys: ApiKeysRepository;

  constructor(@InjectDataSource() db: DataSource) {
    this.keys = new ApiKeysRepository(db);
  }

  async authenticateTeamKey(value: string): Promise<TeamPrincipal | null> {
    const key = await this.keys.findTeamKeyByHash(hashSecret(value));
    if (!key || !secretMatches(value, key.key_hash)) return null;
    return { teamId: key.team_id, environment: key.environment, region: key.region, apiKeyId: key.id };
  }

  async authenticateManagementKey(value: string): Promise<ManagementPrincipal | null> {
    const key = await this.keys.findManagementKeyByHash(hashSecret(value));
    if (!key || !secretMatches(value, key.keyHash)) return null;
    const org = await this.keys.findOrgOfKey(key.orgId);
    return { keyId: key.id, orgId: key.orgId, orgPlan: org.plan, role: key.role, teamIds: key.teamIds };
  }

  async issueTeamKey(team: Pick<TeamEntity, 'id' | 'region'>, environment: ApiEnvironment, label: string, manager?: EntityManager): Promise<IssuedTeamKey> {
    const value = generateSecret(teamKeyPrefix(team.region));
    const record = await this.keys.insertTeamKey(
      {
        teamId: team.id,
        environment,
        region: team.region,
        label,
        keyHash: hashSecret(value),
        keyPrefix: value.slice(0, DISPLAY_PREFIX_LENGTH),
      },
      manager,
    );
    return { record, value };
  }

  async issueManagementKey(
    orgId: string,
    role: ManagementKeyRole,
    label: string,
    teamIds: string[] = [],
    creatorKeyId: string | null = null,
    manager?: EntityManager,
  ): Promise<IssuedManagementKey> {
    const value = generateSecret(MANAGEMENT_KEY_PREFIX);
    const record = await this.keys.insertManagementKey(
      {
        orgId,
        label,
        role,
        teamIds: role === 'org_admin' ? [] : teamIds,
        keyHash: hashSecret(value),
        keyPrefix: value.slice(0, DISPLAY_PREFIX_LENGTH),
        creatorKeyId,
      },
      manager,
    );
    return { record, value };
  }
}
