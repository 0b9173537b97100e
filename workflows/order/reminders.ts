import { ActivityFailure, condition, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  type AppointmentState,
  type AppointmentStatus,
  type OrderReminderSchedule,
  REMINDER_ACTIVITY,
  type ReminderActivities,
  type ReminderKind,
  type SendReminderInput,
} from '../contract';
import type { AppointmentCoordinator } from './appointments';
import type { OrderContext } from './context';
import { isAppointmentFlow, type LowStatus } from './order-statuses';

/**
 * Statuses of a kit with its patient while the order waits for the sample (returnSampleToLab):
 * delivered, and for registrable kits registered with a requisition. From transit_lab on the
 * sample has left the patient.
 */
const KIT_WITH_PATIENT: readonly LowStatus[] = ['with_customer', 'registered', 'requisition_created', 'requisition_bypassed'];
/** An appointment with a time that has not begun: a pre-appointment reminder applies. */
const UPCOMING: readonly AppointmentStatus[] = ['pending', 'reserved', 'confirmed'];

/**
 * The order's patient reminders, on the workflow's own timers beside its stages: one loop per
 * kind of reminder the flow has. Each reminder is a timer (with a summary naming it) and, when
 * it fires, one activity named after the reminder; a timer is cancelled as soon as its reminder
 * no longer applies (booked, rescheduled, sample on its way, order ended), so the history shows
 * what was scheduled, sent and cancelled. A reminder that cannot be sent never fails the order:
 * business reasons come back as `skipped`, and a send that keeps failing is given up after its
 * retries.
 */
export class OrderReminders {
  private readonly activities: ReminderActivities;
  /** Reminders of each kind sent so far in this run (the next one's sequence is one more). */
  private readonly sent: Record<ReminderKind, number> = { book_appointment: 0, upcoming_appointment: 0, kit_return: 0 };

