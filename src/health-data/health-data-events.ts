import type { BatchAppend, BatchItem } from '../events/event-batches';
import type { NewEvent } from '../events/outbox.service';
import type { TeamPrincipal } from '../auth/principal';
import { providerOf, sourceIdOf, sourceOf } from './providers';
import type { TimeseriesResource } from './registry';

/**
 * The webhook events of ingested data. Timeseries samples are gathered per (user, resource,
 * provider, source type) across requests (EventBatchesService: HEALTH_DATA_EVENT_WINDOW, bounded
 * by HEALTH_DATA_EVENT_MAX_SAMPLES and _MAX_BYTES), so a day of minute heart rate sent a minute at
 * a time is a few events, never one per request or per sample. A summary is one event with the
 * summary object as `data`: `created` the first time its id is stored, `updated` after.
 */

export interface EventSubject {
  team: Pick<TeamPrincipal, 'teamId' | 'environment'>;
  userId: string;
  clientUserId: string;
}

function envelope(subject: EventSubject, eventType: string, data: unknown): NewEvent {
  return {
    eventType: eventType as NewEvent['eventType'],
    teamId: subject.team.teamId,
    environment: subject.team.environment,
    userId: subject.userId,
    clientUserId: subject.clientUserId,
    data,
  };
}

/**
 * The samples of one ingestion request for their batch: `daily.data.<event>.<created|updated>`
 * with `data = {data: [samples], source_id, source, user_id}`. A sample's identity within the
 * event is its key and timestamp, so a sample sent twice in one window goes out once, latest
 * value.
 */
export function timeseriesBatch(
  subject: EventSubject,
  resource: TimeseriesResource,
  provider: string,
  sourceType: string,
  samples: BatchItem[],
  change: 'created' | 'updated',
): BatchAppend {
  return {
    eventType: `daily.data.${resource.event}.${change}` as NewEvent['eventType'],
    teamId: subject.team.teamId,
    environment: subject.team.environment,
    userId: subject.userId,
    clientUserId: subject.clientUserId,
    group: timeseriesGroup(provider, sourceType),
    // `data` first: the key order of the body subscribers receive (the flush fills it in place).
    envelope: { data: [], source_id: sourceIdOf(provider), source: sourceOf(provider, sourceType), user_id: subject.userId },
    itemsField: 'data',
    items: samples,
  };
}

/** The batch group of a provider's samples of one source type; `${provider}|` is the provider's prefix. */
export function timeseriesGroup(provider: string, sourceType = ''): string {
  return `${provider}|${sourceType}`;
}

export function summaryEvent(subject: EventSubject, event: string, view: Record<string, unknown>, inserted: boolean): NewEvent {
  return { ...envelope(subject, `daily.data.${event}.${inserted ? 'created' : 'updated'}`, view), subjectId: view.id as string };
}

/**
 * `daily.data.workout_stream.created`: a workout's stream was stored. Shallow, as Junction's:
 * streams outgrow webhook payloads, so the event names the workout and the receiver reads the
 * stream (`GET /v2/timeseries/workouts/{workout_id}/stream`).
 */
export function workoutStreamEvent(subject: EventSubject, workout: Record<string, unknown>): NewEvent {
  const sport = (workout.sport as { id: number; name: string; slug: string } | undefined) ?? { id: 0, name: 'Other', slug: 'other' };
  return {
    ...envelope(subject, 'daily.data.workout_stream.created', {
      message: 'The workout stream is available from GET /v2/timeseries/workouts/{workout_id}/stream.',
      provider_id: typeof workout.provider_id === 'string' ? workout.provider_id : workout.id,
      sport,
      workout_id: workout.id,
      source: workout.source,
      user_id: subject.userId,
    }),
    subjectId: workout.id as string,
  };
}

/** `historical.data.<event>.created`: the final chunk of a backfill arrived (once per `backfillKey`, when given). */
export function historicalEvent(
  subject: EventSubject,
  event: string,
  provider: string,
  range: { start: string | null; end: string | null },
  backfillKey?: string,
): NewEvent {
  const key = backfillKey ? { idempotencyKey: `${backfillKey}:historical:${event}` } : {};
  return {
    ...key,
    ...envelope(subject, `historical.data.${event}.created`, {
      user_id: subject.userId,
      start_date: range.start,
      end_date: range.end,
      is_final: true,
      provider: providerOf(provider),
    }),
  };
}
