import { ApplicationFailure, condition, log, patched } from '@temporalio/workflow';
import { msToNumber } from '@temporalio/common/lib/time';
import type { OrderState, SimulateRequest } from '../contract';
import type { AppointmentCoordinator, AppointmentSimulation } from './appointments';
import type { OrderCancellation } from './cancellation';
import type { Fact, OrderContext, Simulation } from './context';
import { isCancellable, simulatedNext, simulationCanReach } from './order-lifecycle';
import { SANDBOX_RUNS_OWN_STEPS, SIMULATED_BOOKING_RETRIES } from './patches';
import type { TransitionRecorder } from './transitions';

/**
 * The sandbox simulation (`POST /v3/order/{id}/test`): it stands in for the outside parties
 * (courier, lab, appointment provider). A sandbox order runs labflow's own steps as in production
 * (SANDBOX_RUNS_OWN_STEPS) and waits for the simulation only where an outside party would act;
 * the simulation may cancel the order, books and drives simulated appointments (retrying a
 * refused booking), and supplies the next courier/lab fact after its step delay.
 */
export class SandboxSimulation {
  /** What the latest `simulate` signal asked for (null: none yet, or not a sandbox order). */
  current: Simulation | null = null;
  /** Sandbox orders started with SANDBOX_RUNS_OWN_STEPS: no waiting for a simulation up front. */
  private ownSteps = false;
  /** The appointment the simulation last drove, and with which simulation. */
  private drivenAppointment: { appointmentNumber: number; simulation: Simulation } | null = null;
  /** A refused simulated booking is tried again at this time (epoch ms). */
  bookingRetryAt: number | null = null;
  private bookingRefusals = 0;

  constructor(
    private readonly order: OrderContext,
    private readonly transitions: TransitionRecorder,
    private readonly appointments: AppointmentCoordinator,
    private readonly cancellation: OrderCancellation,
  ) {}

  /** The `simulate` signal: ignored outside the sandbox. */
  request(request: SimulateRequest): void {
    if (this.order.input.environment !== 'sandbox') return;
    this.current = {
      finalStatus: request.finalStatus ?? null,
      delayMs: request.delayMs ?? msToNumber(this.order.input.timers.sandboxStepDelay),
      interpretation: request.interpretation,
      hasMissingResults: request.hasMissingResults,
      resultTypes: request.resultTypes,
    };
  }

  /** The simulation as the orderState query shows it. */
  summary(): OrderState['simulation'] {
    return this.current ? { finalStatus: this.current.finalStatus, delayMs: this.current.delayMs } : null;
  }

  /**
   * A sandbox order runs labflow's own steps as in production (SANDBOX_RUNS_OWN_STEPS); orders
   * started before that stayed where the API left them until `POST /v3/order/{id}/test`.
   */
  async waitIfSandbox(): Promise<void> {
    const order = this.order;
    if (order.input.environment !== 'sandbox') return;
    if (patched(SANDBOX_RUNS_OWN_STEPS)) {
      this.ownSteps = true;
      return;
    }
    order.stage = 'awaiting_simulation';
    await condition(() => this.current !== null || order.ended());
    order.checkActive();
    if (this.current?.finalStatus === 'cancelled' && isCancellable(order.flow, order.lowStatus)) {
      await this.transitions.transition('cancelled');
      order.checkActive();
    }
  }

  /** A simulation heading for a status the order is in holds the workflow's own next step. */
  async holdNextStepWhileHeadingHere(): Promise<void> {
    const order = this.order;
    order.checkActive();
    await condition(() => order.ended() || !(this.current && this.current.finalStatus === order.lowStatus));
    order.checkActive();
  }

  /**
   * Sandbox: nothing ships, so the kit's hand-over to the courier is the simulation's to tell
   * (the courier is an outside party); until then the kit can still be cancelled, as an unshipped
   * production kit can.
   */
  async awaitShipment(): Promise<void> {
    if (!this.ownSteps) return;
    this.order.stage = 'awaiting_simulation';
    for (;;) {
      this.order.checkActive();
      if (this.current && this.current.finalStatus !== 'cancelled') return;
      await this.cancelIfAsked();
      const simulation = this.current;
      await condition(() => this.order.ended() || this.current !== simulation);
    }
  }

