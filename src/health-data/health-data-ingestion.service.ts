import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, RequestValidationError, validationError } from '../common/errors';
import { zodIssues } from '../common/validation';
import { uuidV5 } from '../common/uuid-v5';
import { EventBatchesService } from '../events/event-batches';
import { OutboxService } from '../events/outbox.service';
import type { UserEntity } from '../users/user.entity';
import { UsersRepository } from '../users/users.repository';
import type { IngestionEnvelope } from './health-data.dto';
import { type EventSubject, historicalEvent, summaryEvent, timeseriesBatch, timeseriesGroup, workoutStreamEvent } from './health-data-events';
import { sampleItem, summaryView } from './health-data-views';
import { summaryType, timeseriesResource, type SummaryType, type TimeseriesResource } from './registry';
import { parseNestedSamples } from './sdk-nested-samples';
import { lastPerKey, type NormalisedSample, parseSamples } from './sample-schemas';
import { fromSdkSamples, SDK_RESOURCE_ALIASES } from './sdk-sample-shapes';
import { fromSdkSummaries } from './sdk-summary-shapes';
import { SummariesRepository, type SummaryWrite } from './summaries.repository';
import { OWNED_FIELDS, SUMMARY_SCHEMAS } from './summary-schemas';
import { TimeseriesRepository } from './timeseries.repository';
import { ContinuousQueriesRepository, dataSourceKey } from './continuous-queries/continuous-queries.repository';

/** UUID v5 namespace of summary ids derived from their natural key (fixed forever). */
const SUMMARY_ID_NAMESPACE = '6f1d3c52-9a8e-4d1b-b3c2-6c3f0a4e9d17';
const DAY_MS = 86_400_000;

export interface IngestionResult {
  resource: string;
  /** Samples or summaries stored (new or replacing). */
  stored: number;
  created: number;
  updated: number;
  /** Left out because they lie outside the user's ingestion_start / ingestion_end. */
  outside_ingestion_bounds: number;
  /** Events recorded (summaries), or events the samples went into (timeseries: gathered, sent when their batch closes). */
  events: number;
}

export interface IngestionOptions {
  /**
   * Names the backfill a historical final chunk ends, so its historical.data.* event is written
   * once however often the chunk is sent (a connection's sync step run again after a crash).
   */
  backfillKey?: string;
}

/**
 * Ingestion as the phone SDKs send it (`POST /v2/timeseries/{user_id}/{resource}`,
 * `POST /v2/summary/{resource}/{user_id}`): validate everything first (one bad sample refuses
 * the request), drop what lies outside the user's ingestion bounds, then write the data and its
 * events (timeseries: into their open event batch) in one transaction.
 */
