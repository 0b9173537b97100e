import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { appointmentWorkflow } from './appointment/appointment-workflow';
import { DRAWABLE, isFinal, orderStatusOfAppointment, RESCHEDULABLE } from './appointment/appointment-lifecycle';
import {
  activateByChanged,
  APPOINTMENT_REFUSED,
  type AppointmentBooking,
  type AppointmentCommand,
  appointmentCommand,
  type AppointmentKind,
  type AppointmentReport,
  appointmentReport,
  type AppointmentSlot,
  type AppointmentState,
  type AppointmentStatus,
  type AppointmentTimers,
  type AppointmentUpdateResult,
  appointmentWorkflowId,
  bookAppointment,
  type BookAppointmentRequest,
  cancelAppointment,
  completeDraw,
  rescheduleAppointment,
  cancelOrder,
  courierUpdate,
  labUpdate,
  ORDER_GONE,
  ORDER_NOT_CANCELLABLE,
  ORDER_NOT_REGISTRABLE,
  type OrderActivities,
  type OrderState,
  orderState,
  type OrderUpdateResult,
  type OrderWorkflowInput,
  type OrderWorkflowResult,
  registerKit,
  REGISTRATION_SUPERSEDED,
  type ResultInterpretation,
  SEARCH_ATTRIBUTES,
  simulate,
} from './contract';
import {
  assertTransition,
  canTransition,
  eventStatus,
  isAppointmentFlow,
  isCancellable,
  isTerminal,
  ACTIVATE_BY_CHANGEABLE,
  type OrderFlow,
  type OrderLowLevelStatus,
  REGISTRABLE_FROM,
  simulatedNext,
  sourceOf,
} from './order-lifecycle';

const { recordOrderTransition, createRequisition, shipKit, collectResults } = proxyActivities<OrderActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute', nonRetryableErrorTypes: [ORDER_GONE, REGISTRATION_SUPERSEDED] },
});

type Low = OrderLowLevelStatus;

/**
 * Patch ids (workflow versioning). Each is asked for where the new behaviour first differs from
 * the old, so a recorded history without the marker replays the old path unchanged.
 * - SANDBOX_RUNS_OWN_STEPS: a sandbox order runs labflow's own steps (requisition, waiting for an
 *   appointment, recording bookings) at once, as in production; only outside facts wait for
 *   `POST /v3/order/{id}/test`.
 * - APPOINTMENT_REPORTS_IN_ORDER: appointment reports that queued up while a transition was in
 *   flight are applied one by one in order (not just the latest), and before courier/lab facts.
 * - SIMULATED_BOOKING_RETRIES: a sandbox booking the provider refused (a slot taken by another
 *   order) is recorded as an event and retried with a fresh slot instead of failing the workflow.
 */
const SANDBOX_RUNS_OWN_STEPS = 'sandbox-runs-own-steps';
const APPOINTMENT_REPORTS_IN_ORDER = 'appointment-reports-in-order';
const SIMULATED_BOOKING_RETRIES = 'simulated-booking-retries';

/** A fact from outside (courier, lab) or from the sandbox simulation standing in for them. */
interface Fact {
  source: 'courier' | 'lab' | 'simulation';
  low: Low;
  statusDetail?: string | null;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

interface Simulation {
  finalStatus: Low | null;
  delayMs: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

/** Unwinds `run` once the order reached a terminal status (or its row is gone). */
class OrderEnded extends Error {}

/**
 * `order:<order_id>`: one lab order's lifecycle, from the events the API wrote at creation to a
 * terminal status. Every transition is recorded by one idempotent activity (order event, order
 * status and webhook event in one transaction). Outside facts arrive as signals (courier
 * tracking, lab events); a sandbox order waits for a simulation, which then supplies the facts.
 */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderWorkflowResult> {
  return new OrderRun(input).run();
}

class OrderRun {
  private readonly flow: OrderFlow;
  private seq: number;
  private low: Low;
  private stage = 'created';
  private activateBy: string | null;
  private shippingStarted = false;
  private registration: OrderState['registration'];
  private simulation: Simulation | null = null;
  private gone = false;
  /** Sandbox orders started with SANDBOX_RUNS_OWN_STEPS: no waiting for a simulation up front. */
  private sandboxOwnSteps = false;
  private readonly facts: Fact[] = [];
  private transitions: Promise<unknown> = Promise.resolve();
  /** Transitions being recorded right now (the `pending` part of the orderState query). */
  private transitionsInFlight = 0;
  // Appointment flows: the latest appointment as its child reported it, and bookkeeping.
  private appointment: AppointmentState | null = null;
  private appointmentCount = 0;
  private appointmentSynced: { n: number; version: number } = { n: 0, version: 0 };
  private collecting = false;
  private bookingInProgress = false;
  private commandCount = 0;
  private simulatedAppointment: { n: number; simulation: Simulation } | null = null;
  /** Sandbox: a refused simulated booking is tried again at this time (epoch ms). */
  private simulatedBookingRetryAt: number | null = null;
  private simulatedBookingRefusals = 0;
  /** Every appointment state the children reported, oldest first, until the order has synced it. */
  private appointmentReports: AppointmentState[] = [];
  private readonly reports = new Map<string, AppointmentReport>();
  private readonly closedAppointments = new Set<number>();

