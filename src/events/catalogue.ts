/**
 * The event catalogue: every event type labflow emits, with the payload carried in `data`, and
 * the envelope every delivery (webhook or event destination) carries.
 *
 * The event-type union is defined in the workflow contract (workflows/contract/events.ts), which
 * workflow code can import; it is re-exported here.
 */
import type { DailyDataEventType, EventType } from '../../workflows/contract';

export type { DailyDataEventType, EventType } from '../../workflows/contract';

/** Order lifecycle (data = the full order, as `GET /v3/order/{id}` returns it). */
export const ORDER_EVENT_TYPES = ['labtest.order.created', 'labtest.order.updated'] as const;
/** Phlebotomy / walk-in appointments (data = the appointment). */
export const APPOINTMENT_EVENT_TYPES = ['labtest.appointment.created', 'labtest.appointment.updated'] as const;
/** Lab report parsing jobs (data = the ParsingJob). */
export const PARSING_JOB_EVENT_TYPES = ['lab_report.parsing_job.created', 'lab_report.parsing_job.updated'] as const;

/** Every event type with a fixed name; `daily.data.<type>.created|updated` come on top. */
export const FIXED_EVENT_TYPES = [
  ...ORDER_EVENT_TYPES,
  ...APPOINTMENT_EVENT_TYPES,
  'labtest.result.critical',
  ...PARSING_JOB_EVENT_TYPES,
  'provider.connection.created',
  'provider.connection.error',
  'continuous_query.result_table.changed',
] as const;

/** What every delivery carries (Junction: top-level team_id, user_id, client_user_id since 2024). */
export interface EventEnvelope<T = unknown> {
  event_type: EventType;
  data: T;
  team_id: string;
  /** The service user id. */
  user_id: string;
  /** The team's own user reference. */
  client_user_id: string;
}

/** The envelope of a stored event (the webhook body and the RabbitMQ message body). */
export function envelopeOf(event: { event_type: string; team_id: string; user_id: string; client_user_id: string }, data: unknown): EventEnvelope {
  return {
    event_type: event.event_type as EventType,
    data,
    team_id: event.team_id,
    user_id: event.user_id,
    client_user_id: event.client_user_id,
  };
}

/**
 * `JSON.stringify(envelopeOf(event, JSON.parse(dataJson)))` without parsing and serialising the
 * event's data again: what the outbox stores is the text JSON.stringify wrote
 * (PhiCipher.encryptJson), which a parse and a second stringify give back unchanged. The webhook
 * body of a delivery, byte for byte the envelope's JSON (test/unit/events.test.ts compares).
 */
export function envelopeJson(event: { event_type: string; team_id: string; user_id: string; client_user_id: string }, dataJson: string): string {
  const text = (value: string) => JSON.stringify(value ?? null);
  return `{"event_type":${text(event.event_type)},"data":${dataJson},"team_id":${text(event.team_id)},"user_id":${text(event.user_id)},"client_user_id":${text(event.client_user_id)}}`;
}

// ---------------------------------------------------------------------------------------------
// Payloads. Orders, appointments and parsing jobs are owned by their modules; the catalogue
// names the fields every consumer may rely on and lets the rest through.

/** An order as the order API shows it (`status_detail` and `last_event` included). */
export interface OrderEventData {
  id: string;
  team_id: string;
  user_id: string;
  status: string;
  status_detail?: string | null;
  last_event?: { id: number | string; created_at: string; status: string; status_detail?: string | null } | null;
  [field: string]: unknown;
}

export interface AppointmentEventData {
  id: string;
  order_id: string;
  user_id: string;
  status: string;
  [field: string]: unknown;
}

/** `labtest.result.critical` (Junction facts: exactly these fields). */
export interface CriticalResultEventData {
  order_id: string;
  sample_id: string | null;
  status: 'final' | 'partial';
  interpretation: string;
  team_id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
}

export interface ParsingJobEventData {
  id: string;
  status: string;
  [field: string]: unknown;
}

export interface ProviderSource {
  name: string;
  slug: string;
  logo: string;
}

/** `provider.connection.created`: `source` {logo, name, slug} and the service user id. */
export interface ProviderConnectionEventData {
  user_id: string;
  source: ProviderSource;
  [field: string]: unknown;
}

/** `provider.connection.error` (ProviderConnectionError): the source refused the connection. */
export interface ProviderConnectionErrorEventData {
  user_id: string;
  /** The provider's slug. */
  provider: string;
  message: string;
  error_type: string;
  error_details: string;
}

/**
 * `daily.data.<type>.created|updated`: summaries sit directly in `data` (identified by `id`);
 * timeseries batches in `data.data` beside `source_id`; workout streams are shallow.
 */
export interface DailyDataEventData {
  user_id: string;
  source: ProviderSource;
  [field: string]: unknown;
}

/** `historical.data.<type>.created`: a backfill of one resource ended. */
export interface HistoricalDataEventData {
  user_id: string;
  start_date: string | null;
  end_date: string | null;
  is_final: true;
  provider: ProviderSource;
}

/**
 * `continuous_query.result_table.changed` (ClientFacingContinuousQueryResultTableChanged): a
 * continuous query answered the user with a new table; `data` lists it per query.
 */
export type ContinuousQueryChangedEventData = Array<{ query_id: string; query_slug: string; data: Record<string, unknown[]> }>;

/** The payload type of each fixed event type. */
export interface EventPayloads {
  'labtest.order.created': OrderEventData;
  'labtest.order.updated': OrderEventData;
  'labtest.appointment.created': AppointmentEventData;
  'labtest.appointment.updated': AppointmentEventData;
  'labtest.result.critical': CriticalResultEventData;
  'lab_report.parsing_job.created': ParsingJobEventData;
  'lab_report.parsing_job.updated': ParsingJobEventData;
  'provider.connection.created': ProviderConnectionEventData;
  'provider.connection.error': ProviderConnectionErrorEventData;
  'continuous_query.result_table.changed': ContinuousQueryChangedEventData;
}

/** `PayloadOf<'labtest.order.created'>` → OrderEventData; daily.data.* → DailyDataEventData. */
export type PayloadOf<T extends EventType> = T extends keyof EventPayloads
  ? EventPayloads[T]
  : T extends DailyDataEventType
    ? DailyDataEventData
    : T extends `historical.data.${string}.created`
      ? HistoricalDataEventData
      : never;

const DAILY_DATA = /^daily\.data\.[a-z0-9_]+\.(created|updated)$/;
const HISTORICAL_DATA = /^historical\.data\.[a-z0-9_]+\.created$/;

/** Whether `value` names an event type labflow emits. */
export function isEventType(value: string): value is EventType {
  return (FIXED_EVENT_TYPES as readonly string[]).includes(value) || DAILY_DATA.test(value) || HISTORICAL_DATA.test(value);
}

/** Webhook endpoint filter: exact event types; null or [] takes every type. */
export function endpointAccepts(filterTypes: readonly string[] | null, eventType: string): boolean {
  return !filterTypes || filterTypes.length === 0 || filterTypes.includes(eventType);
}
