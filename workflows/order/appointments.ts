import { ApplicationFailure, condition, getExternalWorkflowHandle, ParentClosePolicy, patched, startChild, uuid4 } from '@temporalio/workflow';
import { appointmentWorkflow } from '../appointment/appointment-workflow';
import type { appointmentWorkflowV2 } from '../appointment/appointment-workflow-v2';
import { appointmentKindOf, isFinal, orderStatusOfAppointment, type SimulatedUntil } from '../appointment/appointment-lifecycle';
import {
  APPOINTMENT_REFUSED,
  type AppointmentBooking,
  type AppointmentCommand,
  appointmentCommand,
  type AppointmentKind,
  type AppointmentReport,
  type AppointmentState,
  type AppointmentTimers,
  appointmentWorkflowId,
  type OrderResume,
} from '../contract';
import type { OrderContext } from './context';
import { canTransition } from './order-lifecycle';
import { sourceOf } from './order-statuses';
import { APPOINTMENT_REPORTS_IN_ORDER } from './patches';
import type { TransitionRecorder } from './transitions';

/** A command without its id (the order numbers them). */
export type AppointmentCommandBody = AppointmentCommand extends infer C ? (C extends { commandId: string } ? Omit<C, 'commandId'> : never) : never;

/** A simulated booking: the child stands in for its provider, one step per delay, up to `until`. */
export type AppointmentSimulation = { delayMs: number; until: SimulatedUntil };

/** The cancellation reason recorded when an at-home appointment is cancelled with its order. */
export const ORDER_CANCELLED_REASON = 'order_cancelled';

/** A refused appointment update (nothing was written). */
export function appointmentRefused(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, APPOINTMENT_REFUSED);
}

/**
 * The order's side of its appointments (walk-in and at-home flows): each appointment is a child
 * workflow, `order:<id>:appointment:<n>`. The order starts the children, relays commands to the
 * open one and waits for its answer, and queues every report the children send, recording what
 * each means for the order (`sync`) while the order is collecting its sample.
 */
export class AppointmentCoordinator {
  /** The latest appointment as its child reported it. */
  latest: AppointmentState | null = null;
  /** Appointments started so far: the next one is `started + 1`. */
  private started = 0;
  /** The last report the order recorded (appointment number and version). */
  private synced = { appointmentNumber: 0, version: 0 };
  /** The order is collecting its sample: reports are recorded as they come. */
  collecting = false;
  bookingInProgress = false;
  private commandCount = 0;
  /** Every appointment state the children reported, oldest first, until the order has synced it. */
  private reports: AppointmentState[] = [];
  /** Reports that answer a command, by command id, until the command's caller takes them. */
  private readonly answers = new Map<string, AppointmentReport>();
  private readonly closed = new Set<number>();

  constructor(
    private readonly order: OrderContext,
    private readonly transitions: TransitionRecorder,
    /** The appointments' workflow type: orderWorkflowV2's appointments run appointmentWorkflowV2. */
    private readonly childWorkflow: typeof appointmentWorkflow | typeof appointmentWorkflowV2 = appointmentWorkflow,
  ) {}

  /** A new run of a stranded order: what Postgres knows of its appointments. */
  resume(resume: OrderResume): void {
    this.started = resume.appointmentCount;
    if (resume.appointment) {
      this.latest = resume.appointment;
      this.reports = [resume.appointment];
      if (isFinal(resume.appointment.status)) this.closed.add(resume.appointment.n);
    }
  }

  /** A child's report (the appointmentReport signal). */
  receive(report: AppointmentReport): void {
    if (report.commandId) this.answers.set(report.commandId, report);
    if (report.refused) return;
    const state: AppointmentState = {
      n: report.n,
      appointmentId: report.appointmentId,
      status: report.status,
      version: report.version,
      startAt: report.startAt ?? null,
      endAt: report.endAt ?? null,
    };
    const current = this.latest;
    if (!current || isNewer(state, current)) this.latest = state;
    this.reports = [...this.reports, state].sort((a, b) => (isNewer(a, b) ? 1 : isNewer(b, a) ? -1 : 0));
  }

  /** The latest appointment unless it has ended. */
  open(): AppointmentState | null {
    const appointment = this.latest;
    return appointment && !isFinal(appointment.status) ? appointment : null;
  }

  kind(): AppointmentKind {
    return appointmentKindOf(this.order.flow);
  }

  /** The sample is drawn: the lab reported, an at-home draw completed, or a walk-in visit did. */
  sampleCollected(): boolean {
    const low = this.order.lowStatus;
    if (sourceOf(low) === 'lab' || low === 'draw_completed') return true;
    return this.order.flow === 'walk_in_test' && this.latest?.status === 'completed';
  }

