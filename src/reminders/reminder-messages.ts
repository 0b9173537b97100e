import type { ReminderKind } from '../../workflows/contract';
import { whenInWords } from '../portal/plain-words';

/** What a reminder says: an e-mail (subject and text) and the same in one short SMS. */
export interface ReminderMessage {
  subject: string;
  text: string;
  sms: string;
}

export interface ReminderFacts {
  kind: ReminderKind;
  /** The team's name as patients know it (the portal brand). */
  brandName: string;
  /** The lab test's name, e.g. "Thyroid Panel". */
  testName: string;
  /** The portal communications link (`…/p/<code>`), opening this order. */
  link: string;
  /** Walk-in orders visit a service center; at-home orders get a phlebotomist. */
  atHome: boolean;
  /** upcoming_appointment: when, in the appointment's time zone. */
  appointment?: { startAt: string; timeZone: string | null };
  /** Support contact of the team, if it has one. */
  support: string | null;
}

/**
 * Reminder texts in plain words. No PHI beyond what the patient's own order page shows: the
 * team, the test's name and the appointment time, never results or details; the link asks a new
 * device for a one-time code.
 */
export function reminderMessage(facts: ReminderFacts): ReminderMessage {
  const help = facts.support ? `\n\nQuestions? Contact ${facts.brandName}: ${facts.support}.` : '';
  const sign = `\n\n${facts.brandName}`;
  switch (facts.kind) {
    case 'book_appointment': {
      const what = facts.atHome ? 'a time for a phlebotomist to visit you' : 'a visit to a patient service center';
      return {
        subject: `${facts.brandName}: book your appointment for your ${facts.testName}`,
        text: `Your lab requisition for your ${facts.testName} is ready. Please book ${what}:\n\n${facts.link}${help}${sign}`,
        sms: `${facts.brandName}: please book your appointment for your ${facts.testName}: ${facts.link}`,
      };
    }
    case 'upcoming_appointment': {
      const when = facts.appointment ? whenInWords(facts.appointment.startAt, facts.appointment.timeZone ?? 'UTC') : 'soon';
      return {
        subject: `${facts.brandName}: your appointment is on ${when}`,
        text: `A reminder: your appointment for your ${facts.testName} is on ${when}. To see the details, change the time or cancel:\n\n${facts.link}${help}${sign}`,
        sms: `${facts.brandName}: your ${facts.testName} appointment is on ${when}. Details or changes: ${facts.link}`,
      };
    }
    case 'kit_return':
      return {
        subject: `${facts.brandName}: please send back the kit for your ${facts.testName}`,
        text: `The kit for your ${facts.testName} was delivered. When you have collected your sample, please send it back to the lab as the kit's instructions say. To follow your order:\n\n${facts.link}${help}${sign}`,
        sms: `${facts.brandName}: please collect your sample and send back the kit for your ${facts.testName}. Your order: ${facts.link}`,
      };
  }
}
