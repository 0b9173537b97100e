import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import { SourcePrioritiesRepository } from '../tenancy/source-priorities.repository';
import { UsersRepository } from '../users/users.repository';
import { type DeviceView, deviceView, rawSummaryView, summaryView } from './health-data-views';
import { readRange } from './read-range';
import { summaryType, type SummaryType } from './registry';
import { preferRanked, priorityDataTypeOfSummary } from './source-priority';
import { SummariesRepository, type StoredSummary } from './summaries.repository';

/** Summary reads (`GET /v2/summary/<type>/{user_id}` and `/raw`) and the workout stream. */
@Injectable()
export class SummaryQueriesService {
  constructor(
    private readonly users: UsersRepository,
    private readonly summaries: SummariesRepository,
    private readonly priorities: SourcePrioritiesRepository,
  ) {}

  /** `{<list key>: [summary]}`; profile answers its latest object itself. */
  async list(team: TeamPrincipal, userId: string, slug: string, query: { start_date?: string; end_date?: string; provider?: string }, raw: boolean) {
    const type = this.type(slug, raw);
    const rows = await this.read(team, userId, type, query);
    const view = raw ? rawSummaryView : summaryView;
    if (type.slug === 'profile') {
      const latest = rows.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
      if (!latest) throw notFound('Profile');
      return raw ? { profile: view(latest) } : view(latest);
    }
    return { [type.list]: rows.map(view) };
  }

  /** `GET /v2/user/{user_id}/device`: the devices the user's sources reported (device summaries). */
  async devices(team: TeamPrincipal, userId: string): Promise<DeviceView[]> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    return (await this.summaries.list(userId, 'devices', { from: null, to: null })).map(deviceView);
  }

  /** `GET /v2/user/{user_id}/device/{device_id}`. */
  async device(team: TeamPrincipal, userId: string, deviceId: string): Promise<DeviceView> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    const device = await this.summaries.findById(deviceId, 'devices');
    if (!device || device.userId !== userId) throw notFound('Device');
    return deviceView(device);
  }

  /** `GET /v2/timeseries/workouts/{workout_id}/stream`: the stream sent with the workout (empty when none). */
  async workoutStream(team: TeamPrincipal, workoutId: string) {
    const workout = await this.summaries.findById(workoutId, 'workouts');
    if (!workout || !(await this.users.findLive(team, workout.userId))) throw notFound('Workout');
    return (await this.summaries.workoutStream(workoutId)) ?? {};
  }

  private async read(
    team: TeamPrincipal,
    userId: string,
    type: SummaryType,
    query: { start_date?: string; end_date?: string; provider?: string },
  ): Promise<StoredSummary[]> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    if (type.date && !query.start_date) throw validationError(['query', 'start_date'], 'Field required', undefined, 'missing');
    const range = type.date && query.start_date ? readRange({ start_date: query.start_date, end_date: query.end_date }) : null;
    const rows = await this.summaries.list(userId, type.slug, { from: range?.fromDay ?? null, to: range?.toDay ?? null, provider: query.provider });
    const dataType = priorityDataTypeOfSummary(type.slug);
    // Without a provider filter, a day two providers report answers the team's preferred one's.
    if (query.provider || !dataType || type.slug === 'workouts') return rows;
    const rank = new Map((await this.priorities.list(team.teamId, team.environment, dataType)).map((entry) => [entry.provider, entry.priority]));
    return preferRanked(rows, rank, (row) => row.day ?? row.id);
  }

  private type(slug: string, raw: boolean): SummaryType {
    const type = summaryType(slug);
    if (!type || (raw && !type.raw) || (!raw && type.slug === 'devices')) throw notFound(`Summary type ${slug}`);
    return type;
  }
}
