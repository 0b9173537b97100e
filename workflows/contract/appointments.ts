/**
 * Appointments (walk_in_test and at_home_phlebotomy orders; src/appointments, workflows/
 * appointment/). Each appointment is a child workflow of its order, `order:<id>:appointment:<n>`;
 * the API sends every appointment command to the ORDER workflow as an update (its validator
 * knows whether the order still takes it), the order relays it to the child as a signal and
 * answers when the child reports back. The appointment lifecycle tables live in
 * workflows/appointment/appointment-lifecycle.ts.
 */
import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

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
  /** A sandbox simulation books an early free slot itself. */
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
  /** The provider's `event_id` (its callback): the run takes each report once, whoever signals it again. */
  eventId?: string;
}

/** The child's report to its order (signal), after each recorded change. */
export interface AppointmentReport {
  n: number;
  appointmentId: string;
  /** Increases with each change the child records; the order ignores older reports. */
  version: number;
  status: AppointmentStatus;
  /** When the appointment takes place, as recorded (absent from reports sent before reminders existed). */
  startAt?: string | null;
  endAt?: string | null;
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
