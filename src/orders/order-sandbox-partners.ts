import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors';
import type { SandboxPartnerStandIns } from '../../activities/sandbox-partners';
import { recordOnSiteDraw, type ResultInterpretation, type SandboxReportAnswer, type SimulatedResultType } from '../../workflows/contract';
import type { OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import { OrderWorkflows } from './order-workflows';
import { OrdersRepository } from './orders.repository';
import { PartnerWebhooksService } from './partner-webhooks';

/** How long a report's activity waits for the order to take it (the workflow looks again later). */
const STATUS_WAIT_MS = 5000;

/** The sandbox courier's partner name (its tracking webhook is `/v3/webhooks/courier/sandbox`). */
const SANDBOX = 'sandbox';

/**
 * The sandbox partners' side of `POST /v3/order/{id}/test` (the sandboxPartnersWorkflow's
 * activities): each report goes through the service behind the partner's webhook, as a real
 * courier's or lab's call would (PartnerWebhooksService), and the on-site draw through the order's
 * recordOnSiteDraw update, as `PATCH /v3/order/{id}/draw_completed` does. A report the order's
 * state refuses is `refused`, never an error worth retrying.
 */
@Injectable()
export class OrderSandboxPartners implements SandboxPartnerStandIns {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly webhooks: PartnerWebhooksService,
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
  async courierReports(orderId: string, low: OrderLowLevelStatus): Promise<SandboxReportAnswer> {
    const order = await this.orders.findById(orderId);
    if (!order) return 'refused';
    const shipment = order.shipment;
    if (!shipment) return this.answer(() => this.webhooks.lab(SANDBOX, { order_id: orderId, status: low }));
    const trackingNumber =
      low.endsWith('_customer') || low === 'out_for_delivery' || low === 'with_customer' ? shipment.outbound_tracking_number : shipment.inbound_tracking_number;
    return this.answer(() => this.webhooks.courier(SANDBOX, { tracking_number: trackingNumber, status: low }));
  }

  labReports(
    orderId: string,
    event: { low: OrderLowLevelStatus; interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: SimulatedResultType[] },
  ): Promise<SandboxReportAnswer> {
    return this.answer(() =>
      this.webhooks.lab(SANDBOX, {
        order_id: orderId,
        status: event.low,
        interpretation: event.interpretation,
        has_missing_results: event.hasMissingResults,
        result_types: event.resultTypes,
      }),
    );
  }

  staffReportsDraw(orderId: string): Promise<SandboxReportAnswer> {
    return this.answer(async () => {
      await this.workflows.runUpdate(orderId, () => this.workflows.handle(orderId).executeUpdate(recordOnSiteDraw));
      return { status: 'accepted' as const };
    });
  }

  private async answer(report: () => Promise<{ status: 'accepted' | 'ignored' }>): Promise<SandboxReportAnswer> {
    try {
      return (await report()).status;
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() < 500) return 'refused';
      throw error;
    }
  }
}
