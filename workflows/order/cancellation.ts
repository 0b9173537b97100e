import { ApplicationFailure, patched } from '@temporalio/workflow';
import { ORDER_NOT_CANCELLABLE } from '../contract';
import { type AppointmentCoordinator, ORDER_CANCELLED_REASON } from './appointments';
import { type OrderContext, orderActivities, OrderEnded } from './context';
import { cancelRefusal } from './order-lifecycle';
import { LAB_ORDER_CANCEL } from './patches';
import type { TransitionRecorder } from './transitions';

/** Cancelling the order, by the client (the cancelOrder update) or by a sandbox simulation. */
export class OrderCancellation {
  constructor(
    private readonly order: OrderContext,
    private readonly transitions: TransitionRecorder,
    private readonly appointments: AppointmentCoordinator,
  ) {}

  /** Refuses (nothing written) unless the lifecycle lets the order be cancelled now. */
  assertCancellable(): void {
    const refusal = cancelRefusal(this.order.flow, this.order.lowStatus, this.order.knowledge());
    if (refusal) throw ApplicationFailure.nonRetryable(refusal, ORDER_NOT_CANCELLABLE);
  }

  /** Cancels the order; cancelling an at-home order cancels its appointment (Junction), a walk-in's stays. */
  async cancel(): Promise<void> {
    this.order.cancelling = true;
    try {
      if (this.order.flow === 'at_home_phlebotomy' && this.appointments.open()) {
        await this.appointments.command({ type: 'cancel', cancellationReasonId: ORDER_CANCELLED_REASON, notes: 'The order was cancelled.', by: 'order' });
        await this.appointments.sync();
      }
      await this.transitions.transition('cancelled', { guard: () => this.assertCancellable() });
    } finally {
      this.order.cancelling = false;
    }
  }

  /**
   * Once the order is cancelled, a lab that took its order message hears of it (ORC CA): an
   * activity of the run's own (the client's cancellation does not wait for the lab) that retries
   * until the lab answers, and records its ACK. Any answer, AE/AR too, leaves the order cancelled.
   */
  async tellLab(): Promise<void> {
    const order = this.order;
    if (order.lowStatus !== 'cancelled' || !order.labOrderAccepted || !patched(LAB_ORDER_CANCEL)) return;
    order.stage = 'cancelling_at_lab';
    try {
      const { labAck } = await order.runActivity(() => orderActivities.cancelLabOrder({ orderId: order.orderId }));
      order.labOrderCancelAck = labAck ?? null;
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    order.stage = 'finished';
  }
}
