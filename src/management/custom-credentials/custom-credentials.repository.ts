import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In, QueryFailedError } from 'typeorm';
import { type ApiEnvironment, type Region, TeamEntity } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';
import { CustomCredentialEntity } from './custom-credential.entity';

export interface CredentialScope {
  orgId: string;
  environment: ApiEnvironment;
  region: Region;
}

export interface CredentialKey {
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
  provider: string;
}

/** Custom credentials of an org's teams in one environment and region. */
@Injectable()
export class CustomCredentialsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private inScope(scope: CredentialScope, manager: EntityManager = this.db.manager) {
    return manager
      .getRepository(CustomCredentialEntity)
      .createQueryBuilder('credential')
      .innerJoin(TeamEntity, 'team', 'team.id = credential.team_id')
      .where('team.org_id = :orgId AND credential.environment = :environment AND credential.region = :region', scope);
  }

  listPage(
    scope: CredentialScope,
    filter: { teamId?: string; provider?: string; onlyTeamIds?: string[] },
    after: KeysetPosition | undefined,
    limit: number,
  ): Promise<Page<CustomCredentialEntity>> {
    const query = this.inScope(scope);
    if (filter.teamId) query.andWhere('credential.team_id = :teamId', { teamId: filter.teamId });
    if (filter.provider) query.andWhere('credential.provider = :provider', { provider: filter.provider });
    if (filter.onlyTeamIds) query.andWhere('credential.team_id = ANY(CAST(:onlyTeamIds AS uuid[]))', { onlyTeamIds: filter.onlyTeamIds });
    return keysetPage(query, { alias: 'credential', createdColumn: 'created_at', createdProperty: 'createdAt', after, limit });
  }

  findInScope(scope: CredentialScope, ids: string[]): Promise<CustomCredentialEntity[]> {
    return this.inScope(scope).andWhere('credential.id IN (:...ids)', { ids }).getMany();
  }

  async delete(ids: string[]): Promise<void> {
    if (ids.length) await this.db.getRepository(CustomCredentialEntity).delete({ id: In(ids) });
  }

  /**
   * Creates the credential for `key`, or changes the existing one with `change` (row locked).
   * A concurrent first insert of the same key loses the unique race and is retried as a change.
   */
  async upsert(key: CredentialKey, create: () => CustomCredentialEntity, change: (existing: CustomCredentialEntity) => void): Promise<CustomCredentialEntity> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction(async (manager) => {
          const repo = manager.getRepository(CustomCredentialEntity);
          const existing = await repo.findOne({ where: key, lock: { mode: 'pessimistic_write' } });
          if (!existing) return repo.save(create());
          change(existing);
          return repo.save(existing);
        });
      } catch (error) {
        const unique = error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === '23505';
        if (!unique || attempt > 0) throw error;
      }
    }
  }
}
