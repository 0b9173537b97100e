import { timelineInWords } from '../../src/portal/plain-words';

describe('portal timeline in plain words', () => {
  const at = (low: string) => `collecting_sample.at_home_phlebotomy.${low}`;

  it('a second booking of an appointment is a change of time, also after waiting for the provider to confirm it', () => {
    expect(
      timelineInWords([
        at('requisition_created'),
        at('appointment_pending'),
        at('appointment_scheduled'),
        at('appointment_scheduled'),
        at('appointment_pending'),
        at('appointment_scheduled'),
      ]),
    ).toEqual([
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
