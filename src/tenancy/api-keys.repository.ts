import { randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager, IsNull } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import { type ApiEnvironment, ManagementKeyEntity, OrgEntity, type Region, TeamApiKeyEntity } from './entities';

/**
 * The team key lookup a main-API request makes when its key is not in TeamKeyCache, as a named
 * statement: parsed and planned once per pooled connection.
 */
const TEAM_KEY_BY_HASH = {
  name: 'labflow_team_api_key_by_hash',
  text: 'SELECT id, team_id, environment, region, key_hash FROM team_api_keys WHERE key_hash = $1 AND revoked_at IS NULL LIMIT 1',
};

/** The channel of team key revocations (migration 1763790152000's trigger). */
export const TEAM_KEY_REVOKED_CHANNEL = 'labflow_team_key_revoked';

/** An unrevoked team key, as the lookup reads it. */
export interface TeamKeyRow {
  id: string;
  team_id: string;
  environment: ApiEnvironment;
  region: Region;
  key_hash: Buffer;
}

/** A new team key's row (the hash of the key, never the key). */
export type NewTeamKey = Pick<TeamApiKeyEntity, 'teamId' | 'environment' | 'region' | 'label' | 'keyHash' | 'keyPrefix'>;

/** A new management key's row. */
export type NewManagementKey = Pick<ManagementKeyEntity, 'orgId' | 'label' | 'role' | 'teamIds' | 'keyHash' | 'keyPrefix' | 'creatorKeyId'>;

/**
 * The key tables (`team_api_keys`, `management_keys`) as authentication and issuance use them,
 * and the org a management key belongs to (`orgs`). Lookups are by key hash.
 */
export class ApiKeysRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Subscribes a dedicated connection to team key revocations: the trigger of migration
   * 1763790152000 notifies the hex sha256 of each revoked or deleted key when its transaction commits.
   */
  async listenForTeamKeyRevocations(client: { query(sql: string): Promise<unknown> }): Promise<void> {
    await client.query(`LISTEN ${TEAM_KEY_REVOKED_CHANNEL}`);
  }

  async findTeamKeyByHash(keyHash: Buffer): Promise<TeamKeyRow | null> {
    const [key] = await runPrepared<TeamKeyRow>(this.db, TEAM_KEY_BY_HASH.name, TEAM_KEY_BY_HASH.text, [keyHash]);
    return key ?? null;
  }

  findManagementKeyByHash(keyHash: Buffer): Promise<ManagementKeyEntity | null> {
    return this.db.getRepository(ManagementKeyEntity).findOneBy({ keyHash, revokedAt: IsNull() });
  }

  /** The org of a key found by `findManagementKeyByHash` (it exists: keys go with their org). */
  findOrgOfKey(orgId: string): Promise<OrgEntity> {
    return this.db.getRepository(OrgEntity).findOneByOrFail({ id: orgId });
  }

  /** Stores a new team key (in the caller's transaction when given). */
  insertTeamKey(fields: NewTeamKey, manager: EntityManager = this.db.manager): Promise<TeamApiKeyEntity> {
    const record = manager.getRepository(TeamApiKeyEntity).create({ id: randomUUID(), ...fields, revokedAt: null });
    return manager.save(record);
  }

  /** Stores a new management key (in the caller's transaction when given). */
  insertManagementKey(fields: NewManagementKey, manager: EntityManager = this.db.manager): Promise<ManagementKeyEntity> {
    const record = manager.getRepository(ManagementKeyEntity).create({ id: randomUUID(), ...fields, revokedAt: null });
    return manager.save(record);
  }
}
