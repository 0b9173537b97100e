import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { type ManagementKeyRole, ManagementKeyEntity } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';

/** Intent-named queries over the management keys of one org; revoked keys are gone for good. */
@Injectable()
export class ManagementKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(ManagementKeyEntity);
  }

  findActive(orgId: string, keyId: string): Promise<ManagementKeyEntity | null> {
    return this.repo.findOneBy({ id: keyId, orgId, revokedAt: IsNull() });
  }

  /** An unrevoked key of any org (operators' tools look keys up by id alone). */
  findActiveById(keyId: string): Promise<ManagementKeyEntity | null> {
    return this.repo.findOneBy({ id: keyId, revokedAt: IsNull() });
  }

  listActivePage(
    orgId: string,
    filter: { teamId?: string; role?: ManagementKeyRole },
    after: KeysetPosition | undefined,
    limit: number,
  ): Promise<Page<ManagementKeyEntity>> {
    const query = this.repo.createQueryBuilder('key').where('key.org_id = :orgId AND key.revoked_at IS NULL', { orgId });
    if (filter.teamId) query.andWhere('CAST(:teamId AS uuid) = ANY(key.team_ids)', { teamId: filter.teamId });
    if (filter.role) query.andWhere('key.role = :role', { role: filter.role });
    return keysetPage(query, { alias: 'key', createdColumn: 'created_at', createdProperty: 'createdAt', after, limit });
  }

  save(key: ManagementKeyEntity): Promise<ManagementKeyEntity> {
    return this.repo.save(key);
  }

  /**
   * Revokes a key unless it is the org's last active org_admin key (an org must keep one way to
   * manage itself). Every revocation first locks the org's active org_admin keys in id order, so
   * two revocations in one org queue on the same first row instead of each holding one key and
   * waiting for the other's (a deadlock), and cannot both pass the check. In the caller's
   * transaction when given (a rotation issues the new key first).
   */
  async revoke(orgId: string, keyId: string, inTransaction?: EntityManager): Promise<'revoked' | 'not_found' | 'last_org_key'> {
    const run = async (manager: EntityManager) => {
      const repo = manager.getRepository(ManagementKeyEntity);
      const orgAdminKeys = await repo
        .createQueryBuilder('key')
        .select('key.id')
        .where("key.org_id = :orgId AND key.role = 'org_admin' AND key.revoked_at IS NULL", { orgId })
        .orderBy('key.id')
        .setLock('pessimistic_write')
        .getMany();
      const key = await repo.findOne({ where: { id: keyId, orgId, revokedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!key) return 'not_found';
      if (key.role === 'org_admin' && orgAdminKeys.length <= 1) return 'last_org_key';
      await repo.update({ id: keyId }, { revokedAt: new Date() });
      return 'revoked' as const;
    };
    return inTransaction ? run(inTransaction) : this.db.transaction(run);
  }
}
