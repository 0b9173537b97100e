import { ActivityFailure, ApplicationFailure, setHandler } from '@temporalio/workflow';
import { appointmentKindRefusal, DRAWABLE, openAppointmentRefusal, RESCHEDULABLE, slotRefusal } from '../appointment/appointment-lifecycle';
import {
  activateByChanged,
  appointmentReport,
  type AppointmentKind,
  type AppointmentReport,
  type AppointmentSlot,
  type AppointmentStatus,
  type AppointmentUpdateResult,
  bookAppointment,
  type BookAppointmentRequest,
  cancelAppointment,
  cancelOrder,
  completeDraw,
  courierUpdate,
  labUpdate,
  labUpdates,
  ORDER_GONE,
  ORDER_NOT_DRAWABLE,
  ORDER_NOT_REGISTRABLE,
  orderState,
  type OrderUpdateResult,
  recordOnSiteDraw,
  registerKit,
  rescheduleAppointment,
  resendLabOrder,
  simulate,
} from '../contract';
import { type AppointmentCoordinator, appointmentRefused } from './appointments';
import type { OrderCancellation } from './cancellation';
import { type OrderContext, OrderEnded } from './context';
import type { OutsideFacts } from './facts';
import type { LabOrder } from './lab-order';
import { endedRefusal, onSiteDrawRefusal, registrationRefusal } from './order-lifecycle';
import { eventStatus } from './order-statuses';
import type { SandboxSimulation } from './sandbox';
import type { TransitionRecorder } from './transitions';

/** The parts of the order workflow its messages reach. */
export interface OrderParts {
  order: OrderContext;
  transitions: TransitionRecorder;
  appointments: AppointmentCoordinator;
  cancellation: OrderCancellation;
  /** orderWorkflow (v1) only: the sandbox simulation the `simulate` signal steers. */
  sandbox: SandboxSimulation | null;
  facts: OutsideFacts;
  labOrder: LabOrder;
}

/**
 * The order workflow's signals, updates and query. Each update's validator refuses (nothing is
 * written, nothing enters the history) what the order cannot take now, with the lifecycle's words.
 */
export class OrderMessages {
  constructor(private readonly parts: OrderParts) {}

