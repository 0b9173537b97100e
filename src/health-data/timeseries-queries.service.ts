import { Inject, Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import type { JsonText } from '../common/json-text';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { SourcePrioritiesRepository } from '../tenancy/source-priorities.repository';
import { UsersRepository } from '../users/users.repository';
import { groupedSamplesJson, sampleView } from './health-data-views';
import { readRange } from './read-range';
import { LEGACY_SUBTYPE_ROUTES, type TimeseriesResource, timeseriesResource } from './registry';
import { preferRanked } from './source-priority';
import { SummariesRepository } from './summaries.repository';
import { type SeriesPosition, type StoredSample, TimeseriesRepository } from './timeseries.repository';

export interface RangeParams {
  start_date: string;
  end_date?: string;
  provider?: string;
}

/** Samples one legacy read returns at most (it has no paging; grouped reads do). */
const LEGACY_LIMIT = 100_000;

/** Timeseries reads: grouped (paged by next_cursor), legacy arrays, and the sleep stream. */
@Injectable()
export class TimeseriesQueriesService {
  constructor(
    private readonly users: UsersRepository,
    private readonly timeseries: TimeseriesRepository,
    private readonly summaries: SummariesRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    private readonly priorities: SourcePrioritiesRepository,
  ) {}

  /**
   * `GET /v2/timeseries/{user_id}/{resource}/grouped`: `{groups: {<provider>: [{source, data}]}, next_cursor}`,
   * as JSON text (groupedSamplesJson).
   */
  async grouped(team: TeamPrincipal, userId: string, slug: string, query: RangeParams & { next_cursor?: string; cursor?: string }): Promise<JsonText> {
    const resource = this.resource(slug);
    const pageSize = this.config.healthData.pageSize;
    // The user check and the read run side by side (one round trip instead of two); the check's
    // answer decides first, so a user of another team (or none) gets 404 whatever the query
    // says, and the rows read for it are dropped unseen.
    const [user, read] = await Promise.allSettled([
      this.requireUser(team, userId),
      (async () => {
        const range = readRange(query);
        const after = decodeCursor(query.next_cursor ?? query.cursor);
        return this.timeseries.readRange(userId, resource.slug, { ...range, provider: query.provider }, after, pageSize + 1);
      })(),
    ]);
    if (user.status === 'rejected') throw user.reason;
    if (read.status === 'rejected') throw read.reason;
    const rows = read.value;
    const page = rows.length > pageSize ? rows.slice(0, pageSize) : rows;
    const last = page[page.length - 1];
    return groupedSamplesJson(resource, page, rows.length > pageSize && last ? encodeCursor(last) : null);
  }

  /** `GET /v2/timeseries/{user_id}/{resource}` (deprecated): every sample in the range, by time. */
  async legacy(team: TeamPrincipal, userId: string, slug: string, query: RangeParams) {
    const resource = this.resource(slug);
    if (!resource.legacy) throw notFound(`Timeseries resource ${slug}`);
    return this.legacyRead(team, userId, resource, query);
  }

  /** `GET /v2/timeseries/{user_id}/cholesterol/{ldl|hdl|total|triglycerides}`. */
  async legacySubtype(team: TeamPrincipal, userId: string, slug: string, subtype: string, query: RangeParams) {
    const route = LEGACY_SUBTYPE_ROUTES[`${slug}/${subtype}`];
    if (!route) throw notFound(`Timeseries resource ${slug}/${subtype}`);
    return this.legacyRead(team, userId, this.resource(route.resource), query, route.type);
  }

  /** `GET /v2/timeseries/sleep/{sleep_id}/stream`: the sleep's samples from the same provider. */
  async sleepStream(team: TeamPrincipal, sleepId: string) {
    const sleep = await this.summaries.findById(sleepId, 'sleep');
    if (!sleep || !(await this.users.findLive(team, sleep.userId))) throw notFound('Sleep');
    const fromMs = Date.parse(String(sleep.data.bedtime_start));
    const toMs = Date.parse(String(sleep.data.bedtime_stop));
    const stream: Record<string, Array<Record<string, unknown>>> = {};
    for (const slug of ['hrv', 'heartrate', 'hypnogram', 'respiratory_rate']) {
      const resource = this.resource(slug);
      const rows = await this.timeseries.readRange(sleep.userId, slug, { fromMs, toMs, provider: sleep.provider }, null, LEGACY_LIMIT);
      stream[slug] = rows.sort(byTime).map((row) => sampleView(resource, row));
    }
    return stream;
  }

  private async legacyRead(team: TeamPrincipal, userId: string, resource: TimeseriesResource, query: RangeParams, sampleType?: string) {
    await this.requireUser(team, userId);
    const range = readRange(query);
    let rows = await this.timeseries.readRange(userId, resource.slug, { ...range, provider: query.provider, sampleType }, null, LEGACY_LIMIT);
    if (!query.provider) {
      // Without a provider filter, an instant two providers report answers the team's preferred one's.
      const rank = new Map((await this.priorities.list(team.teamId, team.environment, 'timeseries')).map((entry) => [entry.provider, entry.priority]));
      rows = preferRanked(rows, rank, (row) => `${row.sampleType ?? ''}|${row.ts}`);
    }
    return rows.sort(byTime).map((row) => sampleView(resource, row));
  }

  private resource(slug: string): TimeseriesResource {
    const resource = timeseriesResource(slug);
    if (!resource) throw notFound(`Timeseries resource ${slug}`);
    return resource;
  }

  private async requireUser(team: TeamPrincipal, userId: string): Promise<void> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
  }
}

const byTime = (a: StoredSample, b: StoredSample) => a.ts - b.ts;

function encodeCursor(sample: StoredSample): string {
  return Buffer.from(JSON.stringify([sample.provider, sample.sourceType, sample.sampleKey, sample.ts])).toString('base64url');
}

function decodeCursor(cursor: string | undefined): SeriesPosition | null {
  if (!cursor) return null;
  try {
    const [provider, sourceType, sampleKey, ts] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof provider === 'string' && typeof sourceType === 'string' && typeof sampleKey === 'string' && Number.isSafeInteger(ts)) {
      return { provider, sourceType, sampleKey, ts: ts as number };
    }
  } catch {
    // fall through
  }
  throw validationError(['query', 'next_cursor'], 'Not a cursor this endpoint returned.', cursor);
}