  constructor(private readonly input: OrderWorkflowInput) {
    this.flow = input.flow;
    this.seq = input.seq;
    this.low = input.low;
    this.activateBy = input.activateBy;
    this.registration = input.flow === 'registrable_testkit' ? 'awaiting' : 'not_applicable';
    if (input.resume) this.resumeFrom(input.resume);
    this.installHandlers();
  }

  /**
   * Runs the flow's stages in order, from the one the order's current status belongs to (a new
   * order starts at the first; a run the reconciler started for a stranded order resumes).
   */
  async run(): Promise<OrderWorkflowResult> {
    try {
      const stages = this.stagesFrom(this.low);
      if (ACTIVATE_BY_CHANGEABLE.includes(this.low)) {
        await this.waitForSimulationIfSandbox();
        await this.waitForActivationDate();
      }
      for (const stage of stages) await this[stage]();
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    return this.finish();
  }

  /** The stages still ahead of an order in status `low` (none once it has ended). */
  private stagesFrom(low: Low): readonly Stage[] {
    if (isTerminal(low)) return [];
    const stages = STAGES[this.flow];
    const resumeAt = RESUME_AT[this.flow][low];
    return resumeAt ? stages.slice(stages.indexOf(resumeAt)) : stages;
  }

  /** A new run of a stranded order: what Postgres knows of its appointments. */
  private resumeFrom(resume: NonNullable<OrderWorkflowInput['resume']>): void {
    this.appointmentCount = resume.appointmentCount;
    const ahead = this.stagesFrom(this.low);
    this.shippingStarted = STAGES[this.flow].includes('shipKitToCustomer') && !ahead.includes('shipKitToCustomer');
    if (this.flow === 'registrable_testkit' && !ahead.includes('awaitRegistration')) this.registration = 'registered';
    if (resume.appointment) {
      this.appointment = resume.appointment;
      this.appointmentReports = [resume.appointment];
      if (isFinal(resume.appointment.status)) this.closedAppointments.add(resume.appointment.n);
    }
  }

  private async finish(): Promise<OrderWorkflowResult> {
    this.stage = 'finished';
    await condition(allHandlersFinished);
    return { status: this.gone ? 'gone' : eventStatus(this.flow, this.low) };
  }

  // --- stages -----------------------------------------------------------------------------

  /**
   * A sandbox order runs labflow's own steps as in production (SANDBOX_RUNS_OWN_STEPS); orders
   * started before that stayed where the API left them until `POST /v3/order/{id}/test`.
   */
  private async waitForSimulationIfSandbox(): Promise<void> {
    if (this.input.environment !== 'sandbox') return;
    if (patched(SANDBOX_RUNS_OWN_STEPS)) {
      this.sandboxOwnSteps = true;
      return;
    }
    this.stage = 'awaiting_simulation';
    await condition(() => this.simulation !== null || this.ended());
    this.checkActive();
    if (this.simulation?.finalStatus === 'cancelled' && isCancellable(this.flow, this.low)) {
      await this.transition('cancelled');
      this.checkActive();
    }
  }

  /** No requisition before `activate_by` (a PATCH may move it; a simulation skips the wait). */
  private async waitForActivationDate(): Promise<void> {
    this.stage = 'awaiting_activation';
    for (;;) {
      this.checkActive();
      if (this.simulation) return;
      const until = startOfDay(this.activateBy);
      if (until === null || Date.now() >= until) return;
      const seen = this.activateBy;
      await condition(() => this.activateBy !== seen || this.ended() || this.simulation !== null, Math.max(1, until - Date.now()));
    }
  }

  private async createRequisition(): Promise<void> {
    await this.proceedIfSimulationAllows();
    this.stage = 'creating_requisition';
    await this.call(() => createRequisition({ orderId: this.input.orderId }));
    await this.transition('requisition_created');
  }

  private async shipKitToCustomer(): Promise<void> {
    await this.awaitSandboxShipment();
    await this.proceedIfSimulationAllows();
    this.checkActive();
    // From here on the order can no longer be cancelled (set in the same step as the check).
    this.stage = 'shipping_kit';
    this.shippingStarted = true;
    await this.call(() => shipKit({ orderId: this.input.orderId }));
    await this.transition('transit_customer');
  }

  /**
   * Sandbox: nothing ships, so the kit's hand-over to the courier is the simulation's to tell
   * (the courier is an outside party); until then the kit can still be cancelled, as an unshipped
   * production kit can.
   */
  private async awaitSandboxShipment(): Promise<void> {
    if (!this.sandboxOwnSteps) return;
    this.stage = 'awaiting_simulation';
    for (;;) {
      this.checkActive();
      if (this.simulation && this.simulation.finalStatus !== 'cancelled') return;
      await this.cancelIfSimulationAsks();
      const simulation = this.simulation;
      await condition(() => this.ended() || this.simulation !== simulation);
    }
  }

  /** Sandbox: a simulation heading for `cancelled` cancels the order while it still can be. */
  private async cancelIfSimulationAsks(): Promise<void> {
    if (!this.sandboxOwnSteps || this.simulation?.finalStatus !== 'cancelled') return;
    if (this.shippingStarted || !isCancellable(this.flow, this.low)) return;
    try {
      await this.cancelNow();
    } catch (error) {
      if (!(error instanceof ApplicationFailure)) throw error;
      log.warn('Simulated cancellation refused', { reason: error.message });
    }
    this.checkActive();
  }

  private async awaitKitWithCustomer(): Promise<void> {
    this.stage = 'kit_to_customer';
    await this.awaitFacts((low) => low === 'with_customer' || low === 'registered');
  }

  /** An unregistered kit is cancelled when the registration window closes. */
  private async awaitRegistration(): Promise<void> {
    this.stage = 'awaiting_registration';
    await this.awaitFacts((low) => low === 'registered', { length: this.input.timers.registrationWindow, onTimeout: () => 'cancelled' });
  }

  /**
   * The sample travels back to the lab. When the window closes, a kit still with the customer
   * is `lost`; one in the courier's hands is `failure_to_deliver_to_lab`.
   */
  private async returnSampleToLab(): Promise<void> {
    this.stage = 'sample_to_lab';
    await this.awaitFacts((low) => low === 'delivered_to_lab' || low === 'lab_processing_blocked', {
      length: this.input.timers.sampleToLabWindow,
      onTimeout: (low) => (low === 'transit_lab' || low === 'problem_in_transit_lab' ? 'failure_to_deliver_to_lab' : 'lost'),
    });
  }

  private async awaitResults(): Promise<void> {
    this.stage = 'awaiting_results';
    await this.awaitFacts((low) => low === 'completed');
  }

  /**
   * Walk-in and at-home orders: the order follows its appointments (appointment_pending ⇄
   * appointment_scheduled, appointment_cancelled, and for at-home draw_completed) until the sample
   * is drawn. A walk-in patient may also come without an appointment: the lab's first fact ends
   * this stage too.
   */
  private async collectSampleAtAppointment(): Promise<void> {
    this.stage = 'collecting_sample';
    this.collecting = true;
    if (!this.appointment && this.low !== 'appointment_pending') await this.transition('appointment_pending', { onlyIfAllowed: true });
    await this.syncAppointment();
    while (!this.sampleCollected()) {
      this.checkActive();
      await this.cancelIfSimulationAsks();
      await this.driveSimulatedAppointment();
      // Wake on work, not on a change seen since the last look: a report that arrived while the
      // step above was recording a transition is still waiting here (and is applied below).
      const simulation = this.simulation;
      const seq = this.seq;
      const wake = () =>
        this.facts.length > 0 || this.ended() || this.unsyncedReports().length > 0 || this.simulation !== simulation || this.seq !== seq;
      const retryAt = this.simulatedBookingRetryAt;
      if (retryAt === null) await condition(wake);
      else await condition(wake, Math.max(1, retryAt - Date.now()));
      this.checkActive();
      if (this.facts.length > 0 && this.unsyncedReports().length > 0 && patched(APPOINTMENT_REPORTS_IN_ORDER)) {
        // The appointment's own story first: a lab fact may only be allowed after the draw.
        await this.syncAppointment();
        continue;
      }
      const fact = this.facts.shift();
      if (fact) await this.applyFact(fact);
      else await this.syncAppointment();
    }
  }

  private sampleCollected(): boolean {
    if (sourceOf(this.low) === 'lab' || this.low === 'draw_completed') return true;
    return this.flow === 'walk_in_test' && this.appointment?.status === 'completed';
  }

  /**
   * Sandbox: the simulation books the first free slot when there is no open appointment, and has
   * the appointment's child stand in for the provider (confirm, draw) up to what it heads for.
   */
  private async driveSimulatedAppointment(): Promise<void> {
    const simulation = this.simulation;
    if (!simulation || simulation.finalStatus === 'appointment_pending' || simulation.finalStatus === 'cancelled' || this.bookingInProgress) return;
    const until = simulation.finalStatus === 'appointment_scheduled' ? 'confirmed' : 'completed';
    const open = this.openAppointment();
    if (!open) {
      if (this.appointment?.status === 'completed') return;
      if (this.simulatedBookingRetryAt !== null && Date.now() < this.simulatedBookingRetryAt) return;
      this.bookingInProgress = true;
      try {
        const report = await this.startAppointment({ mode: 'simulated' }, null, { delayMs: simulation.delayMs, until });
        this.simulatedAppointment = { n: report.n, simulation };
        this.simulatedBookingRetryAt = null;
      } catch (error) {
        if (!(error instanceof ApplicationFailure) || !patched(SIMULATED_BOOKING_RETRIES)) throw error;
        await this.simulatedBookingRefused(error, simulation);
        return;
      } finally {
        this.bookingInProgress = false;
      }
      await this.syncAppointment();
      return;
    }
    if (this.simulatedAppointment?.n === open.n && this.simulatedAppointment.simulation === simulation) return;
    this.simulatedAppointment = { n: open.n, simulation };
    try {
      await this.signalAppointment(open.n, { commandId: `simulate:${open.n}:${++this.commandCount}`, type: 'simulate', delayMs: simulation.delayMs, until });
    } catch (error) {
      // The appointment closed in the meantime: its last report says how, and the loop goes on.
      if (!(error instanceof ApplicationFailure) || !patched(SIMULATED_BOOKING_RETRIES)) throw error;
    }
  }

  /**
   * A sandbox booking the provider refused (another order took the slot first): the order
   * records it (appointment_pending with the reason) and books a fresh slot after a pause that
   * grows with each refusal, never failing the workflow over it.
   */
  private async simulatedBookingRefused(refusal: ApplicationFailure, simulation: Simulation): Promise<void> {
    this.simulatedBookingRefusals += 1;
    const pauseMs = simulation.delayMs * Math.min(2 ** (this.simulatedBookingRefusals - 1), 8);
    this.simulatedBookingRetryAt = Date.now() + Math.max(1, pauseMs);
    const statusDetail = `Simulated booking refused (${refusal.message}); booking another slot.`;
    log.info('Simulated booking refused; retrying', { refusals: this.simulatedBookingRefusals, reason: refusal.message });
    await this.transition('appointment_pending', { statusDetail, onlyIfAllowed: true });
  }

  // --- facts, simulation, timers ----------------------------------------------------------------

  /**
   * Applies courier/lab facts until `done(status)`. A window turns into its timeout status when it
   * closes; a running sandbox simulation supplies the next fact after its step delay.
   */
  private async awaitFacts(done: (low: Low) => boolean, window?: { length: Duration; onTimeout: (low: Low) => Low }): Promise<void> {
    const deadline = window ? Date.now() + msToNumber(window.length) : null;
    while (!done(this.low)) {
      this.checkActive();
      await this.cancelIfSimulationAsks();
      const simulation = this.simulation;
      const simulated = simulation ? simulatedNext(this.flow, this.low, simulation.finalStatus) : null;
      const dueTimes = [deadline, simulated && simulation ? Date.now() + simulation.delayMs : null].filter((at): at is number => at !== null);
      const seq = this.seq;
      const wake = () => this.facts.length > 0 || this.ended() || this.seq !== seq || this.simulation !== simulation;
      let woke = true;
      if (dueTimes.length === 0) await condition(wake);
      else woke = await condition(wake, Math.max(1, Math.min(...dueTimes) - Date.now()));
      this.checkActive();
      const fact = this.facts.shift();
      if (fact) {
        await this.applyFact(fact);
      } else if (!woke && deadline !== null && window && Date.now() >= deadline) {
        await this.transition(window.onTimeout(this.low));
      } else if (!woke && simulated && simulation) {
        await this.applyFact({
          source: 'simulation',
          low: simulated,
          interpretation: simulation.interpretation,
          hasMissingResults: simulation.hasMissingResults,
        });
      }
    }
  }

  /** Records a fact if the lifecycle allows it from the current status; otherwise drops it. */
  private async applyFact(fact: Fact): Promise<void> {
    if (!canTransition(this.flow, this.low, fact.low)) {
      log.warn('Order fact ignored: not allowed from the current status', { from: this.low, to: fact.low, source: fact.source });
      return;
    }
    if (fact.low === 'completed' || fact.low === 'redraw_available') {
      // redraw_available: final results with biomarkers missing (a lab error); a redraw may follow.
      const hasMissingResults = fact.low === 'redraw_available' ? true : fact.hasMissingResults;
      await this.call(() => collectResults({ orderId: this.input.orderId, interpretation: fact.interpretation, hasMissingResults }));
    }
    await this.transition(fact.low, { statusDetail: fact.statusDetail ?? null, onlyIfAllowed: true });
  }

  /** A simulation heading for a status the order is in holds the workflow's own next step. */
  private async proceedIfSimulationAllows(): Promise<void> {
    this.checkActive();
    await condition(() => this.ended() || !(this.simulation && this.simulation.finalStatus === this.low));
    this.checkActive();
  }

  // --- transitions --------------------------------------------------------------------------

  /**
   * Records `low` as the order's next event. Transitions are serialised (the main flow and the
   * update handlers share the sequence); each is checked against the lifecycle table.
   */
  private transition(low: Low, options: TransitionOptions = {}): Promise<boolean> {
    return this.serially(() => this.record(low, options));
  }

  /** Runs `work` after every transition queued before it. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const result = this.transitions.then(work);
    this.transitions = result.catch(() => undefined);
    return result;
  }

  private async record(low: Low, options: TransitionOptions): Promise<boolean> {
    {
      options.guard?.();
      if (!canTransition(this.flow, this.low, low)) {
        if (this.ended()) throw new OrderEnded();
        if (options.onlyIfAllowed) return false;
        assertTransition(this.flow, this.low, low);
      }
      const seq = this.seq + 1;
      this.transitionsInFlight += 1;
      try {
        await this.call(() =>
          recordOrderTransition({
            orderId: this.input.orderId,
            seq,
            status: eventStatus(this.flow, low),
            statusDetail: options.statusDetail ?? null,
            emit: true,
            registrationId: options.registrationId,
          }),
        );
      } finally {
        this.transitionsInFlight -= 1;
      }
      this.seq = seq;
      this.low = low;
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.orderStatus, value: low }]);
      return true;
    }
  }

  /**
   * Records what the latest appointment report means for the order, once per report, while the
   * order is collecting its sample (an appointment booked before the requisition is recorded when
   * the order gets there). Queued like any transition.
   */
  private syncAppointment(): Promise<void> {
    return this.serially(async () => {
      for (;;) {
        if (!this.collecting || this.ended()) return;
        const appointment = this.nextReportToSync();
        if (!appointment) return;
        this.appointmentSynced = { n: appointment.n, version: appointment.version };
        this.appointmentReports = this.unsyncedReports();
        const target = orderStatusOfAppointment(this.flow, appointment.status);
        if (!target || !canTransition(this.flow, this.low, target)) continue;
        // appointment_scheduled again: a reschedule (the at-home self-loop).
        if (target === this.low && target !== 'appointment_scheduled') continue;
        await this.record(target, {});
      }
    });
  }

  /** Reports newer than the last one the order synced, oldest first. */
  private unsyncedReports(): AppointmentState[] {
    const synced = this.appointmentSynced;
    return this.appointmentReports.filter((report) => report.n > synced.n || (report.n === synced.n && report.version > synced.version));
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

  // --- appointments -------------------------------------------------------------------------

  /** Starts appointment n+1 as a child workflow and waits for its booking report. */
  private async startAppointment(
    booking: AppointmentBooking,
    appointmentNotes: string | null,
    simulation: { delayMs: number; until: 'confirmed' | 'completed' } | null,
    asyncConfirmation = false,
  ): Promise<AppointmentReport> {
    const n = ++this.appointmentCount;
    const handle = await startChild(appointmentWorkflow, {
      workflowId: appointmentWorkflowId(this.input.orderId, n),
      // A walk-in order's service-center appointment outlives a cancelled order (Junction leaves
      // it to the patient); at-home appointments are cancelled by the order first.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          orderId: this.input.orderId,
          appointmentId: uuid4(),
          n,
          kind: this.appointmentKind(),
          teamId: this.input.teamId,
          environment: this.input.environment,
          booking,
          appointmentNotes,
          asyncConfirmation,
          simulation,
          timers: this.appointmentTimers(),
        },
      ],
    });
    const closed = () => this.closedAppointments.add(n);
    void handle.result().then(closed, closed);
    return this.awaitReport(`book:${n}`, n);
  }