  install(): void {
    const { order, transitions, appointments, cancellation, sandbox, facts, labOrder } = this.parts;
    setHandler(courierUpdate, (update) => facts.receive({ ...update, source: 'courier' }));
    setHandler(labUpdate, (update) => facts.receive({ ...update, source: 'lab' }));
    setHandler(labUpdates, (updates) => {
      for (const update of updates) facts.receive({ ...update, source: 'lab' });
    });
    if (sandbox) setHandler(simulate, (request) => sandbox.request(request));
    setHandler(appointmentReport, (report) => appointments.receive(report));
    setHandler(
      bookAppointment,
      async (request): Promise<AppointmentUpdateResult> => {
        appointments.bookingInProgress = true;
        try {
          return await this.inAppointmentUpdate(() => appointments.start(request.booking, request.appointmentNotes, null, request.asyncConfirmation ?? false));
        } finally {
          appointments.bookingInProgress = false;
        }
      },
      { validator: (request) => this.assertBookable(request) },
    );
    setHandler(
      rescheduleAppointment,
      (request): Promise<AppointmentUpdateResult> =>
        this.inAppointmentUpdate(() =>
          appointments.command({
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
          appointments.command({ type: 'cancel', cancellationReasonId: request.cancellationReasonId, notes: request.notes, by: 'client' }),
        ),
      { validator: (request) => this.assertOpenAppointment(request.kind, RESCHEDULABLE, 'cancelled') },
    );
    setHandler(completeDraw, (): Promise<AppointmentUpdateResult> => this.inAppointmentUpdate(() => appointments.command({ type: 'draw_completed' })), {
      validator: () => this.assertOpenAppointment('phlebotomy', DRAWABLE, 'marked drawn'),
    });
    setHandler(activateByChanged, ({ activateBy }) => {
      order.activateBy = activateBy;
    });
    setHandler(orderState, () => ({
      seq: order.seq,
      low: order.lowStatus,
      status: eventStatus(order.flow, order.lowStatus),
      stage: order.stage,
      shippingStarted: order.shippingStarted,
      registration: order.registration,
      simulation: sandbox?.summary() ?? null,
      activateBy: order.activateBy,
      appointment: appointments.latest,
      pending: { facts: facts.waiting, appointmentReports: appointments.unsyncedReports().length, transitionInFlight: transitions.inFlight },
      labOrderRefused: labOrder.refused,
      labOrderCancelAck: labOrder.cancelAck,
    }));
    setHandler(resendLabOrder, () => labOrder.resend());
    setHandler(
      cancelOrder,
      async (): Promise<OrderUpdateResult> => {
        await this.inUpdate(() => cancellation.cancel());
        return { seq: order.seq, status: eventStatus(order.flow, order.lowStatus) };
      },
      { validator: () => cancellation.assertCancellable() },
    );
    setHandler(
      recordOnSiteDraw,
      async (): Promise<OrderUpdateResult> => {
        await this.inUpdate(() => transitions.transition('draw_completed', { guard: () => this.assertOnSiteDrawable() }));
        return { seq: order.seq, status: eventStatus(order.flow, order.lowStatus) };
      },
      { validator: () => this.assertOnSiteDrawable() },
    );
    setHandler(
      registerKit,
      async ({ registrationId }): Promise<OrderUpdateResult> => {
        order.registration = 'registering';
        try {
          await this.inUpdate(() => transitions.transition('registered', { registrationId, guard: () => this.assertRegistrable(true) }));
        } catch (error) {
          order.registration = 'awaiting';
          throw error;
        }
        order.registration = 'registered';
        return { seq: order.seq, status: eventStatus(order.flow, order.lowStatus) };
      },
      { validator: (_registration: { registrationId: string }) => this.assertRegistrable(false) },
    );
  }

  private assertOnSiteDrawable(): void {
    const order = this.parts.order;
    const refusal = onSiteDrawRefusal(order.flow, order.lowStatus, order.knowledge());
    if (refusal) throw ApplicationFailure.nonRetryable(refusal, ORDER_NOT_DRAWABLE);
  }

  /** `inTransition`: checked again inside the transition, where this update itself is registering. */
  private assertRegistrable(inTransition: boolean): void {
    const order = this.parts.order;
    const registered = inTransition ? order.registration === 'registered' : order.registration !== 'awaiting';
    const refusal = registrationRefusal(order.flow, order.lowStatus, registered, order.knowledge());
    if (refusal) throw ApplicationFailure.nonRetryable(refusal, ORDER_NOT_REGISTRABLE);
  }

  private assertAppointmentOrder(kind: AppointmentKind): void {
    const order = this.parts.order;
    const refusal = appointmentKindRefusal(order.orderId, order.flow, kind) ?? endedRefusal(order.flow, order.lowStatus, order.knowledge());
    if (refusal) throw appointmentRefused(refusal);
  }

  private assertSlotUsable(slot: AppointmentSlot): void {
    const refusal = slotRefusal(slot, this.parts.appointments.kind(), Date.now());
    if (refusal) throw appointmentRefused(refusal);
  }

  private assertBookable(request: BookAppointmentRequest): void {
    const { order, appointments } = this.parts;
    this.assertAppointmentOrder(request.kind);
    if (appointments.sampleCollected() || appointments.latest?.status === 'completed') throw appointmentRefused('The sample has already been collected.');
    if (appointments.bookingInProgress) throw appointmentRefused('Another booking of this order is in progress.');
    if (appointments.open()) throw appointmentRefused('The order already has an appointment: reschedule or cancel it.');
    if (request.booking.mode === 'book') this.assertSlotUsable(request.booking.slot);
    else if (order.flow !== 'at_home_phlebotomy') throw appointmentRefused('Only at-home phlebotomy appointments can be requested.');
  }

  private assertOpenAppointment(kind: AppointmentKind, allowed: readonly AppointmentStatus[], action: string): void {
    this.assertAppointmentOrder(kind);
    const refusal = openAppointmentRefusal(this.parts.appointments.open()?.status ?? null, allowed, action);
    if (refusal) throw appointmentRefused(refusal);
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

  /** Runs an appointment update's work like `inUpdate`, records what it changed, and answers. */
  private async inAppointmentUpdate(work: () => Promise<AppointmentReport>): Promise<AppointmentUpdateResult> {
    const report = await this.inUpdate(async () => {
      const answer = await work();
      await this.parts.appointments.sync();
      return answer;
    });
    return { appointmentId: report.appointmentId, status: report.status };
  }
}
