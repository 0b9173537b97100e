import {
  appointmentProviderUpdate,
  appointmentWorkflowId,
  type AppointmentRecord,
  type AppointmentSlot,
  bookAppointment,
  cancelOrder,
  courierUpdate,
  type CreateAppointmentInput,
  labUpdate,
  type OrderReminderSchedule,
  type OrderWorkflowInput,
  orderWorkflowId,
  rescheduleAppointment,
  type SendReminderInput,
  type SendReminderResult,
} from '../../workflows/contract';
import { reminderHistory } from '../helpers/reminder-history';
import { FakeActivities, orderInput, startWorkflowHarness, writeFixtureHistories, waitFor, type WorkflowHarness } from '../helpers/workflow-harness';

/**
 * Fake activities plus the reminder activities: every reminder the workflow sends is kept, and
 * the reminders of chosen orders fail as an unreachable mail server would. Booked appointments
 * take place at their slot's time (the pre-appointment reminder is timed by it).
 */
class ReminderFakes {
  readonly base = new FakeActivities();
  readonly sent: SendReminderInput[] = [];
  /** Orders whose reminders fail on every attempt; the attempts are counted. */
  readonly failing = new Set<string>();
  attempts = 0;

  private send = async (input: SendReminderInput): Promise<SendReminderResult> => {
    if (this.failing.has(input.orderId)) {
      this.attempts += 1;
      throw new Error('SMTP server unreachable');
    }
    // Idempotent per (order, key), as the real activity is.
    if (!this.sent.some((sent) => sent.orderId === input.orderId && sent.key === input.key)) this.sent.push(input);
    return { outcome: 'sent', channel: 'email' };
  };

  readonly activities = {
    ...this.base.activities,
    createAppointment: async (input: CreateAppointmentInput): Promise<AppointmentRecord> => {
      const record = await this.base.activities.createAppointment(input);
      return input.booking.mode === 'book' ? { ...record, startAt: input.booking.slot.start, endAt: input.booking.slot.end } : record;
    },
    sendBookAppointmentReminder: this.send,
    sendUpcomingAppointmentReminder: this.send,
    sendKitReturnReminder: this.send,
  };

  sentFor(orderId: string, kind?: SendReminderInput['kind']): SendReminderInput[] {
    return this.sent.filter((input) => input.orderId === orderId && (!kind || input.kind === kind));
  }

  /** For waitFor: the reminders sent for the order, once there is one. */
  firstSent(orderId: string, kind?: SendReminderInput['kind']): () => SendReminderInput[] | undefined {
    return () => {
      const sent = this.sentFor(orderId, kind);
      return sent.length > 0 ? sent : undefined;
    };
  }
}

/** Short durations: the time-skipping test server cannot run here, so reminders come in ms. */
const SCHEDULE: OrderReminderSchedule = {
  bookAppointmentAfter: ['300 ms', '1 hour'],
  // Long enough that a loaded machine still sets the moved time before its reminder is due (an
  // offset already past when the time is set is skipped, and the test would wait in vain).
  appointmentBefore: ['20 s'],
  kitReturnAfter: ['300 ms', '1 hour'],
  sendAttempts: 2,
  sendRetryInterval: '100 ms',
};

/** An at-home slot starting `msFromNow` from now (its booking key long valid). */
function slotIn(msFromNow: number): AppointmentSlot {
  const start = new Date(Date.now() + msFromNow);
  start.setUTCMilliseconds(0);
  return {
    kind: 'phlebotomy',
    provider: 'getlabs',
    site: '85004',
    start: start.toISOString(),
    end: new Date(start.getTime() + 30 * 60_000).toISOString(),
    expires_at: '2099-01-01T00:00:00.000Z',
  };
}

