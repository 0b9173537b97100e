import { ActivityFailure, ApplicationFailure, condition, getExternalWorkflowHandle, log, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  APPOINTMENT_REFUSED,
  type AppointmentActivities,
  type AppointmentChange,
  type AppointmentCommand,
  appointmentCommand,
  appointmentProviderUpdate,
  type AppointmentProviderUpdate,
  type AppointmentRecord,
  appointmentReport,
  type AppointmentReport,
  appointmentState,
  type AppointmentStatus,
  type AppointmentWorkflowInput,
  type AppointmentWorkflowResult,
  orderWorkflowId,
  SLOT_TAKEN,
} from '../contract';
import { isFinal, PROVIDER_MOVES, type SimulatedStatus } from './appointment-lifecycle';

/**
 * Patch id (in recorded histories: never change it): a provider's report naming its `event_id` is
 * taken once per id. Asked for only for reports with an event id, which no history recorded before has.
 */
const PROVIDER_REPORTS_BY_EVENT = 'provider-reports-by-event';

const { createAppointment, changeAppointment } = proxyActivities<AppointmentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute', nonRetryableErrorTypes: [SLOT_TAKEN] },
});

/** A command the appointment applies (everything but v1's `simulate`). */
export type AppointmentChangeCommand = Exclude<AppointmentCommand, { type: 'simulate' }>;

/** What a sandbox simulation (appointmentWorkflow, v1 only) adds to the wait for the next change. */
export interface SimulatedStep {
  /** The status the simulation reports next (null: nothing). */
  status: SimulatedStatus | null;
  delayMs: number;
  /** The simulation was redirected since this step was read. */
  changed(): boolean;
}

/**
 * One appointment, from booking to completed or cancelled: it books with the provider, then
 * applies the commands its order relays (reschedule, cancel, draw completed) and what the
 * provider reports through its callbacks (confirmation, a draw in progress or done, a
 * provider-side cancellation), recording each change and reporting it to the order. Both
 * appointment workflow types run it: appointmentWorkflowV2 as it is, appointmentWorkflow (v1,
 * kept for open orders) with its sandbox simulation (`simulate`, `simulatedStep`).
 */
export class AppointmentRun {
  protected status: AppointmentStatus = 'pending';
  private version = 0;
  private startAt: string | null = null;
  private endAt: string | null = null;
  private readonly commands: AppointmentChangeCommand[] = [];
  private readonly providerUpdates: AppointmentProviderUpdate[] = [];
  /** The provider's event ids this run took (PROVIDER_REPORTS_BY_EVENT; the run never continues as new). */
  private readonly providerEvents = new Set<string>();

  constructor(protected readonly input: AppointmentWorkflowInput) {}

  /** The message handlers (before the run's first await). */
  install(): this {
    const input = this.input;
    setHandler(appointmentCommand, (command) => {
      if (command.type === 'simulate') this.simulate(command);
      else this.commands.push(command);
    });
    setHandler(appointmentProviderUpdate, (update) => {
      // The API may signal a provider's report twice (killed after the signal, before its receipt committed).
      if (update.eventId && patched(PROVIDER_REPORTS_BY_EVENT)) {
        if (this.providerEvents.has(update.eventId)) {
          log.info('Provider report ignored: its event was taken already', { eventId: update.eventId });
          return;
        }
        this.providerEvents.add(update.eventId);
      }
      this.providerUpdates.push(update);
    });
    setHandler(appointmentState, () => ({
      n: input.n,
      appointmentId: input.appointmentId,
      status: this.status,
      version: this.version,
      startAt: this.startAt,
      endAt: this.endAt,
    }));
    return this;
  }

  /** A sandbox simulation's `simulate` command: only appointmentWorkflow (v1) takes one. */
  protected simulate(command: Extract<AppointmentCommand, { type: 'simulate' }>): void {
    log.warn('Appointment simulation ignored: the sandbox provider reports through its callbacks', { until: command.until });
  }

  /** The sandbox simulation's next step (appointmentWorkflow, v1); none here. */
  protected simulatedStep(): SimulatedStep | null {
    return null;
  }

  async run(): Promise<AppointmentWorkflowResult> {
    const booked = await this.book();
    if (!booked) return { status: 'refused' };
    while (!isFinal(this.status)) await this.nextChange();
    return { status: this.status };
  }

  /** Books with the provider; a full slot is reported as a refusal and ends the workflow. */
  private async book(): Promise<boolean> {
    const commandId = `book:${this.input.n}`;
    try {
      const record = await createAppointment({
        appointmentId: this.input.appointmentId,
        orderId: this.input.orderId,
        n: this.input.n,
        kind: this.input.kind,
        booking: this.input.booking,
        appointmentNotes: this.input.appointmentNotes,
        asyncConfirmation: this.input.asyncConfirmation ?? false,
      });
      await this.recorded(record, commandId);
      return true;
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      await this.report({ commandId, refused: refusal });
      return false;
    }
  }