@Injectable()
export class HealthDataIngestionService {
  constructor(
    private readonly users: UsersRepository,
    private readonly timeseries: TimeseriesRepository,
    private readonly summaries: SummariesRepository,
    private readonly outbox: OutboxService,
    private readonly batches: EventBatchesService,
    private readonly continuousQueries: ContinuousQueriesRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async ingestTimeseries(team: TeamPrincipal, userId: string, slug: string, body: IngestionEnvelope, options: IngestionOptions = {}): Promise<IngestionResult> {
    const resource = timeseriesResource(SDK_RESOURCE_ALIASES[slug] ?? slug);
    if (!resource) throw notFound(`Timeseries resource ${slug}`);
    if (!Array.isArray(body.data)) throw validationError(['body', 'data'], 'Timeseries data must be a list of samples.', body.data);
    const user = await this.requireUser(team, userId);
    const timeZone = body.time_zone ?? user.fallbackTimeZone?.id ?? 'UTC';
    // The SDKs' own sample shapes, translated (each sample keeps its index for a 422's loc).
    const translated = fromSdkSamples(resource, body.data, body.source_type);
    const parsed = parseSamples(resource, translated.data, timeZone);
    const bounds = boundsOf(user);
    const groups = bySourceType(parsed, translated.sourceTypes, bounds, body.source_type);
    await this.timeseries.ensurePartitions(groups.flatMap((group) => group.samples));
    const subject = subjectOf(team, user);
    return this.summaries.transaction(async (manager) => {
      let inserted = 0;
      let updated = 0;
      let events = 0;
      for (const group of groups) {
        const stored = await this.writeSamples(manager, subject, resource, body.provider, group);
        inserted += stored.inserted;
        updated += stored.updated;
        events += stored.events;
      }
      if (inserted + updated > 0) await this.scheduleQueries(manager, team, user.id, dataSourceKey('timeseries', resource.slug));
      if (body.stage === 'historical' && body.is_final_chunk) {
        // After everything of the backfill still gathering: those batches go out first.
        const eventTypes = [`daily.data.${resource.event}.created`, `daily.data.${resource.event}.updated`];
        const finished = historicalEvent(
          subject,
          resource.event,
          body.provider,
          { start: body.start_date ?? null, end: body.end_date ?? null },
          options.backfillKey,
        );
        await this.batches.enqueueAfterBatches(manager, { eventTypes, groupPrefix: timeseriesGroup(body.provider, '') }, finished);
        events++;
      }
      const stored = groups.reduce((sum, group) => sum + group.samples.length, 0);
      return { resource: resource.slug, stored, created: inserted, updated, outside_ingestion_bounds: countOutside(parsed, bounds), events };
    });
  }

  /**
   * Stores one source type's samples and adds them to the open event of their user, resource,
   * provider and source type (`updated` when they replaced stored ones); the event goes out when
   * its window closes or it is full.
   */
  private async writeSamples(
    manager: EntityManager,
    subject: EventSubject,
    resource: TimeseriesResource,
    provider: string,
    group: { sourceType: string; samples: NormalisedSample[] },
  ): Promise<{ inserted: number; updated: number; events: number }> {
    const key = { userId: subject.userId, resource: resource.slug, provider, sourceType: group.sourceType };
    const stored = await this.timeseries.upsert(manager, key, group.samples);
    // Erased since requireUser: as if it had gone first.
    if (!stored) throw notFound('User');
    const samples = group.samples.map((sample) => sampleItem(resource, sample));
    const change = stored.updated > 0 ? 'updated' : 'created';
    const events = await this.batches.append(
      manager,
      timeseriesBatch(subject, resource, provider, group.sourceType, samples, change),
      this.config.healthData.events,
    );
    return { inserted: stored.inserted, updated: stored.updated, events };
  }

  async ingestSummaries(team: TeamPrincipal, userId: string, slug: string, body: IngestionEnvelope, options: IngestionOptions = {}): Promise<IngestionResult> {
    const type = summaryType(slug);
    if (!type) throw notFound(`Summary type ${slug}`);
    const user = await this.requireUser(team, userId);
    const timeZone = body.time_zone ?? user.fallbackTimeZone?.id ?? 'UTC';
    // The SDKs' own summary payloads, translated (days in the envelope's time zone).
    const translated = fromSdkSummaries(type, body.data, timeZone);
    const items = parseSummaries(type, translated.items);
    const bounds = boundsOf(user);
    // Samples that came inside summaries (a night's heart rate): timeseries under their summary's source.
    const nested = parseNestedSamples(translated.samples, timeZone).map((group) => {
      const sourceType = translated.sourceTypes[group.item] ?? body.source_type;
      return { resource: group.resource, sourceType, samples: lastPerKey(group.parsed.filter((sample) => isInside(sample, bounds))) };
    });
    await this.timeseries.ensurePartitions(nested.flatMap((group) => group.samples));
    const writes: Array<SummaryWrite & { stream?: unknown }> = [];
    for (const [index, item] of items.entries()) {
      const day = dayOf(type, item);
      if (day && (Date.parse(`${day}T00:00:00Z`) < bounds.from || Date.parse(`${day}T00:00:00Z`) >= bounds.to)) continue;
      const data: Record<string, unknown> = { ...item };
      for (const field of OWNED_FIELDS) delete data[field];
      writes.push({
        id: (item.id as string | undefined) ?? summaryIdOf(user.id, type, body.provider, item),
        userId: user.id,
        type: type.slug,
        provider: body.provider,
        sourceType: translated.sourceTypes[index] ?? body.source_type,
        day,
        data,
        stream: item.stream,
      });
    }
    const unique = [...new Map(writes.map((write) => [write.id, write])).values()];
    const subject = subjectOf(team, user);
    return this.summaries.transaction(async (manager) => {
      const { stored, refused } = await this.summaries.upsert(manager, unique);
      if (refused.length > 0) {
        const index = items.findIndex((item) => item.id === refused[0]);
        throw validationError(['body', 'data', Math.max(index, 0), 'id'], 'This id belongs to another summary.', refused[0]);
      }
      const streams = unique.filter((write) => write.stream !== undefined).map((write) => ({ workoutId: write.id, stream: write.stream }));
      await this.summaries.saveWorkoutStreams(manager, streams);
      const views = new Map(stored.map((summary) => [summary.id, summaryView(summary)]));
      const events = stored.map((summary) => summaryEvent(subject, type.event, views.get(summary.id) as Record<string, unknown>, summary.inserted));
      // A stored stream: its shallow event after the workout's own.
      for (const { workoutId } of streams) {
        const workout = views.get(workoutId);
        if (workout) events.push(workoutStreamEvent(subject, workout));
      }
      if (body.stage === 'historical' && body.is_final_chunk) {
        events.push(historicalEvent(subject, type.event, body.provider, { start: body.start_date ?? null, end: body.end_date ?? null }, options.backfillKey));
      }
      await this.outbox.record(manager, events);
      if (stored.length > 0) await this.scheduleQueries(manager, team, user.id, dataSourceKey('summary', type.slug));
      const written = new Set<string>();
      for (const group of nested) {
        const samples = await this.writeSamples(manager, subject, group.resource, body.provider, group);
        if (samples.inserted + samples.updated > 0) written.add(group.resource.slug);
      }
      for (const slug of written) await this.scheduleQueries(manager, team, user.id, dataSourceKey('timeseries', slug));
      const created = stored.filter((summary) => summary.inserted).length;
      return {
        resource: type.slug,
        stored: stored.length,
        created,
        updated: stored.length - created,
        outside_ingestion_bounds: items.length - writes.length,
        events: events.length,
      };
    });
  }

  /** The team's continuous queries reading what was written are evaluated again for the user (debounced). */
  private async scheduleQueries(manager: EntityManager, team: TeamPrincipal, userId: string, source: string): Promise<void> {
    const owner = { teamId: team.teamId, environment: team.environment };
    await this.continuousQueries.schedule(manager, owner, userId, source, this.config.healthData.continuousQueries.debounceMs);
  }

  private async requireUser(team: TeamPrincipal, userId: string): Promise<UserEntity> {
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    return user;
  }
}

function subjectOf(team: TeamPrincipal, user: UserEntity): EventSubject {
  return { team, userId: user.id, clientUserId: user.clientUserId };
}

/** The user's ingestion bounds as [from, to) in epoch ms (UTC days; open when unset). */
function boundsOf(user: UserEntity): { from: number; to: number } {
  return {
    from: user.ingestionStart ? Date.parse(`${user.ingestionStart}T00:00:00Z`) : -Infinity,
    to: user.ingestionEnd ? Date.parse(`${user.ingestionEnd}T00:00:00Z`) + DAY_MS : Infinity,
  };
}

/**
 * The samples within the user's ingestion bounds, one group per source type (a phone's batch
 * mixes its watch's and its own), each with one sample per key. One group when all share one.
 */
function bySourceType(samples: NormalisedSample[], sourceTypes: string[], bounds: { from: number; to: number }, batchSourceType: string) {
  // Nothing to store still writes through the batch's series (as before: an erased user is refused).
  const groups = new Map<string, NormalisedSample[]>([[batchSourceType, []]]);
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index];
    if (!isInside(sample, bounds)) continue;
    const group = groups.get(sourceTypes[index]);
    if (group) group.push(sample);
    else groups.set(sourceTypes[index], [sample]);
  }
  if (groups.size > 1 && groups.get(batchSourceType)?.length === 0) groups.delete(batchSourceType);
  return [...groups].map(([sourceType, grouped]) => ({ sourceType, samples: lastPerKey(grouped) }));
}

