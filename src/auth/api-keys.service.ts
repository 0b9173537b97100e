import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { generateSecret, hashSecret, secretMatches } from '../common/crypto';
import { runPrepared } from '../db/prepared-statement';
import {
  type ApiEnvironment,
  type ManagementKeyRole,
  ManagementKeyEntity,
  OrgEntity,
  type Region,
  TeamApiKeyEntity,
  TeamEntity,
} from '../tenancy/entities';
import type { ManagementPrincipal, TeamPrincipal } from './principal';

/** Readable prefixes: a key says what it is, so a misplaced one gets a precise error. */
export const MANAGEMENT_KEY_PREFIX = 'mg_';
export const teamKeyPrefix = (region: Region) => `sk_${region}_`;
export const looksLikeManagementKey = (value: string) => value.startsWith(MANAGEMENT_KEY_PREFIX);
export const looksLikeTeamKey = (value: string) => value.startsWith('sk_');

const DISPLAY_PREFIX_LENGTH = 10;

/**
 * The team key lookup every main-API request makes, as a named statement: parsed and planned
 * once per pooled connection. Revocation stays immediate: `revoked_at` is checked on every
 * request (the management API's revoke sets it; deleting a team deletes its keys).
 */
const TEAM_KEY_BY_HASH = {
  name: 'labflow_team_api_key_by_hash',
  text: 'SELECT id, team_id, environment, region, key_hash FROM team_api_keys WHERE key_hash = $1 AND revoked_at IS NULL LIMIT 1',
};

interface TeamKeyRow {
  id: string;
  team_id: string;
  environment: ApiEnvironment;
  region: Region;
  key_hash: Buffer;
}

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
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async authenticateTeamKey(value: string): Promise<TeamPrincipal | null> {
    const [key] = await runPrepared<TeamKeyRow>(this.db, TEAM_KEY_BY_HASH.name, TEAM_KEY_BY_HASH.text, [hashSecret(value)]);
    if (!key || !secretMatches(value, key.key_hash)) return null;
    return { teamId: key.team_id, environment: key.environment, region: key.region, apiKeyId: key.id };
  }

  async authenticateManagementKey(value: string): Promise<ManagementPrincipal | null> {
    const key = await this.db.getRepository(ManagementKeyEntity).findOneBy({
      keyHash: hashSecret(value),
      revokedAt: IsNull(),
    });
    if (!key || !secretMatches(value, key.keyHash)) return null;
    const org = await this.db.getRepository(OrgEntity).findOneByOrFail({ id: key.orgId });
    return { keyId: key.id, orgId: key.orgId, orgPlan: org.plan, role: key.role, teamIds: key.teamIds };
  }

  async issueTeamKey(
    team: Pick<TeamEntity, 'id' | 'region'>,
    environment: ApiEnvironment,
    label: string,
    manager: EntityManager = this.db.manager,
  ): Promise<IssuedTeamKey> {
    const value = generateSecret(teamKeyPrefix(team.region));
    const record = manager.getRepository(TeamApiKeyEntity).create({
      id: randomUUID(),
      teamId: team.id,
      environment,
      region: team.region,
      label,
      keyHash: hashSecret(value),
      keyPrefix: value.slice(0, DISPLAY_PREFIX_LENGTH),
      revokedAt: null,
    });
    return { record: await manager.save(record), value };
  }

  async issueManagementKey(
    orgId: string,
    role: ManagementKeyRole,
    label: string,
    teamIds: string[] = [],
    creatorKeyId: string | null = null,
    manager: EntityManager = this.db.manager,
  ): Promise<IssuedManagementKey> {
    const value = generateSecret(MANAGEMENT_KEY_PREFIX);
    const record = manager.getRepository(ManagementKeyEntity).create({
      id: randomUUID(),
      orgId,
      label,
      role,
      teamIds: role === 'org_admin' ? [] : teamIds,
      keyHash: hashSecret(value),
      keyPrefix: value.slice(0, DISPLAY_PREFIX_LENGTH),
      creatorKeyId,
      revokedAt: null,
    });
    return { record: await manager.save(record), value };
  }
}