  /** Relays a command to the open appointment's child and waits for its answer. */
  private async commandAppointment(command: AppointmentCommandBody): Promise<AppointmentReport> {
    const open = this.openAppointment();
    if (!open) throw refused('The order has no open appointment.');
    const commandId = `${command.type}:${open.n}:${++this.commandCount}`;
    await this.signalAppointment(open.n, { ...command, commandId } as AppointmentCommand);
    return this.awaitReport(commandId, open.n);
  }

  private async signalAppointment(n: number, command: AppointmentCommand): Promise<void> {
    try {
      await getExternalWorkflowHandle(appointmentWorkflowId(this.input.orderId, n)).signal(appointmentCommand, command);
    } catch {
      throw refused('The appointment is no longer open.');
    }
  }

  private async awaitReport(commandId: string, n: number): Promise<AppointmentReport> {
    await condition(() => this.reports.has(commandId) || this.closedAppointments.has(n));
    const report = this.reports.get(commandId);
    this.reports.delete(commandId);
    if (!report) throw refused('The appointment closed before it answered.');
    if (report.refused) throw ApplicationFailure.nonRetryable(report.refused.message, report.refused.type);
    return report;
  }

  private openAppointment(): AppointmentState | null {
    const appointment = this.appointment;
    return appointment && !isFinal(appointment.status) ? appointment : null;
  }

