import { Context } from '@temporalio/activity';
import type { EventActivities, NewEvent } from '../workflows/contract';

/** What the event activities need from src/ (OutboxService fits). */
export interface EventEmitter {
  /** Writes the events to the outbox in a transaction of its own; returns their ids. */
  emit(events: NewEvent[]): Promise<string[]>;
}

/**
 * emitEvents: the workflow path into the transactional outbox. Idempotent: every event gets a
 * stable id — its eventId, else the UUID v5 of its idempotencyKey, else (no key given) of
 * `<workflowId>:<runId>:<activityId>:<index>`, which Temporal keeps across retries of the same
 * activity — and the outbox ignores an id it already has. A retried activity adds nothing.
 */
export function createEventActivities(outbox: EventEmitter): EventActivities {
  return {
    async emitEvents({ events }) {
      const keyed = events.map((event, index) => {
        if (event.eventId !== undefined || event.idempotencyKey !== undefined) return event;
        const { workflowExecution, activityId } = Context.current().info;
        const run = workflowExecution ? `${workflowExecution.workflowId}:${workflowExecution.runId}` : 'standalone';
        return { ...event, idempotencyKey: `${run}:${activityId}:${index}` };
      });
      return { eventIds: await outbox.emit(keyed) };
    },
  };
}
