import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In, IsNull } from 'typeorm';
import { type ApiEnvironment, type Region, TeamApiKeyEntity, TeamEntity } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';

export interface ApiKeyScope {
  orgId: string;
  environment: ApiEnvironment;
  region: Region;
}

/** Team API keys of one org, environment and region. */
@Injectable()
export class TeamApiKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(TeamApiKeyEntity);
  }

  private inScope(scope: ApiKeyScope) {
    return this.repo
      .createQueryBuilder('key')
      .innerJoin(TeamEntity, 'team', 'team.id = key.team_id')
      .where('team.org_id = :orgId AND key.environment = :environment AND key.region = :region', scope);
  }

  /** Live (not revoked) keys, optionally of one team or of a set of teams. */
  listLivePage(
    scope: ApiKeyScope,
    filter: { teamId?: string; onlyTeamIds?: string[] },
    after: KeysetPosition | undefined,
    limit: number,
  ): Promise<Page<TeamApiKeyEntity>> {
    const query = this.inScope(scope).andWhere('key.revoked_at IS NULL');
    if (filter.teamId) query.andWhere('key.team_id = :teamId', { teamId: filter.teamId });
    if (filter.onlyTeamIds) query.andWhere('key.team_id = ANY(CAST(:onlyTeamIds AS uuid[]))', { onlyTeamIds: filter.onlyTeamIds });
    return keysetPage(query, { alias: 'key', createdColumn: 'created_at', createdProperty: 'createdAt', after, limit });
  }

  /** Keys with these ids in scope, revoked or not. */
  findInScope(scope: ApiKeyScope, ids: string[]): Promise<TeamApiKeyEntity[]> {
    return this.inScope(scope).andWhere('key.id IN (:...ids)', { ids }).getMany();
  }

  /** An unrevoked key of any team (operators' tools look keys up by id alone). */
  findLiveById(id: string): Promise<TeamApiKeyEntity | null> {
    return this.repo.findOneBy({ id, revokedAt: IsNull() });
  }

  /**
   * Revokes at once: the main API looks keys up on every request with revoked_at IS NULL. In the
   * caller's transaction when given. Returns how many were live and are revoked now.
   */
  async revoke(ids: string[], manager: EntityManager = this.db.manager): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await manager
      .createQueryBuilder()
      .update(TeamApiKeyEntity)
      .set({ revokedAt: () => 'now()' })
      .where({ id: In(ids) })
      .andWhere('revoked_at IS NULL')
      .execute();
    return result.affected ?? 0;
  }
}