  private appointmentKind(): AppointmentKind {
    return this.flow === 'walk_in_test' ? 'psc' : 'phlebotomy';
  }

  private appointmentTimers(): AppointmentTimers {
    return this.input.appointmentTimers ?? { sandboxStepDelay: this.input.timers.sandboxStepDelay, noShowGrace: '1 day' };
  }

  private assertAppointmentOrder(kind: AppointmentKind): void {
    if (!isAppointmentFlow(this.flow) || kind !== this.appointmentKind()) {
      const expected = kind === 'psc' ? 'walk-in (patient service center)' : 'at-home phlebotomy';
      throw refused(`This order is not a ${expected} order.`);
    }
    if (this.ended()) throw refused(`The order is ${eventStatus(this.flow, this.low)}.`);
  }

  private assertSampleNotCollected(): void {
    if (this.sampleCollected() || this.appointment?.status === 'completed') throw refused('The sample has already been collected.');
  }

  private assertSlotUsable(slot: AppointmentSlot): void {
    if (slot.kind !== this.appointmentKind()) throw refused('This booking key is for another kind of appointment.');
    if (Date.parse(slot.expires_at) <= Date.now()) throw refused('The booking key has expired; fetch availability again.');
  }

  private assertBookable(request: BookAppointmentRequest): void {
    this.assertAppointmentOrder(request.kind);
    this.assertSampleNotCollected();
    if (this.bookingInProgress) throw refused('Another booking of this order is in progress.');
    if (this.openAppointment()) throw refused('The order already has an appointment: reschedule or cancel it.');
    if (request.booking.mode === 'book') this.assertSlotUsable(request.booking.slot);
    else if (this.flow !== 'at_home_phlebotomy') throw refused('Only at-home phlebotomy appointments can be requested.');
  }

