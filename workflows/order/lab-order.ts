import { condition, patched } from '@temporalio/workflow';
import type { LabOrderAck } from '../contract';
import { type OrderContext, orderActivities, OrderEnded } from './context';
import { LAB_ORDER_CANCEL } from './patches';

/**
 * The order's exchange with its lab: the order message (the requisition), a refusal waiting for
 * ops' resend, and the cancellation. The one owner of what the lab answered; the orderState query
 * and the resendLabOrder signal reach it through the message handlers.
 */
export class LabOrder {
  /** The lab's refusal (AE/AR) of the order message the run waits to resend; null: none. */
  refused: LabOrderAck | null = null;
  /** The lab reached by message took the order message (ACK AA/CA): a cancellation is sent to it too. */
  accepted: LabOrderAck | null = null;
  /** How that lab answered the order's cancellation (ORC CA); null: not sent. */
  cancelAck: LabOrderAck | null = null;
  /** Resends ops asked for (the resendLabOrder signal). */
  private resends = 0;

  constructor(private readonly order: OrderContext) {}

  /** The resendLabOrder signal: ops fixed what the lab refused. */
  resend(): void {
    this.resends += 1;
  }

  /**
   * Sends the order message (the createRequisition activity) until the lab takes it. A lab that
   * answers by ACK (HL7) and refuses (AE/AR) does not fail the order: the run waits, its state
   * showing the lab's answer, until ops signal resendLabOrder. `mayWait` is asked on a refusal
   * only (orderWorkflow asks its LAB_ORDER_RESEND patch; without it the order moves on).
   */
  async send(mayWait: () => boolean): Promise<void> {
    const order = this.order;
    for (;;) {
      const { labAck } = await order.runActivity(() => orderActivities.createRequisition({ orderId: order.orderId }));
      if (!labAck || labAck.code === 'AA' || labAck.code === 'CA') {
        this.accepted = labAck ?? null;
        return;
      }
      if (!mayWait()) return;
      order.stage = 'awaiting_lab_order_resend';
      this.refused = labAck;
      const resends = this.resends;
      await condition(() => this.resends !== resends || order.ended());
      order.checkActive();
      this.refused = null;
      order.stage = 'creating_requisition';
    }
  }

  /**
   * Once the order is cancelled, a lab that took its order message hears of it (ORC CA): an
   * activity of the run's own (the client's cancellation does not wait for the lab) that retries
   * until the lab answers, and records its ACK. Any answer, AE/AR too, leaves the order cancelled.
   */
  async cancel(): Promise<void> {
    const order = this.order;
    if (order.lowStatus !== 'cancelled' || !this.accepted || !patched(LAB_ORDER_CANCEL)) return;
    order.stage = 'cancelling_at_lab';
    try {
      const { labAck } = await order.runActivity(() => orderActivities.cancelLabOrder({ orderId: order.orderId }));
      this.cancelAck = labAck ?? null;
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    order.stage = 'finished';
  }
}
