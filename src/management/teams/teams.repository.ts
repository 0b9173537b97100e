import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, QueryFailedError } from 'typeorm';
import { ManagementKeyEntity, type Region, TeamEntity } from '../../tenancy/entities';
import { type KeysetPosition, keysetPage, type Page } from '../../common/keyset-cursor';

export interface TeamFilter {
  teamId?: string;
  regions?: Region[];
  search?: string;
  /** Only these teams (a team-admin key's bindings); undefined for every team of the org. */
  onlyTeamIds?: string[];
}

/** Which unique rule an insert or update broke. */
export type TeamConflict = 'id' | 'integration_team_id';

export class TeamConflictError extends Error {
  constructor(readonly on: TeamConflict) {
    super(`team ${on} already taken`);
  }
}

/** Intent-named queries over teams, always within one org. */
@Injectable()
export class TeamsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(TeamEntity);
  }

  /** A team of any org (operators' tools name teams by id alone). */
  findById(teamId: string): Promise<TeamEntity | null> {
    return this.repo.findOneBy({ id: teamId });
  }

  findInOrg(orgId: string, teamId: string): Promise<TeamEntity | null> {
    return this.repo.findOneBy({ id: teamId, orgId });
  }

  findManyInOrg(orgId: string, teamIds: string[]): Promise<TeamEntity[]> {
    if (teamIds.length === 0) return Promise.resolve([]);
    return this.repo.findBy({ orgId, id: In(teamIds) });
  }

  findByIntegrationTeamId(orgId: string, integrationTeamId: string): Promise<TeamEntity | null> {
    return this.repo.findOneBy({ orgId, integrationTeamId });
  }

  listPage(orgId: string, filter: TeamFilter, after: KeysetPosition | undefined, limit: number): Promise<Page<TeamEntity>> {
    const query = this.repo.createQueryBuilder('team').where('team.org_id = :orgId', { orgId });
    if (filter.teamId) query.andWhere('team.id = :teamId', { teamId: filter.teamId });
    if (filter.regions?.length) query.andWhere('team.region IN (:...regions)', { regions: filter.regions });
    if (filter.onlyTeamIds) query.andWhere('team.id = ANY(CAST(:onlyTeamIds AS uuid[]))', { onlyTeamIds: filter.onlyTeamIds });
    if (filter.search) {
      query.andWhere(`team.name ILIKE :search ESCAPE '\\'`, { search: `%${escapeLike(filter.search)}%` });
    }
    return keysetPage(query, { alias: 'team', createdColumn: 'created_on', createdProperty: 'createdOn', after, limit });
  }

  /** Inserts a team; a taken id or integration_team_id raises TeamConflictError. */
  async insert(team: TeamEntity): Promise<TeamEntity> {
    try {
      await this.repo.insert(team);
    } catch (error) {
      throw asConflict(error);
    }
    return this.repo.findOneByOrFail({ id: team.id });
  }

  async update(team: TeamEntity): Promise<TeamEntity> {
    try {
      return await this.repo.save(team);
    } catch (error) {
      throw asConflict(error);
    }
  }

  /**
   * Deletes a team and everything it owns (keys, users, webhooks… cascade), and unbinds it from
   * team-admin management keys, in one transaction. False when the team was not in the org.
   */
  async delete(orgId: string, teamId: string): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const result = await manager.getRepository(TeamEntity).delete({ id: teamId, orgId });
      if (!result.affected) return false;
      await manager
        .createQueryBuilder()
        .update(ManagementKeyEntity)
        .set({ teamIds: () => 'array_remove(team_ids, CAST(:teamId AS uuid))' })
        .where('org_id = :orgId AND CAST(:teamId AS uuid) = ANY(team_ids)', { orgId, teamId })
        .execute();
      return true;
    });
  }
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (match) => `\\${match}`);
}

function asConflict(error: unknown): unknown {
  if (!(error instanceof QueryFailedError)) return error;
  const driver = error.driverError as { code?: string; constraint?: string };
  if (driver?.code !== '23505') return error;
  return new TeamConflictError(driver.constraint === 'teams_org_integration_team_id' ? 'integration_team_id' : 'id');
}