  private assertOpenAppointment(kind: AppointmentKind, allowed: readonly AppointmentStatus[], action: string): void {
    this.assertAppointmentOrder(kind);
    const open = this.openAppointment();
    if (!open) throw refused('The order has no open appointment.');
    if (!allowed.includes(open.status)) throw refused(`The appointment cannot be ${action}: it is ${open.status}.`);
  }

  /** Runs an activity; an order whose row is gone (user erased) ends the workflow quietly. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === ORDER_GONE) {
        this.gone = true;
        throw new OrderEnded();
      }
      throw error;
    }
  }

  /** Runs an update's work like `inUpdate`, returning its answer. */
  private async inAppointmentUpdate(work: () => Promise<AppointmentReport>): Promise<AppointmentUpdateResult> {
    const report = await this.inUpdate(async () => {
      const answer = await work();
      await this.syncAppointment();
      return answer;
    });
    return { appointmentId: report.appointmentId, status: report.status };
  }

  private ended(): boolean {
    return this.gone || isTerminal(this.low);
  }

  private checkActive(): void {
    if (this.ended()) throw new OrderEnded();
  }

  // --- handlers -----------------------------------------------------------------------------

  private installHandlers(): void {
    setHandler(courierUpdate, (update) => this.receive({ ...update, source: 'courier' }));
    setHandler(labUpdate, (update) => this.receive({ ...update, source: 'lab' }));
    setHandler(simulate, (request) => {
      if (this.input.environment !== 'sandbox') return;
      this.simulation = {
        finalStatus: request.finalStatus ?? null,
        delayMs: request.delayMs ?? msToNumber(this.input.timers.sandboxStepDelay),
        interpretation: request.interpretation,
        hasMissingResults: request.hasMissingResults,
      };
    });
    setHandler(appointmentReport, (report) => {
      if (report.commandId) this.reports.set(report.commandId, report);
      if (report.refused) return;
      const state: AppointmentState = { n: report.n, appointmentId: report.appointmentId, status: report.status, version: report.version, startAt: null, endAt: null };
      const current = this.appointment;
      if (!current || isNewer(state, current)) this.appointment = state;
      this.appointmentReports = [...this.appointmentReports, state].sort((a, b) => (isNewer(a, b) ? 1 : isNewer(b, a) ? -1 : 0));
    });
    setHandler(
      bookAppointment,
      async (request): Promise<AppointmentUpdateResult> => {
        this.bookingInProgress = true;
        try {
          return await this.inAppointmentUpdate(() =>
            this.startAppointment(request.booking, request.appointmentNotes, null, request.asyncConfirmation ?? false),
          );
        } finally {
          this.bookingInProgress = false;
        }
      },
      { validator: (request) => this.assertBookable(request) },
    );
    setHandler(
      rescheduleAppointment,
      (request): Promise<AppointmentUpdateResult> =>
        this.inAppointmentUpdate(() =>
          this.commandAppointment({
            type: 'reschedule',
            slot: request.slot,
            appointmentNotes: request.appointmentNotes,
            asyncConfirmation: request.asyncConfirmation ?? false,
          }),
        ),
      {
        validator: (request) => {
          this.assertOpenAppointment(request.slot.kind, RESCHEDULABLE, 'rescheduled');
          this.assertSlotUsable(request.slot);
        },
      },
    );
    setHandler(
      cancelAppointment,
      (request): Promise<AppointmentUpdateResult> =>
        this.inAppointmentUpdate(() =>
          this.commandAppointment({ type: 'cancel', cancellationReasonId: request.cancellationReasonId, notes: request.notes, by: 'client' }),
        ),
      { validator: (request) => this.assertOpenAppointment(request.kind, RESCHEDULABLE, 'cancelled') },
    );
    setHandler(
      completeDraw,
      (): Promise<AppointmentUpdateResult> => this.inAppointmentUpdate(() => this.commandAppointment({ type: 'draw_completed' })),
      { validator: () => this.assertOpenAppointment('phlebotomy', DRAWABLE, 'marked drawn') },
    );
    setHandler(activateByChanged, ({ activateBy }) => {
      this.activateBy = activateBy;
    });
    setHandler(orderState, () => ({
      seq: this.seq,
      low: this.low,
      status: eventStatus(this.flow, this.low),
      stage: this.stage,
      shippingStarted: this.shippingStarted,
      registration: this.registration,
      simulation: this.simulation ? { finalStatus: this.simulation.finalStatus, delayMs: this.simulation.delayMs } : null,
      activateBy: this.activateBy,
      appointment: this.appointment,
      pending: { facts: this.facts.length, appointmentReports: this.unsyncedReports().length, transitionInFlight: this.transitionsInFlight > 0 },
    }));
    setHandler(
      cancelOrder,
      async (): Promise<OrderUpdateResult> => {
        await this.inUpdate(() => this.cancelNow());
        return { seq: this.seq, status: eventStatus(this.flow, this.low) };
      },
      { validator: () => this.assertCancellable() },
    );
    setHandler(
      registerKit,
      async ({ registrationId }): Promise<OrderUpdateResult> => {
        this.registration = 'registering';
        try {
          await this.inUpdate(() => this.transition('registered', { registrationId, guard: () => this.assertRegistrable(true) }));
        } catch (error) {
          this.registration = 'awaiting';
          throw error;
        }
        this.registration = 'registered';
        return { seq: this.seq, status: eventStatus(this.flow, this.low) };
      },
      { validator: (_registration: { registrationId: string }) => this.assertRegistrable(false) },
    );
  }

