import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import { UsersRepository } from '../users/users.repository';
import { bySlug, logoOf, type ProviderSourceType, PROVIDERS, SUPPORTED_RESOURCES } from './providers';
import { summaryType, timeseriesResource } from './registry';
import { SummariesRepository } from './summaries.repository';
import { TimeseriesRepository } from './timeseries.repository';

interface IntrospectQuery {
  user_id?: string;
  provider?: string;
  user_limit: number;
  cursor?: string;
  next_cursor?: string;
}

interface Stat {
  userId: string;
  provider: string;
  resource: string;
  oldest: Date;
  newest: Date;
  count: number;
}

/**
 * `GET /v2/introspect/resources` and `/historical_pull` (what labflow holds per user, provider
 * and resource, from the stored data) and `GET /v2/providers`.
 */
@Injectable()
export class IntrospectionService {
  constructor(
    private readonly users: UsersRepository,
    private readonly timeseries: TimeseriesRepository,
    private readonly summaries: SummariesRepository,
  ) {}

  providers(query: { source_type?: ProviderSourceType }) {
    const listed = query.source_type ? PROVIDERS.filter((provider) => provider.sourceType === query.source_type) : PROVIDERS;
    return listed.map((provider) => ({
      name: provider.name,
      slug: provider.slug,
      description: provider.description,
      logo: logoOf(provider.slug),
      auth_type: provider.authType,
      supported_resources: SUPPORTED_RESOURCES,
    }));
  }

  async resources(team: TeamPrincipal, query: IntrospectQuery) {
    const { userIds, nextCursor } = await this.page(team, query);
    const stats = await this.stats(userIds, query.provider);
    const data = userIds.map((userId) => {
      const provider = bySlug<Record<string, unknown>>();
      for (const stat of stats.filter((s) => s.userId === userId)) {
        (provider[stat.provider] ??= bySlug())[stat.resource] = {
          oldest_data: stat.oldest.toISOString(),
          newest_data: stat.newest.toISOString(),
          sent_count: stat.count,
        };
      }
      return { user_id: userId, provider };
    });
    return { data, next_cursor: nextCursor };
  }

  async historicalPulls(team: TeamPrincipal, query: IntrospectQuery) {
    const { userIds, nextCursor } = await this.page(team, query);
    const stats = await this.stats(userIds, query.provider);
    const data = userIds.map((userId) => {
      const provider = bySlug<{ pulled: Record<string, unknown>; not_pulled: string[] }>();
      for (const stat of stats.filter((s) => s.userId === userId)) {
        const entry = (provider[stat.provider] ??= { pulled: bySlug(), not_pulled: [] });
        entry.pulled[stat.resource] = {
          status: 'success',
          range_start: stat.oldest.toISOString(),
          range_end: stat.newest.toISOString(),
          timeline: { scheduled_at: stat.oldest.toISOString(), started_at: stat.oldest.toISOString(), ended_at: stat.newest.toISOString() },
          days_with_data: Math.max(1, Math.round((stat.newest.getTime() - stat.oldest.getTime()) / 86_400_000) + 1),
          release: 'labflow',
        };
      }
      return { user_id: userId, provider };
    });
    return { data, next_cursor: nextCursor };
  }

  /** One user (user_id, scoped to the team) or a page of the team's users (cursor = offset). */
  private async page(team: TeamPrincipal, query: IntrospectQuery): Promise<{ userIds: string[]; nextCursor: string | null }> {
    if (query.user_id) {
      if (!(await this.users.findLive(team, query.user_id))) throw notFound('User');
      return { userIds: [query.user_id], nextCursor: null };
    }
    const cursor = query.next_cursor ?? query.cursor;
    // A cursor this endpoint did not return is refused, not read as the first page (a client
    // paging on would otherwise start over without noticing).
    if (cursor && !/^\d{1,9}$/.test(cursor))
      throw validationError(['query', query.next_cursor !== undefined ? 'next_cursor' : 'cursor'], 'Not a cursor this endpoint returned.', cursor);
    const offset = cursor ? Number(cursor) : 0;
    const { users, total } = await this.users.listLive(team, offset, query.user_limit);
    const next = offset + users.length;
    return { userIds: users.map((user) => user.id), nextCursor: next < total ? String(next) : null };
  }

  /** Stored data per user, provider and resource, named as introspection names resources. */
  private async stats(userIds: string[], provider?: string): Promise<Stat[]> {
    if (userIds.length === 0) return [];
    const [series, summaries] = await Promise.all([this.timeseries.statistics(userIds, provider), this.summaries.statistics(userIds, provider)]);
    return [
      ...series.map((s) => ({ ...s, resource: timeseriesResource(s.resource)?.event ?? s.resource })),
      ...summaries.map((s) => ({ ...s, resource: s.type === 'devices' ? 'device' : (summaryType(s.type)?.slug ?? s.type) })),
    ];
  }
}
