import { Injectable } from '@nestjs/common';
import type { PartnerWebhookCall } from '../adapters/sandbox-callbacks/partner-webhook-client';
import { ApiError } from '../common/errors';
import type { SandboxPartnerStandIns } from '../../activities/sandbox-partners';
import { recordOnSiteDraw, type ResultInterpretation, type SandboxReportAnswer, type SimulatedResultType } from '../../workflows/contract';
import type { OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import { OrderWorkflows } from './order-workflows';
import { OrdersRepository } from './orders.repository';

/** How long a report's activity waits for the order to take it (the workflow looks again later). */
const STATUS_WAIT_MS = 5000;

/** The sandbox courier's and lab's partner name (`/v3/webhooks/courier/sandbox`, `/v3/webhooks/lab/sandbox`). */
const SANDBOX = 'sandbox';

/**
 * The sandbox courier's, lab's and on-site staff's side of `POST /v3/order/{id}/test` (the
 * sandboxPartnersWorkflow's activities): the courier and the lab report through labflow's signed
 * partner webhooks over HTTP, as real ones do (the activities send the calls made here); the
 * on-site draw goes through the order's recordOnSiteDraw update, as
 * `PATCH /v3/order/{id}/draw_completed` does. A report the order's state refuses is `refused`,
 * never an error worth retrying.
 */
@Injectable()
export class OrderSandboxPartners implements SandboxPartnerStandIns {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly workflows: OrderWorkflows,
  ) {}

  async orderStatus(orderId: string): Promise<OrderLowLevelStatus | null> {
    return (await this.orders.findById(orderId))?.lowLevelStatus ?? null;
  }

  async statusAfter(orderId: string, from: OrderLowLevelStatus | null): Promise<OrderLowLevelStatus | null> {
    const deadline = Date.now() + STATUS_WAIT_MS;
    for (;;) {
      const low = await this.orderStatus(orderId);
      if (low !== from || Date.now() >= deadline) return low;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * The courier reports by the kit's tracking number (outbound to the customer, inbound to the
   * lab). A sample that travels without a labflow shipment (an imported kit) is reported by the
   * lab, which sees it arrive, as real labs' receipt events are.
   */
  async courierCall(orderId: string, low: OrderLowLevelStatus): Promise<PartnerWebhookCall | null> {
    const order = await this.orders.findById(orderId);
    if (!order) return null;
    const shipment = order.shipment;
    if (!shipment) return this.labCall(orderId, { low });
    const trackingNumber =
      low.endsWith('_customer') || low === 'out_for_delivery' || low === 'with_customer' ? shipment.outbound_tracking_number : shipment.inbound_tracking_number;
    return { path: `/v3/webhooks/courier/${SANDBOX}`, body: { tracking_number: trackingNumber, status: low } };
  }

  labCall(
    orderId: string,
    event: { low: OrderLowLevelStatus; interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: SimulatedResultType[] },
  ): PartnerWebhookCall {
    const body = {
      order_id: orderId,
      status: event.low,
      ...(event.interpretation !== undefined ? { interpretation: event.interpretation } : {}),
      ...(event.hasMissingResults !== undefined ? { has_missing_results: event.hasMissingResults } : {}),
      ...(event.resultTypes !== undefined ? { result_types: event.resultTypes } : {}),
    };
    return { path: `/v3/webhooks/lab/${SANDBOX}`, body };
  }

  async staffReportsDraw(orderId: string): Promise<SandboxReportAnswer> {
    try {
      await this.workflows.runUpdate(orderId, () => this.workflows.handle(orderId).executeUpdate(recordOnSiteDraw));
      return 'accepted';
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() < 500) return 'refused';
      throw error;
    }
  }
}