describe('order workflow: patient reminders on its own timers', () => {
  let harness: WorkflowHarness<ReminderFakes>;
  let fakes: ReminderFakes;
  /** Replay fixtures of the reminder paths: `WORKFLOW_FIXTURES=1 npx jest <this file>` writes them. */
  const fixtures: Record<string, string> = {};

  beforeAll(async () => {
    fakes = new ReminderFakes();
    harness = await startWorkflowHarness(fakes);
  });
  afterAll(async () => {
    await writeFixtureHistories(harness.client, fixtures);
    await harness?.close();
  });

  const start = (input: OrderWorkflowInput) =>
    harness.client.workflow.start('orderWorkflow', { workflowId: orderWorkflowId(input.orderId), taskQueue: harness.taskQueue, args: [input] });
  const provider = (orderId: string, status: 'in_progress' | 'completed') =>
    harness.client.workflow.getHandle(appointmentWorkflowId(orderId, 1)).signal(appointmentProviderUpdate, { status });

  it('at home: reminds to book until booked; the pre-appointment reminder follows a reschedule; the draw ends them', async () => {
    const input = orderInput('at_home_phlebotomy', 'production', { reminders: SCHEDULE });
    const handle = await start(input);
    fixtures['order--at-home-reminders-book-reschedule'] = handle.workflowId;
    const [bookReminder] = await waitFor(fakes.firstSent(input.orderId), 'the first booking reminder');
    expect(bookReminder).toEqual({ orderId: input.orderId, kind: 'book_appointment', sequence: 1, key: 'book_appointment:1' });

    // Booked an hour ahead: the second booking reminder is cancelled, one before the appointment is set.
    const first = slotIn(3_600_000);
    await handle.executeUpdate(bookAppointment, { args: [{ kind: 'phlebotomy', booking: { mode: 'book', slot: first }, appointmentNotes: null }] });
    // Moved to 26 s from now: its reminder 20 s before goes out (in about 5 s), for the new time.
    const moved = slotIn(26_000);
    const rescheduled = await handle.executeUpdate(rescheduleAppointment, { args: [{ slot: moved, appointmentNotes: null }] });
    const [upcoming] = await waitFor(fakes.firstSent(input.orderId, 'upcoming_appointment'), 'the pre-appointment reminder');
    expect(upcoming).toEqual({
      orderId: input.orderId,
      kind: 'upcoming_appointment',
      sequence: 1,
      key: `upcoming_appointment:${rescheduled.appointmentId}:${moved.start}:20000`,
      appointment: { appointmentId: rescheduled.appointmentId, startAt: moved.start },
    });

    await provider(input.orderId, 'in_progress');
    await provider(input.orderId, 'completed');
    await waitFor(() => fakes.base.statuses(input.orderId).includes('draw_completed') || undefined, 'draw_completed');
    await handle.signal(labUpdate, { low: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed.at_home_phlebotomy.completed' });

    expect(fakes.sentFor(input.orderId).map((sent) => sent.kind)).toEqual(['book_appointment', 'upcoming_appointment']);
    const history = await reminderHistory(await handle.fetchHistory());
    expect(history.patched).toBe(true);
    expect(history.activities).toEqual(['sendBookAppointmentReminder', 'sendUpcomingAppointmentReminder']);
    expect(history.timers).toEqual([
      { summary: 'Book-your-appointment reminder 1', outcome: 'fired' },
      { summary: 'Book-your-appointment reminder 2', outcome: 'canceled' },
      { summary: `Reminder 20s before the appointment at ${first.start}`, outcome: 'canceled' },
      { summary: `Reminder 20s before the appointment at ${moved.start}`, outcome: 'fired' },
    ]);
  });

  it('a reminder that cannot be sent is given up after its attempts; the order goes on, and cancelling it cancels the next reminder', async () => {
    const input = orderInput('at_home_phlebotomy', 'production', { reminders: SCHEDULE });
    fakes.failing.add(input.orderId);
    const handle = await start(input);
    fixtures['order--reminder-undeliverable-then-order-cancelled'] = handle.workflowId;
    // Given up, and the next reminder's timer started: cancelling in the same workflow task as the
    // failure would (rightly) never start that timer, and the history below would not show it cancelled.
    await waitFor(async () => {
      const sofar = await reminderHistory(await handle.fetchHistory());
      const next = sofar.timers.find((timer) => timer.summary === 'Book-your-appointment reminder 2');
      return sofar.failedActivities.length === 1 && next?.outcome === 'pending' ? true : undefined;
    }, 'the reminder to be given up and the next one scheduled');
    expect(fakes.attempts).toBe(SCHEDULE.sendAttempts);

    const cancelled = await handle.executeUpdate(cancelOrder);
    expect(cancelled.status).toBe('cancelled.at_home_phlebotomy.cancelled');
    expect(await handle.result()).toEqual({ status: 'cancelled.at_home_phlebotomy.cancelled' });
    const history = await reminderHistory(await handle.fetchHistory());
    expect(history.failedActivities).toEqual(['sendBookAppointmentReminder']);
    expect(history.timers).toEqual([
      { summary: 'Book-your-appointment reminder 1', outcome: 'fired' },
      { summary: 'Book-your-appointment reminder 2', outcome: 'canceled' },
    ]);
    expect(fakes.sentFor(input.orderId)).toEqual([]);
  });

  it('test kit: a kit-return reminder after delivery, none once the lab has the sample', async () => {
    const input = orderInput('testkit', 'production', { reminders: SCHEDULE });
    const handle = await start(input);
    fixtures['order--testkit-kit-return-reminders'] = handle.workflowId;
    await waitFor(() => fakes.base.statuses(input.orderId).includes('transit_customer') || undefined, 'transit_customer');
    await handle.signal(courierUpdate, { low: 'with_customer' });
    const [kitReminder] = await waitFor(fakes.firstSent(input.orderId), 'the kit-return reminder');
    expect(kitReminder).toEqual({ orderId: input.orderId, kind: 'kit_return', sequence: 1, key: 'kit_return:1' });

    await handle.signal(labUpdate, { low: 'delivered_to_lab' });
    await waitFor(() => fakes.base.statuses(input.orderId).includes('delivered_to_lab') || undefined, 'delivered_to_lab');
    await handle.signal(labUpdate, { low: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed.testkit.completed' });
    const history = await reminderHistory(await handle.fetchHistory());
    expect(history.activities).toEqual(['sendKitReturnReminder']);
    expect(history.timers).toEqual([
      { summary: 'Kit-return reminder 1', outcome: 'fired' },
      { summary: 'Kit-return reminder 2', outcome: 'canceled' },
    ]);
  });

  it('an order started without a reminder schedule (before reminders existed) runs no reminder timers', async () => {
    const input = orderInput('testkit', 'production');
    const handle = await start(input);
    await waitFor(() => fakes.base.statuses(input.orderId).includes('transit_customer') || undefined, 'transit_customer');
    await handle.signal(courierUpdate, { low: 'with_customer' });
    await handle.signal(labUpdate, { low: 'delivered_to_lab' });
    await handle.signal(labUpdate, { low: 'completed' });
    expect(await handle.result()).toEqual({ status: 'completed.testkit.completed' });
    expect(await reminderHistory(await handle.fetchHistory())).toEqual({ timers: [], activities: [], failedActivities: [], patched: false });
  });
});
