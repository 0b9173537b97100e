/**
 * Events (src/events): workflows emit webhook events through the emitEvents activity, which
 * writes them to the transactional outbox like any other state change. The event-type union lives
 * here so workflow code never imports src/; src/events/catalogue.ts re-exports it.
 */

export type DailyDataEventType = `daily.data.${string}.created` | `daily.data.${string}.updated`;
/** A backfill of one resource ended (`historical.data.<type>.created`). */
export type HistoricalDataEventType = `historical.data.${string}.created`;

export type EventType =
  | 'labtest.order.created'
  | 'labtest.order.updated'
  | 'labtest.appointment.created'
  | 'labtest.appointment.updated'
  | 'labtest.result.critical'
  | 'lab_report.parsing_job.created'
  | 'lab_report.parsing_job.updated'
  | 'provider.connection.created'
  | 'provider.connection.error'
  | 'continuous_query.result_table.changed'
  | DailyDataEventType
  | HistoricalDataEventType;

/** One event to emit (src/events/outbox.service.ts calls it NewEvent). */
export interface NewEvent {
  /** A stable id; default derived from `idempotencyKey`, else random. */
  eventId?: string;
  /**
   * The event id is the UUID v5 of this key (src/events/event-id.ts), so emitting twice inserts
   * once. In a workflow use `${workflowInfo().workflowId}:<step name>` (workflow code cannot hash;
   * the activity does). When neither eventId nor idempotencyKey is given, emitEvents derives the
   * key from the workflow run, the activity id and the event's index, which a retry keeps.
   */
  idempotencyKey?: string;
  eventType: EventType;
  teamId: string;
  environment: 'sandbox' | 'production';
  userId: string;
  clientUserId: string;
  data: unknown;
  /**
   * The resource the event is about (order id, appointment id, parsing job id), for resending an
   * order's latest event. Default: `data.id`, else `data.order_id`, when a string.
   */
  subjectId?: string;
}

export interface EmitEventsInput {
  events: NewEvent[];
}

export interface EmitEventsResult {
  /** The id of each event, in input order (also for events an earlier attempt already wrote). */
  eventIds: string[];
}

export interface EventActivities {
  /** Writes the events to the outbox in one transaction. Idempotent: a retry adds nothing. */
  emitEvents(input: EmitEventsInput): Promise<EmitEventsResult>;
}
