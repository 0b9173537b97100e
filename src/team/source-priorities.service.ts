import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { validationError } from '../common/errors';
import { providerInfo, providerOf } from '../health-data/providers';
import { SourcePrioritiesRepository, type SourcePriority } from '../tenancy/source-priorities.repository';

export interface SourcePriorityView {
  data_type: string;
  source: { name: string; slug: string; logo: string };
  priority: number;
}

/**
 * The team's source priorities (`/v2/team/source/priorities`), per environment: which provider
 * wins when two report the same data type. The summary and legacy timeseries reads without a
 * `provider` filter follow them (src/health-data/source-priority.ts).
 */
@Injectable()
export class SourcePrioritiesService {
  constructor(private readonly priorities: SourcePrioritiesRepository) {}

  async list(team: TeamPrincipal, dataType?: string): Promise<SourcePriorityView[]> {
    return (await this.priorities.list(team.teamId, team.environment, dataType)).map(view);
  }

  /** Applies the entries given (none: nothing changes) and answers the priorities as they now are. */
  async update(team: TeamPrincipal, entries: Array<{ data_type: string; source: string; priority: number | null }> = []): Promise<SourcePriorityView[]> {
    entries.forEach((entry, index) => {
      if (!providerInfo(entry.source)) throw validationError(['body', index, 'source'], `Unknown provider ${entry.source}.`, entry.source);
    });
    if (entries.length > 0) {
      await this.priorities.apply(
        team.teamId,
        team.environment,
        entries.map((entry) => ({ dataType: entry.data_type, provider: entry.source, priority: entry.priority })),
      );
    }
    return this.list(team);
  }
}

function view(entry: SourcePriority): SourcePriorityView {
  return { data_type: entry.dataType, source: providerOf(entry.provider), priority: entry.priority };
}
