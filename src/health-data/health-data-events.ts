import type { NewEvent } from '../events/outbox.service';
import type { TeamPrincipal } from '../auth/principal';
import { providerOf, sourceIdOf, sourceOf } from './providers';
import type { TimeseriesResource } from './registry';

/**
 * The webhook events of ingested data. A timeseries batch is one event per (user, resource,
 * provider) per chunk of at most EVENT_PAYLOAD_BUDGET bytes of samples — a day of minute heart
 * rate is one or a few events, never one per sample. A summary is one event with the summary
 * object as `data`: `created` the first time its id is stored, `updated` after.
 */

/** Upper bound of the sample JSON in one timeseries event (Junction bounds webhook payloads). */
export const EVENT_PAYLOAD_BUDGET = 256 * 1024;

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
 * Splits sample views into chunks of at most EVENT_PAYLOAD_BUDGET bytes and makes one
 * `daily.data.<event>.<created|updated>` per chunk, `{data, source_id, source, user_id}`.
 */
export function timeseriesEvents(
  subject: EventSubject,
  resource: TimeseriesResource,
  provider: string,
  sourceType: string,
  views: Array<Record<string, unknown>>,
  change: 'created' | 'updated',
): NewEvent[] {
  const events: NewEvent[] = [];
  const eventType = `daily.data.${resource.event}.${change}`;
  let chunk: Array<Record<string, unknown>> = [];
  let bytes = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    events.push(envelope(subject, eventType, { data: chunk, source_id: sourceIdOf(provider), source: sourceOf(provider, sourceType), user_id: subject.userId }));
    chunk = [];
    bytes = 0;
  };
  for (const view of views) {
    const size = JSON.stringify(view).length + 1;
    if (bytes + size > EVENT_PAYLOAD_BUDGET) flush();
    chunk.push(view);
    bytes += size;
  }
  flush();
  return events;
}

export function summaryEvent(subject: EventSubject, event: string, view: Record<string, unknown>, inserted: boolean): NewEvent {
  return { ...envelope(subject, `daily.data.${event}.${inserted ? 'created' : 'updated'}`, view), subjectId: view.id as string };
}

/** `historical.data.<event>.created`: the final chunk of a backfill arrived. */
export function historicalEvent(subject: EventSubject, event: string, provider: string, range: { start: string | null; end: string | null }): NewEvent {
  return envelope(subject, `historical.data.${event}.created`, {
    user_id: subject.userId,
    start_date: range.start,
    end_date: range.end,
    is_final: true,
    provider: providerOf(provider),
  });
}
