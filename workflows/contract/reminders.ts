/**
 * Patient reminders on the order workflow's own timers (workflows/order/reminders.ts,
 * activities/reminders.ts, src/reminders/). Each reminder carries the patient's portal
 * communications link and goes out through the notification adapter.
 */
import type { Duration } from '@temporalio/common';

/**
 * - `book_appointment`: an appointment order whose requisition is ready has no appointment booked
 *   (again after one was cancelled).
 * - `upcoming_appointment`: some time before a booked appointment starts.
 * - `kit_return`: a test kit is with the patient and its sample is not on its way to the lab yet.
 */
export type ReminderKind = 'book_appointment' | 'upcoming_appointment' | 'kit_return';

/**
 * When reminders go out, fixed per order when its workflow starts (from REMINDER_* settings).
 * Absent from the input of orders started before reminders existed: they send none.
 */
export interface OrderReminderSchedule {
  /** After the requisition is ready (or an appointment was cancelled) while nothing is booked: one reminder per offset. */
  bookAppointmentAfter: Duration[];
  /** Before a booked appointment's start: one reminder per offset (one already past when booked is skipped). */
  appointmentBefore: Duration[];
  /** After the kit reached the patient, until the sample is on its way to the lab: one reminder per offset. */
  kitReturnAfter: Duration[];
  /** Attempts of one send (the activity's retry policy), and the pause before the first retry. */
  sendAttempts: number;
  sendRetryInterval: Duration;
}

export interface SendReminderInput {
  orderId: string;
  kind: ReminderKind;
  /** Counts this kind's reminders in the run, from 1 (the message may say "second reminder"). */
  sequence: number;
  /**
   * Unique per order and reminder: a retried activity, or a new run of the order's workflow
   * scheduling the same reminder, finds it sent and sends nothing
   * (`<kind>:<sequence>`; upcoming appointments: `<kind>:<appointment id>:<start>:<offset>`).
   */
  key: string;
  /** upcoming_appointment: the appointment and the start it was scheduled for. */
  appointment?: { appointmentId: string; startAt: string };
}

/** `skipped`: a business reason it could not or should not go out (recorded, the order goes on). */
export type SendReminderResult = { outcome: 'sent'; channel: 'email' | 'sms' } | { outcome: 'skipped'; reason: ReminderSkipReason };

export type ReminderSkipReason =
  /** The team turned reminders (or both e-mail and SMS communication) off. */
  | 'disabled'
  /** No e-mail or phone on file that a sender can reach. */
  | 'no_contact'
  /** The order or its user is gone, or the appointment moved or ended meanwhile. */
  | 'no_longer_applies';

/** One activity per kind, so the workflow history says which reminder went out. */
export interface ReminderActivities {
  sendBookAppointmentReminder(input: SendReminderInput): Promise<SendReminderResult>;
  sendUpcomingAppointmentReminder(input: SendReminderInput): Promise<SendReminderResult>;
  sendKitReturnReminder(input: SendReminderInput): Promise<SendReminderResult>;
}

export const REMINDER_ACTIVITY: Record<ReminderKind, keyof ReminderActivities> = {
  book_appointment: 'sendBookAppointmentReminder',
  upcoming_appointment: 'sendUpcomingAppointmentReminder',
  kit_return: 'sendKitReturnReminder',
};
