import { upsertSearchAttributes } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES } from '../contract';
import { type OrderContext, orderActivities, OrderEnded } from './context';
import { assertTransition, canTransition } from './order-lifecycle';
import { eventStatus, type LowStatus } from './order-statuses';

export interface TransitionOptions {
  statusDetail?: string | null;
  /** Apply the pending registration with this id (registrable kits). */
  registrationId?: string;
  /** Checked again just before recording (an update's validator, for what changed meanwhile). */
  guard?: () => void;
  /** Record nothing (answer false) when the lifecycle does not allow the move now. */
  onlyIfAllowed?: boolean;
}

/**
 * Records the order's transitions, one after the other: the main flow and the update handlers
 * share one sequence of events. Each transition is checked against the lifecycle table, written
 * by the recordOrderTransition activity (order event, order status and webhook event in one
 * transaction) and mirrored in the order-status search attribute.
 */
export class TransitionRecorder {
  /** The transitions queued so far (settles when the last one has). */
  private queue: Promise<unknown> = Promise.resolve();
  /** Transitions being recorded right now (the `pending` part of the orderState query). */
  private recording = 0;

  constructor(private readonly order: OrderContext) {}

  /** Records `low` as the order's next event, after every transition queued before it. */
  transition(low: LowStatus, options: TransitionOptions = {}): Promise<boolean> {
    return this.enqueue(() => this.recordNow(low, options));
  }

  /** Runs `work` after every transition queued before it; what follows waits for `work`. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Whether a transition is being recorded now. */
  get inFlight(): boolean {
    return this.recording > 0;
  }

  /** Records `low` at once: only from work already running in the queue (`enqueue`). */
  async recordNow(low: LowStatus, options: TransitionOptions): Promise<boolean> {
    const order = this.order;
    options.guard?.();
    if (!canTransition(order.flow, order.lowStatus, low)) {
      if (order.ended()) throw new OrderEnded();
      if (options.onlyIfAllowed) return false;
      assertTransition(order.flow, order.lowStatus, low);
    }
    const seq = order.seq + 1;
    this.recording += 1;
    try {
      await order.runActivity(() =>
        orderActivities.recordOrderTransition({
          orderId: order.orderId,
          seq,
          status: eventStatus(order.flow, low),
          statusDetail: options.statusDetail ?? null,
          emit: true,
          registrationId: options.registrationId,
        }),
      );
    } finally {
      this.recording -= 1;
    }
    order.seq = seq;
    order.lowStatus = low;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.orderStatus, value: low }]);
    return true;
  }
}