/** Whether a sample falls within the user's stored window (`boundsOf`). */
const isInside = (sample: NormalisedSample, bounds: { from: number; to: number }) => sample.ts >= bounds.from && sample.ts < bounds.to;

function countOutside(samples: NormalisedSample[], bounds: { from: number; to: number }): number {
  let outside = 0;
  for (const sample of samples) if (!isInside(sample, bounds)) outside++;
  return outside;
}

function parseSummaries(type: SummaryType, data: unknown[]): Array<Record<string, unknown>> {
  const schema = SUMMARY_SCHEMAS[type.slug];
  const issues = [];
  const items: Array<Record<string, unknown>> = [];
  for (let index = 0; index < data.length && issues.length < 20; index++) {
    const result = schema.safeParse(data[index]);
    if (result.success) items.push(result.data as Record<string, unknown>);
    else issues.push(...zodIssues(result.error, data[index], ['body', 'data', index]));
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
  return items;
}

/** The day a summary counts for in date-range reads (UTC date of a date-time field). */
function dayOf(type: SummaryType, item: Record<string, unknown>): string | null {
  if (!type.date) return null;
  const value = item[type.date];
  if (typeof value !== 'string') return null;
  return value.length === 10 ? value : new Date(Date.parse(value)).toISOString().slice(0, 10);
}

/** A summary's id from its natural key: resending the same day/session replaces it. */
function summaryIdOf(userId: string, type: SummaryType, provider: string, item: Record<string, unknown>): string {
  const raw = type.key ? item[type.key] : '';
  const key =
    type.key && typeof raw === 'string' && raw.length > 10 && !Number.isNaN(Date.parse(raw)) ? new Date(Date.parse(raw)).toISOString() : String(raw ?? '');
  return uuidV5(`${userId}|${type.slug}|${provider}|${key}`, SUMMARY_ID_NAMESPACE);
}
