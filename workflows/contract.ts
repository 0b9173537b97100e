/**
 * The workflow-safe contract shared by workflows/, activities/ and src/: workflow ids, task
 * queue, signal/update/query definitions, search attributes and input/output types.
 * Only workflow-safe imports are allowed here (no Node, no Nest).
 */
import { defineSearchAttributeKey, type Duration, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OrderFlow, OrderLowLevelStatus } from './order-lifecycle';
// Type-only import of a dependency-free module (the event catalogue): erased from the bundle.
// eslint-disable-next-line no-restricted-imports
import type { EventType } from '../src/events/catalogue';

/** Keyword search attributes registered on the dev server (scripts/stack.sh) for ops to filter by. */
export const SEARCH_ATTRIBUTES = {
  teamId: defineSearchAttributeKey('LabflowTeamId', SearchAttributeType.KEYWORD),
  orderStatus: defineSearchAttributeKey('LabflowOrderStatus', SearchAttributeType.KEYWORD),
  collectionMethod: defineSearchAttributeKey('LabflowCollectionMethod', SearchAttributeType.KEYWORD),
  lab: defineSearchAttributeKey('LabflowLab', SearchAttributeType.KEYWORD),
} as const;

// ---------------------------------------------------------------------------------------------
// User deletion

export const userDeletionWorkflowId = (userId: string) => `user-deletion:${userId}`;

export interface UserDeletionInput {
  userId: string;
  teamId: string;
  /** How long the deletion can still be undone, e.g. "7d" (configurable so tests use seconds). */
  grace: Duration;
}

/** `restored`: undone in time; `erased`: the user and all they own are gone. */
export type UserDeletionOutcome = 'restored' | 'erased';

export type UserDeletionPhase = 'grace_period' | 'restoring' | 'restored' | 'erasing' | 'erased';

export interface UserDeletionState {
  phase: UserDeletionPhase;
}

/** Undo the deletion. Fails if the grace period is over or the client_user_id was taken. */
export const undoUserDeletion = defineUpdate<{ restored: true }>('undoUserDeletion');
export const userDeletionState = defineQuery<UserDeletionState>('userDeletionState');

/** Failure type of restoreUser when a new user took the client_user_id in the meantime. */
export const CLIENT_USER_ID_TAKEN = 'ClientUserIdTaken';
/** Failure type of the undo update once the grace period is over. */
export const DELETION_NOT_UNDOABLE = 'DeletionNotUndoable';