  constructor(
    private readonly order: OrderContext,
    private readonly appointments: AppointmentCoordinator,
    private readonly schedule: OrderReminderSchedule,
  ) {
    this.activities = proxyActivities<ReminderActivities>({
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: schedule.sendRetryInterval, backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: schedule.sendAttempts },
    });
  }

  /** Starts the loops of the order's flow; each ends by itself once its reminders can no longer apply. */
  start(): void {
    const flow = this.order.flow;
    if (isAppointmentFlow(flow)) {
      this.spawn(() => this.remindToBook());
      this.spawn(() => this.remindBeforeAppointments());
    } else if (flow === 'testkit' || flow === 'registrable_testkit') {
      this.spawn(() => this.remindToReturnKit());
    }
  }

  private spawn(loop: () => Promise<void>): void {
    // A cancelled workflow cancels the loops' timers; anything else is a bug and fails the task.
    void loop().catch((error: unknown) => {
      if (!isCancellation(error)) throw error;
    });
  }

  /**
   * Book-your-appointment reminders: from when the order starts waiting for a booking (its
   * requisition is ready, or its appointment was cancelled), one per offset, until an appointment
   * is open or the sample is collected.
   */
  private async remindToBook(): Promise<void> {
    const offsets = sortedMs(this.schedule.bookAppointmentAfter);
    if (offsets.length === 0) return;
    const appointments = this.appointments;
    // A completed appointment is a drawn sample, also before the order has recorded the draw.
    const over = () => this.order.ended() || appointments.sampleCollected() || appointments.latest?.status === 'completed';
    // Cancelling an at-home order cancels its appointment first: that is no reason to book again.
    const waiting = () => appointments.collecting && appointments.open() === null && !this.order.cancelling && !over();
    for (;;) {
      await condition(() => over() || waiting());
      if (over()) return;
      const since = Date.now();
      for (const offset of offsets) {
        const summary = `Book-your-appointment reminder ${this.sent.book_appointment + 1}`;
        if (!(await this.timer(since + offset, () => !waiting(), summary))) break;
        await this.send('book_appointment');
      }
      await condition(() => !waiting());
    }
  }

  /**
   * Reminders before an open appointment's start, one per offset; a new time (a reschedule, a
   * provider's confirmation) cancels them and schedules the new time's, an appointment that ends
   * or begins cancels them. An offset already past when the time is set is skipped.
   */
  private async remindBeforeAppointments(): Promise<void> {
    const offsets = sortedMs(this.schedule.appointmentBefore).reverse();
    if (offsets.length === 0) return;
    const over = () => this.order.ended() || this.appointments.sampleCollected();
    const upcoming = (): (AppointmentState & { startAt: string }) | null => {
      const open = this.appointments.open();
      return open && open.startAt && UPCOMING.includes(open.status) && !over() ? { ...open, startAt: open.startAt } : null;
    };
    const timeOf = (appointment: AppointmentState | null) => (appointment ? `${appointment.appointmentId}:${appointment.startAt}` : null);
    for (;;) {
      await condition(() => over() || upcoming() !== null);
      const appointment = upcoming();
      if (!appointment) return;
      const time = timeOf(appointment);
      const moved = () => timeOf(upcoming()) !== time;
      const start = Date.parse(appointment.startAt);
      for (const before of Number.isNaN(start) ? [] : offsets) {
        if (start - before <= Date.now()) continue;
        const summary = `Reminder ${describeMs(before)} before the appointment at ${appointment.startAt}`;
        if (!(await this.timer(start - before, moved, summary))) break;
        await this.send('upcoming_appointment', {
          key: `upcoming_appointment:${time}:${before}`,
          appointment: { appointmentId: appointment.appointmentId, startAt: appointment.startAt },
        });
      }
      await condition(moved);
    }
  }

  /** Kit-return reminders: from the kit reaching the patient, one per offset, until the sample is on its way. */
  private async remindToReturnKit(): Promise<void> {
    const offsets = sortedMs(this.schedule.kitReturnAfter);
    if (offsets.length === 0) return;
    const order = this.order;
    const withPatient = () => !order.ended() && order.stage === 'sample_to_lab' && KIT_WITH_PATIENT.includes(order.lowStatus);
    await condition(() => order.ended() || withPatient());
    const since = Date.now();
    for (const offset of offsets) {
      if (!withPatient()) return;
      if (!(await this.timer(since + offset, () => !withPatient(), `Kit-return reminder ${this.sent.kit_return + 1}`))) return;
      await this.send('kit_return');
    }
  }

  /** A reminder's timer: true when it fired; false when `cancelled` came true first (the timer is cancelled). */
  private async timer(due: number, cancelled: () => boolean, summary: string): Promise<boolean> {
    if (cancelled()) return false;
    const stopped = await condition(cancelled, Math.max(1, due - Date.now()), { summary });
    return !stopped && !cancelled();
  }

  /** Sends one reminder; skipped or undeliverable, the order goes on either way. */
  private async send(kind: ReminderKind, extra: { key: string; appointment: SendReminderInput['appointment'] } | null = null): Promise<void> {
    const sequence = ++this.sent[kind];
    const input: SendReminderInput = { orderId: this.order.orderId, kind, sequence, key: extra?.key ?? `${kind}:${sequence}` };
    if (extra?.appointment) input.appointment = extra.appointment;
    try {
      const result = await this.activities[REMINDER_ACTIVITY[kind]](input);
      if (result.outcome === 'skipped') log.info('Reminder skipped', { kind, sequence, reason: result.reason });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // Every attempt failed (the activity recorded each failure): this reminder is given up.
      log.warn('Reminder not sent: every attempt failed', { kind, sequence, error: error.cause?.message ?? error.message });
    }
  }
}

/** The offsets in ms, shortest first (negative or unreadable ones dropped by the config already). */
function sortedMs(durations: readonly Duration[]): number[] {
  return durations.map((duration) => msToNumber(duration)).sort((a, b) => a - b);
}

/** `24h`, `90m`, `30s`, `1500ms`: for timer summaries. */
function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
