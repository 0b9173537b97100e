import { ApplicationFailure } from '@temporalio/workflow';
import { ORDER_NOT_CANCELLABLE } from '../contract';
import { type AppointmentCoordinator, ORDER_CANCELLED_REASON } from './appointments';
import type { OrderContext } from './context';
import { cancelRefusal } from './order-lifecycle';
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
}