export interface UserActivities {
  /** Makes a user pending deletion visible again; fails with CLIENT_USER_ID_TAKEN if it cannot. */
  restoreUser(input: { userId: string }): Promise<void>;
  /** Erases a user pending deletion and everything it owns. Idempotent. */
  eraseUser(input: { userId: string }): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Events (src/events): workflows emit webhook events through the emitEvents activity, which
// writes them to the transactional outbox like any other state change.

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

// ---------------------------------------------------------------------------------------------
// Orders (src/orders, workflows/order.ts, activities/orders.ts). The lifecycle tables live in
// workflows/order-lifecycle.ts.

export const orderWorkflowId = (orderId: string) => `order:${orderId}`;

/** Timer lengths, fixed per order when its workflow starts (running orders keep theirs). */
export interface OrderTimers {
  /** From the kit reaching the customer to its registration; unregistered then → cancelled. */
  registrationWindow: Duration;
  /** From the kit being with the customer (and registered) to delivery at the lab. */
  sampleToLabWindow: Duration;
  /** Default pause between the steps of a sandbox simulation. */
  sandboxStepDelay: Duration;
}

export interface OrderWorkflowInput {
  orderId: string;
  teamId: string;
  environment: 'sandbox' | 'production';
  flow: OrderFlow;
  /** Sequence number and low-level status of the order's latest event (written by the API). */
  seq: number;
  low: OrderLowLevelStatus;
  /** `YYYY-MM-DD`: no requisition before this date. */
  activateBy: string | null;
  timers: OrderTimers;
  /** Appointment flows only (absent from test-kit orders started before appointments existed). */
  appointmentTimers?: AppointmentTimers;
  /**
   * Set when the reconciler starts a new run for an order whose workflow closed or vanished while
   * the order had not ended: what Postgres knows of its appointments, so the run picks up where
   * the order stands (`seq`/`low` above are the order's latest event).
   */
  resume?: OrderResume;
}

export interface OrderResume {
  /** Appointments booked so far: the next one is `appointmentCount + 1`. */
  appointmentCount: number;
  /** The latest appointment as recorded (its `version` is the number of changes applied to it). */
  appointment: AppointmentState | null;
}

export interface OrderWorkflowResult {
  /** The final event status, e.g. `completed.testkit.completed`; `gone` when the order was erased. */
  status: string;
}

/** A courier tracking fact (tracking webhook → signal). */
export interface CourierUpdate {
  low: OrderLowLevelStatus;
  statusDetail?: string | null;
}

export type ResultInterpretation = 'normal' | 'abnormal' | 'critical';

/** A lab fact: receipt, processing problems, results. */
export interface LabUpdate {
  low: OrderLowLevelStatus;
  statusDetail?: string | null;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

/** `POST /v3/order/{id}/test` (sandbox): walk the success path, or head for `finalStatus`. */
export interface SimulateRequest {
  finalStatus?: OrderLowLevelStatus | null;
  /** Pause between steps; default the order's sandboxStepDelay. */
  delayMs?: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

export interface ActivateByChange {
  activateBy: string | null;
}

/** What the workflow knows right now (for ops and tests; the API reads Postgres). */
export interface OrderState {
  seq: number;
  low: OrderLowLevelStatus;
  status: string;
  stage: string;
  shippingStarted: boolean;
  registration: 'not_applicable' | 'awaiting' | 'registering' | 'registered';
  simulation: { finalStatus: OrderLowLevelStatus | null; delayMs: number } | null;
  activateBy: string | null;
  /** The latest appointment (appointment flows), as its child last reported it. */
  appointment?: AppointmentState | null;
  /**
   * Work received and not yet applied (facts, appointment reports), and whether a transition is
   * being recorded now. Work waiting while nothing is in flight for long means a stalled order.
   */
  pending?: { facts: number; appointmentReports: number; transitionInFlight: boolean };
}

/** The answer of the order updates: the event they recorded. */
export interface OrderUpdateResult {
  seq: number;
  status: string;
}

export const courierUpdate = defineSignal<[CourierUpdate]>('courierUpdate');
export const labUpdate = defineSignal<[LabUpdate]>('labUpdate');
export const simulate = defineSignal<[SimulateRequest]>('simulate');
export const activateByChanged = defineSignal<[ActivateByChange]>('activateByChanged');
/** Cancels the order; refused (nothing written) unless it is in a cancellable status. */
export const cancelOrder = defineUpdate<OrderUpdateResult>('cancelOrder');
/**
 * Registers a registrable kit. The patient details were stored by the API as a pending
 * registration with this id (PHI never enters the workflow history); the transition applies it.
 */
export const registerKit = defineUpdate<OrderUpdateResult, [{ registrationId: string }]>('registerKit');
export const orderState = defineQuery<OrderState>('orderState');

/** Failure types of the updates (validators) and of the activities. */
export const ORDER_NOT_CANCELLABLE = 'OrderNotCancellable';
export const ORDER_NOT_REGISTRABLE = 'OrderNotRegistrable';
/** The order row is gone (its user was erased): the workflow ends quietly. */
export const ORDER_GONE = 'OrderGone';
/** A registration whose pending details were replaced by a concurrent one. */
export const REGISTRATION_SUPERSEDED = 'RegistrationSuperseded';

export interface RecordOrderTransitionInput {
  orderId: string;
  /** The transition's sequence number: (order_id, seq) is unique, so a retry writes nothing. */
  seq: number;
  /** The event status `<top>.<method>.<low>`. */
  status: string;
  statusDetail?: string | null;
  /** Emit `labtest.order.updated` through the outbox (in the same transaction). */
  emit: boolean;
  /** Apply the pending registration with this id (registrable kits). */
  registrationId?: string;
}

export interface RecordOrderTransitionResult {
  /** The order event's integer id. */
  eventId: number;
  /** False when an earlier attempt had already recorded this transition. */
  recorded: boolean;
}

export interface OrderActivities {
  /** Writes the order event, the order's status and the webhook event in one transaction. */
  recordOrderTransition(input: RecordOrderTransitionInput): Promise<RecordOrderTransitionResult>;
  /** Submits the requisition to the lab (once) and stores its form URL. */
  createRequisition(input: { orderId: string }): Promise<{ requisitionFormUrl: string | null }>;
  /** Ships the kit (once) and stores the shipment with its tracking numbers. */
  shipKit(input: { orderId: string }): Promise<{ outboundTrackingNumber: string }>;
  /** Fetches and stores the results (once); sets interpretation and has_missing_results. */
  collectResults(input: {
    orderId: string;
    interpretation?: ResultInterpretation;
    hasMissingResults?: boolean;
  }): Promise<{ interpretation: ResultInterpretation | null; hasMissingResults: boolean }>;
}

// ---------------------------------------------------------------------------------------------
// Appointments (walk_in_test and at_home_phlebotomy orders; src/appointments, workflows/
// appointment.ts). Each appointment is a child workflow of its order, `order:<id>:appointment:<n>`;
// the API sends every appointment command to the ORDER workflow as an update (its validator
// knows whether the order still takes it), the order relays it to the child as a signal and
// answers when the child reports back.

export const appointmentWorkflowId = (orderId: string, n: number) => `order:${orderId}:appointment:${n}`;

export type AppointmentKind = 'phlebotomy' | 'psc';
/** Junction's appointment `status`. */
export type AppointmentStatus = 'pending' | 'reserved' | 'confirmed' | 'in_progress' | 'completed' | 'cancelled';

/** What a booking key vouches for (src/appointments/booking-key.ts BookingSlot). */
export interface AppointmentSlot {
  kind: AppointmentKind;
  provider: string;
  /** PSC site code, or the covered zip code for at-home phlebotomy. */
  site: string;
  start: string;
  end: string;
  expires_at: string;
}

export interface AppointmentTimers {
  /** Pause between the steps of a sandbox simulation (confirmation, draw). */
  sandboxStepDelay: Duration;
  /**
   * How long after its end an appointment nobody reported on stays open before the workflow
   * closes it as a no-show (cancelled).
   */
  noShowGrace: Duration;
}

/** How an appointment came to be. */
export type AppointmentBooking =
  | { mode: 'book'; slot: AppointmentSlot }
  /** Provider-managed scheduling: the provider picks the time and reports it later. */
  | { mode: 'request'; address: AppointmentAddress }
  /** A sandbox simulation books the first free slot itself. */
  | { mode: 'simulated' };

/** A US address (Junction's UsAddress) where an at-home appointment takes place. */
export interface AppointmentAddress {
  first_line: string;
  second_line?: string | null;
  city: string;
  state: string;
  zip_code: string;
  unit?: string | null;
  access_notes?: string | null;
}

export interface AppointmentWorkflowInput {
  orderId: string;
  appointmentId: string;
  n: number;
  kind: AppointmentKind;
  teamId: string;
  environment: 'sandbox' | 'production';
  booking: AppointmentBooking;
  /** Given for this booking (stored with the appointment, passed to the provider). */
  appointmentNotes: string | null;
  /** Apr 2026 opt-in: the provider confirms later (the appointment is pending until then). */
  asyncConfirmation?: boolean;
  /** Sandbox: the appointment stands in for its provider, one step per delay, up to `until`. */
  simulation: { delayMs: number; until: 'confirmed' | 'completed' } | null;
  timers: AppointmentTimers;
}

export interface AppointmentWorkflowResult {
  status: AppointmentStatus | 'refused';
}

/** An appointment command, relayed by the order to its child (signal). */
export type AppointmentCommand =
  | { commandId: string; type: 'reschedule'; slot: AppointmentSlot; appointmentNotes: string | null; asyncConfirmation?: boolean }
  | { commandId: string; type: 'cancel'; cancellationReasonId: string; notes: string | null; by: 'client' | 'order' }
  /** `PATCH /v3/order/{id}/draw_completed`: collected on site. */
  | { commandId: string; type: 'draw_completed' }
  /** Sandbox: stand in for the provider, one step per delay, up to `until`. */
  | { commandId: string; type: 'simulate'; delayMs: number; until: 'confirmed' | 'completed' };

/** What the provider reports (callback endpoint → signal to the child). */
export interface AppointmentProviderUpdate {
  status: 'confirmed' | 'in_progress' | 'completed' | 'cancelled';
  /** For a requested appointment the provider's confirmation carries the time it chose. */
  startAt?: string | null;
  endAt?: string | null;
  reason?: string | null;
}

/** The child's report to its order (signal), after each recorded change. */
export interface AppointmentReport {
  n: number;
  appointmentId: string;
  /** Increases with each change the child records; the order ignores older reports. */
  version: number;
  status: AppointmentStatus;
  /** The command this report answers, if any. */
  commandId?: string;
  /** A refused command or booking (nothing was written): why. */
  refused?: { type: string; message: string };
}

/** The answer of the appointment updates. */
export interface AppointmentUpdateResult {
  appointmentId: string;
  status: AppointmentStatus;
}

export interface BookAppointmentRequest {
  booking: { mode: 'book'; slot: AppointmentSlot } | { mode: 'request'; address: AppointmentAddress };
  kind: AppointmentKind;
  appointmentNotes: string | null;
  asyncConfirmation?: boolean;
}

export interface RescheduleAppointmentRequest {
  slot: AppointmentSlot;
  appointmentNotes: string | null;
  asyncConfirmation?: boolean;
}

export interface CancelAppointmentRequest {
  kind: AppointmentKind;
  cancellationReasonId: string;
  notes: string | null;
}

export const bookAppointment = defineUpdate<AppointmentUpdateResult, [BookAppointmentRequest]>('bookAppointment');
export const rescheduleAppointment = defineUpdate<AppointmentUpdateResult, [RescheduleAppointmentRequest]>('rescheduleAppointment');
export const cancelAppointment = defineUpdate<AppointmentUpdateResult, [CancelAppointmentRequest]>('cancelAppointment');
export const completeDraw = defineUpdate<AppointmentUpdateResult>('completeDraw');
export const appointmentReport = defineSignal<[AppointmentReport]>('appointmentReport');
export const appointmentCommand = defineSignal<[AppointmentCommand]>('appointmentCommand');
export const appointmentProviderUpdate = defineSignal<[AppointmentProviderUpdate]>('appointmentProviderUpdate');

export interface AppointmentState {
  n: number;
  appointmentId: string;
  status: AppointmentStatus;
  version: number;
  startAt: string | null;
  endAt: string | null;
}
export const appointmentState = defineQuery<AppointmentState>('appointmentState');

/** Failure types of the appointment updates and activities. */
export const APPOINTMENT_REFUSED = 'AppointmentRefused';
/** The provider has no seat left in the slot (another booking took it). */
export const SLOT_TAKEN = 'SlotTaken';

export interface CreateAppointmentInput {
  appointmentId: string;
  orderId: string;
  n: number;
  kind: AppointmentKind;
  booking: AppointmentBooking;
  appointmentNotes: string | null;
  asyncConfirmation?: boolean;
}

export type AppointmentChange =
  | { type: 'reschedule'; slot: AppointmentSlot; appointmentNotes: string | null; asyncConfirmation?: boolean }
  | { type: 'cancel'; cancellationReasonId: string | null; notes: string | null; by: 'client' | 'order' | 'provider' | 'no_show' }
  | { type: 'provider_status'; status: 'confirmed' | 'in_progress' | 'completed'; startAt?: string | null; endAt?: string | null }
  | { type: 'draw_completed' };

export interface ChangeAppointmentInput {
  appointmentId: string;
  /** Unique per change of this appointment: a retried activity records the change once. */
  changeId: string;
  change: AppointmentChange;
}

export interface AppointmentRecord {
  status: AppointmentStatus;
  startAt: string | null;
  endAt: string | null;
}

export interface AppointmentActivities {
  /**
   * Books (or requests) with the provider and writes the appointment, its first event and
   * `labtest.appointment.created` in one transaction. Fails with SLOT_TAKEN when the slot is full.
   * Idempotent per appointment id.
   */
  createAppointment(input: CreateAppointmentInput): Promise<AppointmentRecord>;
  /** Applies one change with the provider and records it (`labtest.appointment.updated`). */
  changeAppointment(input: ChangeAppointmentInput): Promise<AppointmentRecord>;
}
