/**
 * Orders (src/orders, workflows/order/, activities/orders.ts). The lifecycle tables live in
 * workflows/order/order-lifecycle.ts.
 */
import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OrderFlow, OrderLowLevelStatus } from '../order/order-statuses';
import type { AppointmentState, AppointmentTimers } from './appointments';
import type { OrderReminderSchedule } from './reminders';

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
  /** Patient reminders (absent from orders started before reminders existed: none are sent). */
  reminders?: OrderReminderSchedule;
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
  /** A lab reached by message (HL7) took the order message (ACK AA/CA): a cancellation is sent to it. */
  labOrderAccepted?: LabOrderAck | null;
}

export interface OrderWorkflowResult {
  /** The final event status, e.g. `completed.testkit.completed`; `gone` when the order was erased. */
  status: string;
}

/** A courier tracking fact (tracking webhook → signal). */
export interface CourierUpdate {
  low: OrderLowLevelStatus;
  statusDetail?: string | null;
  /** The partner's `event_id` (partner webhook): the run takes each report once, whoever signals it again. */
  eventId?: string;
}

/** An order's interpretation; `unknown`: results reported without one. */
export type ResultInterpretation = 'normal' | 'abnormal' | 'critical' | 'unknown';

/** Result types a sandbox simulation may ask for (the SDK's ResultType). */
export type SimulatedResultType = 'numeric' | 'range' | 'comment' | 'coded_value';

/** A lab fact: receipt, processing problems, results. */
export interface LabUpdate {
  low: OrderLowLevelStatus;
  statusDetail?: string | null;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
  /** The sandbox lab: the result types it reports (the SDK's ResultType). */
  resultTypes?: SimulatedResultType[];
  /** The lab's message this fact came from (HL7: hl7_messages.id): the run takes each message once. */
  messageId?: string;
  /** The partner's `event_id` (lab partner webhook): the run takes each report once, whoever signals it again. */
  eventId?: string;
  /**
   * That message corrects results: before the order completes it completes it (its results read
   * with the correction); once completed, the run corrects the stored results (correctLabResults).
   */
  correction?: boolean;
}

/** How a lab reached by message (HL7) answered an order message: MSA-1, MSA-3 and the message's MSH-10. */
export interface LabOrderAck {
  code: string;
  text: string;
  controlId: string;
}

/** `POST /v3/order/{id}/test` (sandbox): walk the success path, or head for `finalStatus`. */
export interface SimulateRequest {
  finalStatus?: OrderLowLevelStatus | null;
  /** Pause between steps; default the order's sandboxStepDelay. */
  delayMs?: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
  /** The result types the sandbox lab cycles through (default numeric, comment, range). */
  resultTypes?: SimulatedResultType[];
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
  /** A lab reached by message refused the order (AE/AR): its answer, until a resend goes through. */
  labOrderRefused?: LabOrderAck | null;
  /** How the lab answered the order's cancellation (ORC CA); null: none sent. */
  labOrderCancelAck?: LabOrderAck | null;
}

/** The answer of the order updates: the event they recorded. */
export interface OrderUpdateResult {
  seq: number;
  status: string;
}

export const courierUpdate = defineSignal<[CourierUpdate]>('courierUpdate');
export const labUpdate = defineSignal<[LabUpdate]>('labUpdate');
/**
 * Several of an order's lab updates in one signal, taken in their order as that many labUpdate
 * signals would be (the HL7 hand-off sends an order's messages of a batch this way: one signal,
 * not one per message). A signal name no history recorded before it: replay is unchanged.
 */
export const labUpdates = defineSignal<[LabUpdate[]]>('labUpdates');
/** Ops fixed what the lab refused (AE/AR) and ask for the order message to go out again. */
export const resendLabOrder = defineSignal('resendLabOrder');
export const simulate = defineSignal<[SimulateRequest]>('simulate');
export const activateByChanged = defineSignal<[ActivateByChange]>('activateByChanged');
/** Cancels the order; refused (nothing written) unless it is in a cancellable status. */
export const cancelOrder = defineUpdate<OrderUpdateResult>('cancelOrder');
/**
 * Registers a registrable kit. The patient details were stored by the API as a pending
 * registration with this id (PHI never enters the workflow history); the transition applies it.
 */
export const registerKit = defineUpdate<OrderUpdateResult, [{ registrationId: string }]>('registerKit');
/**
 * An on-site collection order's sample was drawn (`PATCH /v3/order/{id}/draw_completed`):
 * records draw_completed; refused unless the order has its requisition and is not drawn yet.
 */
export const recordOnSiteDraw = defineUpdate<OrderUpdateResult>('recordOnSiteDraw');
export const orderState = defineQuery<OrderState>('orderState');

/** Failure types of the updates (validators) and of the activities. */
export const ORDER_NOT_CANCELLABLE = 'OrderNotCancellable';
export const ORDER_NOT_REGISTRABLE = 'OrderNotRegistrable';
export const ORDER_NOT_DRAWABLE = 'OrderNotDrawable';
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
  /**
   * Submits the requisition to the lab (once) and stores its form URL. A lab reached by message
   * answers with an ACK (`labAck`); on AE/AR nothing is stored and the order waits for a resend.
   */
  createRequisition(input: { orderId: string }): Promise<{ requisitionFormUrl: string | null; labAck?: LabOrderAck }>;
  /**
   * Tells the lab a cancelled order is off (ORC CA to a lab reached by message), once; `labAck`:
   * how that lab answered, recorded as the order message's answer is.
   */
  cancelLabOrder(input: { orderId: string }): Promise<{ labAck?: LabOrderAck }>;
  /**
   * A lab's correcting message (`reportId`) that reached the run after the order completed:
   * applied to the stored results as the listener applies one after the run closed, once per
   * message (a repeat changes nothing).
   */
  correctLabResults(input: { orderId: string; reportId: string }): Promise<{ outcome: 'corrected' | 'repeat' | 'not_resulted' }>;
  /** Ships the kit (once) and stores the shipment with its tracking numbers. */
  shipKit(input: { orderId: string }): Promise<{ outboundTrackingNumber: string }>;
  /** Fetches and stores the results (once); sets interpretation and has_missing_results. */
  collectResults(input: {
    orderId: string;
    interpretation?: ResultInterpretation;
    hasMissingResults?: boolean;
    /** Sandbox: the result types the simulation asked for. */
    resultTypes?: SimulatedResultType[];
  }): Promise<{ interpretation: ResultInterpretation | null; hasMissingResults: boolean }>;
}