  /** Starts the next appointment as a child workflow and waits for its booking report. */
  async start(
    booking: AppointmentBooking,
    appointmentNotes: string | null,
    simulation: AppointmentSimulation | null,
    asyncConfirmation = false,
  ): Promise<AppointmentReport> {
    const appointmentNumber = ++this.started;
    const handle = await startChild(this.childWorkflow, {
      workflowId: appointmentWorkflowId(this.order.orderId, appointmentNumber),
      // A walk-in order's service-center appointment outlives a cancelled order (Junction leaves
      // it to the patient); at-home appointments are cancelled by the order first.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          orderId: this.order.orderId,
          appointmentId: uuid4(),
          n: appointmentNumber,
          kind: this.kind(),
          teamId: this.order.input.teamId,
          environment: this.order.input.environment,
          booking,
          appointmentNotes,
          asyncConfirmation,
          simulation,
          timers: this.timers(),
        },
      ],
    });
    const closed = () => this.closed.add(appointmentNumber);
    void handle.result().then(closed, closed);
    return this.awaitReport(`book:${appointmentNumber}`, appointmentNumber);
  }

  /** Relays a command to the open appointment's child and waits for its answer. */
  async command(command: AppointmentCommandBody): Promise<AppointmentReport> {
    const open = this.open();
    if (!open) throw appointmentRefused('The order has no open appointment.');
    const commandId = this.nextCommandId(command.type, open.n);
    await this.signal(open.n, { ...command, commandId } as AppointmentCommand);
    return this.awaitReport(commandId, open.n);
  }

  /** `<type>:<appointment number>:<count>`: unique within the order. */
  nextCommandId(type: AppointmentCommand['type'], appointmentNumber: number): string {
    return `${type}:${appointmentNumber}:${++this.commandCount}`;
  }

  async signal(appointmentNumber: number, command: AppointmentCommand): Promise<void> {
    try {
      await getExternalWorkflowHandle(appointmentWorkflowId(this.order.orderId, appointmentNumber)).signal(appointmentCommand, command);
    } catch {
      throw appointmentRefused('The appointment is no longer open.');
    }
  }

  private async awaitReport(commandId: string, appointmentNumber: number): Promise<AppointmentReport> {
    await condition(() => this.answers.has(commandId) || this.closed.has(appointmentNumber));
    const report = this.answers.get(commandId);
    this.answers.delete(commandId);
    if (!report) throw appointmentRefused('The appointment closed before it answered.');
    if (report.refused) throw ApplicationFailure.nonRetryable(report.refused.message, report.refused.type);
    return report;
  }

  private timers(): AppointmentTimers {
    return this.order.input.appointmentTimers ?? { sandboxStepDelay: this.order.input.timers.sandboxStepDelay, noShowGrace: '1 day' };
  }

  /**
   * Records what the queued reports mean for the order, once per report, while the order is
   * collecting its sample (an appointment booked before the requisition is recorded when the
   * order gets there). Queued like any transition.
   */
  sync(): Promise<void> {
    return this.transitions.enqueue(async () => {
      for (;;) {
        if (!this.collecting || this.order.ended()) return;
        const appointment = this.nextReportToSync();
        if (!appointment) return;
        this.synced = { appointmentNumber: appointment.n, version: appointment.version };
        this.reports = this.unsyncedReports();
        const target = orderStatusOfAppointment(this.order.flow, appointment.status);
        if (!target || !canTransition(this.order.flow, this.order.lowStatus, target)) continue;
        // appointment_scheduled again: a reschedule (the at-home self-loop).
        if (target === this.order.lowStatus && target !== 'appointment_scheduled') continue;
        await this.transitions.recordNow(target, {});
      }
    });
  }

  /** Reports newer than the last one the order synced, oldest first. */
  unsyncedReports(): AppointmentState[] {
    const synced = this.synced;
    return this.reports.filter((report) => report.n > synced.appointmentNumber || (report.n === synced.appointmentNumber && report.version > synced.version));
  }

  /**
   * The next report to record: the oldest unsynced one (APPOINTMENT_REPORTS_IN_ORDER), so a
   * confirmation, a draw and a cancellation that queued up behind a slow transition are each
   * recorded; histories from before that skipped to the latest.
   */
  private nextReportToSync(): AppointmentState | null {
    const unsynced = this.unsyncedReports();
    if (unsynced.length === 0) return null;
    if (unsynced.length > 1 && patched(APPOINTMENT_REPORTS_IN_ORDER)) return unsynced[0];
    return unsynced.reduce((latest, report) => (isNewer(report, latest) ? report : latest));
  }
}

/** Whether appointment state `a` comes after `b` (a later appointment, or a later version of it). */
function isNewer(a: AppointmentState, b: AppointmentState): boolean {
  return a.n > b.n || (a.n === b.n && a.version > b.version);
}