  /** Waits for the next command, provider report, simulated step (v1) or no-show deadline; applies it. */
  private async nextChange(): Promise<void> {
    const noShowAt = this.endAt ? Date.parse(this.endAt) + msToNumber(this.input.timers.noShowGrace) : null;
    const step = this.simulatedStep();
    const simulated = step?.status ?? null;
    const due = [noShowAt, simulated && step ? Date.now() + step.delayMs : null].filter((at): at is number => at !== null);
    const wake = () => this.commands.length > 0 || this.providerUpdates.length > 0 || (step?.changed() ?? false);
    const woke = due.length === 0 ? (await condition(wake), true) : await condition(wake, Math.max(1, Math.min(...due) - Date.now()));
    const command = this.commands.shift();
    if (command) return this.applyCommand(command);
    const update = this.providerUpdates.shift();
    if (update) return this.applyProviderUpdate(update);
    if (woke) return;
    if (simulated) {
      await this.change({ type: 'provider_status', status: simulated });
    } else if (noShowAt !== null && Date.now() >= noShowAt) {
      await this.change({ type: 'cancel', cancellationReasonId: null, notes: 'No-show: nobody reported the appointment.', by: 'no_show' });
    }
  }

  private async applyCommand(command: AppointmentChangeCommand): Promise<void> {
    if (isFinal(this.status)) {
      await this.report({ commandId: command.commandId, refused: { type: APPOINTMENT_REFUSED, message: `The appointment is ${this.status}.` } });
      return;
    }
    const change: AppointmentChange =
      command.type === 'reschedule'
        ? { type: 'reschedule', slot: command.slot, appointmentNotes: command.appointmentNotes, asyncConfirmation: command.asyncConfirmation ?? false }
        : command.type === 'cancel'
          ? { type: 'cancel', cancellationReasonId: command.cancellationReasonId, notes: command.notes, by: command.by }
          : { type: 'draw_completed' };
    try {
      await this.change(change, command.commandId);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      await this.report({ commandId: command.commandId, refused: refusal });
    }
  }

  private async applyProviderUpdate(update: AppointmentProviderUpdate): Promise<void> {
    const stale =
      update.status !== 'cancelled' &&
      update.status !== 'confirmed' &&
      !!update.startAt &&
      !!this.startAt &&
      Date.parse(update.startAt) !== Date.parse(this.startAt);
    if (stale) {
      log.warn('Provider update ignored: it is about an earlier time of this appointment', { status: update.status });
      return;
    }
    if (!PROVIDER_MOVES[this.status].includes(update.status)) {
      log.warn('Provider update ignored: not allowed from the current status', { from: this.status, to: update.status });
      return;
    }
    if (update.status === 'cancelled') {
      await this.change({ type: 'cancel', cancellationReasonId: null, notes: update.reason ?? null, by: 'provider' });
    } else {
      await this.change({ type: 'provider_status', status: update.status, startAt: update.startAt ?? null, endAt: update.endAt ?? null });
    }
  }

  /** Records one change (idempotent per change id) and reports it to the order. */
  private async change(change: AppointmentChange, commandId?: string): Promise<void> {
    const record = await changeAppointment({ appointmentId: this.input.appointmentId, changeId: `v${this.version + 1}`, change });
    await this.recorded(record, commandId);
  }

  private async recorded(record: AppointmentRecord, commandId?: string): Promise<void> {
    this.version += 1;
    this.status = record.status;
    this.startAt = record.startAt;
    this.endAt = record.endAt;
    await this.report({ commandId });
  }

  /** Tells the order; an order that has finished (a cancelled walk-in order) no longer listens. */
  private async report(extra: Pick<AppointmentReport, 'commandId' | 'refused'>): Promise<void> {
    const report: AppointmentReport = {
      n: this.input.n,
      appointmentId: this.input.appointmentId,
      version: this.version,
      status: this.status,
      // The order's reminders need the time (a reschedule moves its pre-appointment reminder).
      startAt: this.startAt,
      endAt: this.endAt,
      ...(extra.commandId ? { commandId: extra.commandId } : {}),
      ...(extra.refused ? { refused: extra.refused } : {}),
    };
    try {
      await getExternalWorkflowHandle(orderWorkflowId(this.input.orderId)).signal(appointmentReport, report);
    } catch (error) {
      log.info('Order no longer listens to its appointment', { error: (error as Error).message });
    }
  }
}

/** A booking or change the provider refused (nothing written): its type and message. */
function refusalOf(error: unknown): { type: string; message: string } | null {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.nonRetryable) {
    return { type: error.cause.type ?? APPOINTMENT_REFUSED, message: error.cause.message };
  }
  return null;
}
