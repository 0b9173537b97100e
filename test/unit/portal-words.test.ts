import { timelineInWords } from '../../src/portal/plain-words';
import { reminderMessage } from '../../src/reminders/reminder-messages';

describe('portal timeline in plain words', () => {
  const at = (low: string) => `collecting_sample.at_home_phlebotomy.${low}`;

  it('a second booking of an appointment is a change of time, also after waiting for the provider to confirm it', () => {
    expect(timelineInWords([at('requisition_created'), at('appointment_pending'), at('appointment_scheduled'), at('appointment_scheduled'), at('appointment_pending'), at('appointment_scheduled')])).toEqual([
      'Your lab requisition is ready.',
      'Waiting for you to book an appointment.',
      'Your appointment is booked.',
      'Your appointment time was changed.',
      'Your new appointment time is waiting to be confirmed.',
      'Your appointment time was changed.',
    ]);
  });

  it('a booking after a cancelled appointment is a new booking', () => {
    expect(timelineInWords([at('appointment_scheduled'), at('appointment_cancelled'), at('appointment_scheduled')])).toEqual([
      'Your appointment is booked.',
      'Your appointment was cancelled.',
      'Your appointment is booked.',
    ]);
  });
});

describe('reminder messages', () => {
  const facts = { brandName: 'Acme Health', testName: 'Thyroid Panel', link: 'https://labs.example/p/Ab3dE9xy', atHome: true, support: null };

  it('each kind carries the link, in the e-mail and in the SMS', () => {
    for (const kind of ['book_appointment', 'upcoming_appointment', 'kit_return'] as const) {
      const message = reminderMessage({ ...facts, kind, ...(kind === 'upcoming_appointment' ? { appointment: { startAt: '2030-01-07T15:00:00.000Z', timeZone: 'America/Phoenix' } } : {}) });
      expect(message.text).toContain(facts.link);
      expect(message.sms).toContain(facts.link);
      expect(message.subject).toMatch(/^Acme Health: /);
    }
  });

  it('the pre-appointment reminder names the time in the appointment time zone', () => {
    const message = reminderMessage({ ...facts, kind: 'upcoming_appointment', appointment: { startAt: '2030-01-07T15:00:00.000Z', timeZone: 'America/Phoenix' } });
    expect(message.subject).toBe('Acme Health: your appointment is on Mon, Jan 7, 2030, 8:00 AM MST');
  });
});
