import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { type ApiEnvironment, type Region, TeamEntity } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';
import { EtlPipelineEntity } from './etl-pipeline.entity';

export interface PipelineScope {
  orgId: string;
  environment: ApiEnvironment;
  region: Region;
}

export type PipelineFields = Pick<EtlPipelineEntity, 'eventTypePrefixes' | 'preferred' | 'enabled' | 'destinationsEnc'>;

/** Event destinations of an org's teams in one environment and region (one per team). */
@Injectable()
export class EtlPipelinesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(EtlPipelineEntity);
  }

  listPage(
    scope: PipelineScope,
    filter: { teamId?: string; onlyTeamIds?: string[] },
    after: KeysetPosition | undefined,
    limit: number,
  ): Promise<Page<EtlPipelineEntity>> {
    const query = this.repo
      .createQueryBuilder('pipeline')
      .innerJoin(TeamEntity, 'team', 'team.id = pipeline.team_id')
      .where('team.org_id = :orgId AND pipeline.environment = :environment AND pipeline.region = :region', scope);
    if (filter.teamId) query.andWhere('pipeline.team_id = :teamId', { teamId: filter.teamId });
    if (filter.onlyTeamIds) query.andWhere('pipeline.team_id = ANY(CAST(:onlyTeamIds AS uuid[]))', { onlyTeamIds: filter.onlyTeamIds });
    return keysetPage(query, { alias: 'pipeline', createdColumn: 'created_at', createdProperty: 'createdAt', after, limit });
  }

  /** The delivery side: a team's pipeline in an environment and region, if any. */
  findForTeam(teamId: string, environment: ApiEnvironment, region: Region): Promise<EtlPipelineEntity | null> {
    return this.repo.findOneBy({ teamId, environment, region });
  }

  /** Creates or replaces the pipeline of each team, all or none. */
  async upsert(teamIds: string[], scope: Omit<PipelineScope, 'orgId'>, fields: PipelineFields, newId: () => string): Promise<EtlPipelineEntity[]> {
    return this.db.transaction(async (manager) => {
      for (const teamId of teamIds) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(EtlPipelineEntity)
          .values({ id: newId(), teamId, ...scope, ...fields })
          .orUpdate(['event_type_prefixes', 'preferred', 'enabled', 'destinations_enc', 'updated_at'], ['team_id', 'environment', 'region'])
          .execute();
      }
      // updated_at: the conflict branch sets it from EXCLUDED, i.e. the insert's default now().
      return manager.getRepository(EtlPipelineEntity).find({
        where: { teamId: In(teamIds), ...scope },
        order: { createdAt: 'ASC', id: 'ASC' },
      });
    });
  }

  /** Deletes the pipelines of these teams; returns the team ids that had one. */
  async deleteForTeams(teamIds: string[], scope: Omit<PipelineScope, 'orgId'>): Promise<string[]> {
    if (teamIds.length === 0) return [];
    const rows: Array<{ team_id: string }> = await this.repo
      .createQueryBuilder()
      .delete()
      .where({ teamId: In(teamIds), ...scope })
      .returning('team_id')
      .execute()
      .then((result) => result.raw as Array<{ team_id: string }>);
    return rows.map((row) => row.team_id);
  }
}
