import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

export interface ReminderTimer {
  /** The timer's summary, e.g. "Book-your-appointment reminder 2". */
  summary: string;
  outcome: 'fired' | 'canceled' | 'pending';
}

/** What an order workflow's history says of its reminders. */
export interface ReminderHistory {
  /** Every timer with a summary (the reminder timers), in the order they started. */
  timers: ReminderTimer[];
  /** The reminder activities scheduled, in order (one per reminder sent or tried). */
  activities: string[];
  /** Attempts of reminder activities that failed for good (the workflow went on). */
  failedActivities: string[];
  /** Whether the history carries the ORDER_REMINDERS patch marker. */
  patched: boolean;
}

const REMINDER_ACTIVITY = /^send\w+Reminder$/;

/**
 * Reads the reminder timers (by their summaries), the reminder activities and the patch marker
 * out of a history. `codec`: the payload codec of the worker that wrote it (the stack's
 * encryption), to read the summaries.
 */
export async function reminderHistory(history: temporal.api.history.v1.IHistory, codec?: PayloadCodec): Promise<ReminderHistory> {
  const events = history.events ?? [];
  const timers = new Map<string, ReminderTimer>();
  const activityNames = new Map<string, string>();
  const activities: string[] = [];
  const failedActivities: string[] = [];
  let patched = false;
  for (const event of events) {
    const started = event.timerStartedEventAttributes;
    const summary = event.userMetadata?.summary;
    if (started?.timerId && summary) timers.set(started.timerId, { summary: await text(summary as Payload, codec), outcome: 'pending' });
    const fired = event.timerFiredEventAttributes?.timerId;
    if (fired && timers.has(fired)) timers.get(fired)!.outcome = 'fired';
    const canceled = event.timerCanceledEventAttributes?.timerId;
    if (canceled && timers.has(canceled)) timers.get(canceled)!.outcome = 'canceled';
    const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled && REMINDER_ACTIVITY.test(scheduled)) {
      activities.push(scheduled);
      activityNames.set(String(event.eventId), scheduled);
    }
    const failed = event.activityTaskFailedEventAttributes?.scheduledEventId;
    if (failed && activityNames.has(String(failed))) failedActivities.push(activityNames.get(String(failed))!);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_patch' && (await markerPatchId(marker.details, codec)) === 'order-reminders') patched = true;
  }
  return { timers: [...timers.values()], activities, failedActivities, patched };
}

async function text(payload: Payload, codec?: PayloadCodec): Promise<string> {
  const [decoded] = codec ? await codec.decode([payload]) : [payload];
  return defaultPayloadConverter.fromPayload<string>(decoded);
}

/** A patch marker's id (`details['patch-data']` holds `{id, deprecated}`, plain or encrypted). */
async function markerPatchId(details: temporal.api.history.v1.IMarkerRecordedEventAttributes['details'], codec?: PayloadCodec): Promise<string | null> {
  const payload = details?.['patch-data']?.payloads?.[0];
  if (!payload) return null;
  try {
    const [decoded] = codec ? await codec.decode([payload as Payload]) : [payload as Payload];
    return defaultPayloadConverter.fromPayload<{ id?: string }>(decoded)?.id ?? null;
  } catch {
    return null;
  }
}