  /** A simulation heading for `cancelled` cancels the order while it still can be. */
  async cancelIfAsked(): Promise<void> {
    const order = this.order;
    if (!this.ownSteps || this.current?.finalStatus !== 'cancelled') return;
    if (order.shippingStarted || !isCancellable(order.flow, order.lowStatus)) return;
    try {
      await this.cancellation.cancel();
    } catch (error) {
      if (!(error instanceof ApplicationFailure)) throw error;
      log.warn('Simulated cancellation refused', { reason: error.message });
    }
    order.checkActive();
  }

  /**
   * Whether the simulation stands in for the team's staff and draws an on-site sample: it heads
   * for a status the order reaches only once drawn (null: the success path's end).
   */
  drawsOnSite(simulation: Simulation | null): boolean {
    if (!simulation || this.order.flow !== 'on_site_collection') return false;
    return simulationCanReach(this.order.flow, 'draw_completed', simulation.finalStatus ?? 'completed');
  }

  /** The courier/lab fact the simulation reports next, after its delay (null: nothing to report). */
  nextFact(simulation: Simulation | null): Fact | null {
    if (!simulation) return null;
    const low = simulatedNext(this.order.flow, this.order.lowStatus, simulation.finalStatus);
    if (!low) return null;
    return {
      source: 'simulation',
      low,
      interpretation: simulation.interpretation,
      hasMissingResults: simulation.hasMissingResults,
      resultTypes: simulation.resultTypes,
    };
  }

  /**
   * Books the first free slot when there is no open appointment, and has the appointment's child
   * stand in for the provider (confirm, draw) up to what the simulation heads for.
   */
  async driveAppointment(): Promise<void> {
    const simulation = this.current;
    const appointments = this.appointments;
    if (!simulation || simulation.finalStatus === 'appointment_pending' || simulation.finalStatus === 'cancelled' || appointments.bookingInProgress) return;
    const until = simulation.finalStatus === 'appointment_scheduled' ? 'confirmed' : 'completed';
    const open = appointments.open();
    if (!open) {
      if (appointments.latest?.status === 'completed') return;
      if (this.bookingRetryAt !== null && Date.now() < this.bookingRetryAt) return;
      await this.book(simulation, { delayMs: simulation.delayMs, until });
      return;
    }
    if (this.drivenAppointment?.appointmentNumber === open.n && this.drivenAppointment.simulation === simulation) return;
    this.drivenAppointment = { appointmentNumber: open.n, simulation };
    try {
      const commandId = appointments.nextCommandId('simulate', open.n);
      await appointments.signal(open.n, { commandId, type: 'simulate', delayMs: simulation.delayMs, until });
    } catch (error) {
      // The appointment closed in the meantime: its last report says how, and the loop goes on.
      if (!(error instanceof ApplicationFailure) || !patched(SIMULATED_BOOKING_RETRIES)) throw error;
    }
  }

  private async book(simulation: Simulation, childSimulation: AppointmentSimulation): Promise<void> {
    const appointments = this.appointments;
    appointments.bookingInProgress = true;
    try {
      const report = await appointments.start({ mode: 'simulated' }, null, childSimulation);
      this.drivenAppointment = { appointmentNumber: report.n, simulation };
      this.bookingRetryAt = null;
    } catch (error) {
      if (!(error instanceof ApplicationFailure) || !patched(SIMULATED_BOOKING_RETRIES)) throw error;
      await this.bookingRefused(error, simulation);
      return;
    } finally {
      appointments.bookingInProgress = false;
    }
    await appointments.sync();
  }

  /**
   * A sandbox booking the provider refused (another order took the slot first): the order
   * records it (appointment_pending with the reason) and books a fresh slot after a pause that
   * grows with each refusal, never failing the workflow over it.
   */
  private async bookingRefused(refusal: ApplicationFailure, simulation: Simulation): Promise<void> {
    this.bookingRefusals += 1;
    const pauseMs = simulation.delayMs * Math.min(2 ** (this.bookingRefusals - 1), 8);
    this.bookingRetryAt = Date.now() + Math.max(1, pauseMs);
    const statusDetail = `Simulated booking refused (${refusal.message}); booking another slot.`;
    log.info('Simulated booking refused; retrying', { refusals: this.bookingRefusals, reason: refusal.message });
    await this.transitions.transition('appointment_pending', { statusDetail, onlyIfAllowed: true });
  }
}
