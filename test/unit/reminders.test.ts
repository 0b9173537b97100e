import { withoutContacts } from '../../src/reminders/order-reminders.service';
import { reminderMessage } from '../../src/reminders/reminder-messages';

describe('reminder messages', () => {
  const facts = { brandName: 'Acme Health', testName: 'Thyroid Panel', link: 'https://labs.example/p/Ab3dE9xy', atHome: true, support: null };

  it('each kind carries the link, in the e-mail and in the SMS', () => {
    for (const kind of ['book_appointment', 'upcoming_appointment', 'kit_return'] as const) {
      const message = reminderMessage({
        ...facts,
        kind,
        ...(kind === 'upcoming_appointment' ? { appointment: { startAt: '2030-01-07T15:00:00.000Z', timeZone: 'America/Phoenix' } } : {}),
      });
      expect(message.text).toContain(facts.link);
      expect(message.sms).toContain(facts.link);
      expect(message.subject).toMatch(/^Acme Health: /);
    }
  });

  it('the pre-appointment reminder names the time in the appointment time zone', () => {
    const message = reminderMessage({
      ...facts,
      kind: 'upcoming_appointment',
      appointment: { startAt: '2030-01-07T15:00:00.000Z', timeZone: 'America/Phoenix' },
    });
    expect(message.subject).toBe('Acme Health: your appointment is on Mon, Jan 7, 2030, 8:00 AM MST');
  });
});

describe('reminder failures', () => {
  it('are recorded without the recipient', () => {
    expect(withoutContacts("Can't send mail - all recipients were rejected: 550 5.1.1 <marguerite@example.com>: Recipient address rejected")).toBe(
      "Can't send mail - all recipients were rejected: 550 5.1.1 <<e-mail>>: Recipient address rejected",
    );
    expect(withoutContacts('SMS to +1 415 555 0123 failed')).toBe('SMS to <phone> failed');
    expect(withoutContacts('connect ECONNREFUSED 127.0.0.1:25')).toBe('connect ECONNREFUSED 127.0.0.1:25');
  });
});