  /** Cancels the order; cancelling an at-home order cancels its appointment (Junction), a walk-in's stays. */
  private async cancelNow(): Promise<void> {
    if (this.flow === 'at_home_phlebotomy' && this.openAppointment()) {
      await this.commandAppointment({ type: 'cancel', cancellationReasonId: ORDER_CANCELLED_REASON, notes: 'The order was cancelled.', by: 'order' });
      await this.syncAppointment();
    }
    await this.transition('cancelled', { guard: () => this.assertCancellable() });
  }

  private receive(fact: Fact): void {
    const expected = fact.source === 'lab' ? ['lab', 'courier'] : ['courier'];
    if (!expected.includes(sourceOf(fact.low))) {
      log.warn('Order fact ignored: not a status this source reports', { source: fact.source, low: fact.low });
      return;
    }
    this.facts.push(fact);
  }

  private assertCancellable(): void {
    if (this.ended() || this.shippingStarted || !isCancellable(this.flow, this.low)) {
      const reason = this.shippingStarted && !this.ended() ? 'the kit has started shipping' : `it is ${eventStatus(this.flow, this.low)}`;
      throw ApplicationFailure.nonRetryable(`Order cannot be cancelled: ${reason}.`, ORDER_NOT_CANCELLABLE);
    }
  }

