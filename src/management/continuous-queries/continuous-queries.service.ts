import { Injectable } from '@nestjs/common';
import { type ContinuousQueryDefinition, ContinuousQueriesService } from '../../health-data/continuous-queries/continuous-queries.service';
import { TeamLookup } from '../teams/team-lookup';

/** Which team's queries: the team in the path, which must belong to the org in it. */
export interface QueryTarget {
  orgId: string;
  teamId: string;
  environment: string;
}

/**
 * Continuous query definitions for the management API: the team must be the org's (404
 * otherwise); the definitions themselves are health-data's (ContinuousQueriesService).
 */
@Injectable()
export class ContinuousQueriesManagementService {
  constructor(
    private readonly queries: ContinuousQueriesService,
    private readonly teams: TeamLookup,
  ) {}

  async list(target: QueryTarget) {
    return this.queries.list(await this.owner(target));
  }

  async create(target: QueryTarget, definition: ContinuousQueryDefinition) {
    return this.queries.define(await this.owner(target), definition);
  }

  async get(target: QueryTarget, idOrSlug: string) {
    return this.queries.get(await this.owner(target), idOrSlug);
  }

  async update(target: QueryTarget, idOrSlug: string, patch: Partial<ContinuousQueryDefinition>) {
    return this.queries.update(await this.owner(target), idOrSlug, patch);
  }

  async remove(target: QueryTarget, idOrSlug: string): Promise<void> {
    await this.queries.remove(await this.owner(target), idOrSlug);
  }

  private async owner(target: QueryTarget) {
    await this.teams.requireInOrg(target.orgId, target.teamId);
    return { teamId: target.teamId, environment: target.environment };
  }
}
