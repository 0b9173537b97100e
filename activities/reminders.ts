import type { ReminderActivities, SendReminderInput, SendReminderResult } from '../workflows/contract';

/** What the reminder activities need from src/ (OrderRemindersService fits). */
export interface ReminderSender {
  /**
   * Sends the reminder once per (order, key): a retry or a repeated schedule finds it sent and
   * sends nothing. Business reasons not to send come back as `skipped`; anything else throws and
   * is retried.
   */
  send(input: SendReminderInput): Promise<SendReminderResult>;
}

/**
 * One thin activity per kind of reminder, so the workflow history names the reminder that went
 * out; each checks that it was scheduled for its own kind.
 */
export function createReminderActivities(sender: ReminderSender): ReminderActivities {
  const of =
    (kind: SendReminderInput['kind']) =>
    (input: SendReminderInput): Promise<SendReminderResult> => {
      if (input.kind !== kind) throw new Error(`a ${input.kind} reminder was sent to the ${kind} activity`);
      return sender.send(input);
    };
  return {
    sendBookAppointmentReminder: of('book_appointment'),
    sendUpcomingAppointmentReminder: of('upcoming_appointment'),
    sendKitReturnReminder: of('kit_return'),
  };
}