  /** `inHandler`: checked again inside the transition, where this update itself is registering. */
  private assertRegistrable(inHandler: boolean): void {
    if (this.flow !== 'registrable_testkit') {
      throw ApplicationFailure.nonRetryable('This order is not a registrable test kit.', ORDER_NOT_REGISTRABLE);
    }
    const busy = inHandler ? this.registration === 'registered' : this.registration !== 'awaiting';
    if (busy) throw ApplicationFailure.nonRetryable('This kit is already registered.', ORDER_NOT_REGISTRABLE);
    if (this.ended() || !REGISTRABLE_FROM.includes(this.low)) {
      const reason = REGISTRABLE_FROM.includes(this.low) || this.ended() ? `it is ${eventStatus(this.flow, this.low)}` : 'the kit has not shipped yet';
      throw ApplicationFailure.nonRetryable(`This kit cannot be registered: ${reason}.`, ORDER_NOT_REGISTRABLE);
    }
  }

  /** Runs an update's work, turning internal outcomes into failures the caller can read. */
  private async inUpdate<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      if (error instanceof OrderEnded) throw ApplicationFailure.nonRetryable('The order no longer exists.', ORDER_GONE);
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
        throw ApplicationFailure.nonRetryable(error.cause.message, error.cause.type ?? undefined);
      }
      throw error;
    }
  }
}

/** The run's steps, named after their methods (`run` calls them in this order). */
type Stage =
  | 'createRequisition'
  | 'shipKitToCustomer'
  | 'awaitKitWithCustomer'
  | 'awaitRegistration'
  | 'returnSampleToLab'
  | 'collectSampleAtAppointment'
  | 'awaitResults';

const APPOINTMENT_STAGES: readonly Stage[] = ['createRequisition', 'collectSampleAtAppointment', 'awaitResults'];
const STAGES: Record<OrderFlow, readonly Stage[]> = {
  testkit: ['createRequisition', 'shipKitToCustomer', 'awaitKitWithCustomer', 'returnSampleToLab', 'awaitResults'],
  registrable_testkit: ['shipKitToCustomer', 'awaitKitWithCustomer', 'awaitRegistration', 'createRequisition', 'returnSampleToLab', 'awaitResults'],
  // The sample is already collected: no kit ships.
  imported_testkit: ['createRequisition', 'returnSampleToLab', 'awaitResults'],
  walk_in_test: APPOINTMENT_STAGES,
  at_home_phlebotomy: APPOINTMENT_STAGES,
};

/**
 * Where a run resumes for an order in each non-terminal status past its first stage (a run the
 * reconciler starts for an order whose workflow closed or vanished). Unlisted: the first stage.
 */
const KIT_OUTBOUND = { transit_customer: 'awaitKitWithCustomer', out_for_delivery: 'awaitKitWithCustomer', problem_in_transit_customer: 'awaitKitWithCustomer' } as const;
const SAMPLE_INBOUND = { transit_lab: 'returnSampleToLab', problem_in_transit_lab: 'returnSampleToLab' } as const;
const AT_LAB = { delivered_to_lab: 'awaitResults', lab_processing_blocked: 'awaitResults' } as const;
const APPOINTMENT_RESUME: Partial<Record<Low, Stage>> = {
  requisition_created: 'collectSampleAtAppointment',
  requisition_bypassed: 'collectSampleAtAppointment',
  appointment_pending: 'collectSampleAtAppointment',
  appointment_scheduled: 'collectSampleAtAppointment',
  appointment_cancelled: 'collectSampleAtAppointment',
  draw_completed: 'collectSampleAtAppointment',
  partial_results: 'awaitResults',
};
const RESUME_AT: Record<OrderFlow, Partial<Record<Low, Stage>>> = {
  testkit: {
    requisition_created: 'shipKitToCustomer',
    requisition_bypassed: 'shipKitToCustomer',
    ...KIT_OUTBOUND,
    with_customer: 'returnSampleToLab',
    ...SAMPLE_INBOUND,
    ...AT_LAB,
  },
  registrable_testkit: {
    ...KIT_OUTBOUND,
    with_customer: 'awaitRegistration',
    registered: 'createRequisition',
    requisition_created: 'returnSampleToLab',
    requisition_bypassed: 'returnSampleToLab',
    ...SAMPLE_INBOUND,
    ...AT_LAB,
  },
  imported_testkit: { requisition_created: 'returnSampleToLab', requisition_bypassed: 'returnSampleToLab', ...SAMPLE_INBOUND, ...AT_LAB },
  walk_in_test: APPOINTMENT_RESUME,
  at_home_phlebotomy: APPOINTMENT_RESUME,
};

type TransitionOptions = { statusDetail?: string | null; registrationId?: string; guard?: () => void; onlyIfAllowed?: boolean };

/** A command without its id (the order numbers them). */
type AppointmentCommandBody = AppointmentCommand extends infer C ? (C extends { commandId: string } ? Omit<C, 'commandId'> : never) : never;

/** The cancellation reason recorded when an at-home appointment is cancelled with its order. */
const ORDER_CANCELLED_REASON = 'order_cancelled';

/** Whether appointment state `a` comes after `b` (a later appointment, or a later version of it). */
function isNewer(a: AppointmentState, b: AppointmentState): boolean {
  return a.n > b.n || (a.n === b.n && a.version > b.version);
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, APPOINTMENT_REFUSED);
}

/** Midnight UTC at the start of a `YYYY-MM-DD` date, as epoch ms; null when there is no date. */
function startOfDay(date: string | null): number | null {
  if (!date) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}
