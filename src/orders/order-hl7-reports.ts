import { Injectable } from '@nestjs/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Hl7LabFact, Hl7Orders } from '../hl7/hl7-orders';
import { labUpdate, resendLabOrder } from '../../workflows/contract';
import { OrderWorkflows } from './order-workflows';
import { OrdersRepository } from './orders.repository';

/**
 * Orders as the HL7 listener (src/hl7) reaches them: whether a placer number is an order of the
 * lab account, and the lab's facts signalled to the order's workflow as partner lab webhooks are
 * (PartnerWebhooksService.lab). Also the resend ops ask for after a lab refused an order message.
 */
@Injectable()
export class OrderHl7Reports implements Hl7Orders {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly workflows: OrderWorkflows,
  ) {}

  async isOrderAt(orderId: string, labAccountId: string): Promise<boolean> {
    const order = await this.orders.findById(orderId);
    return order !== null && order.labAccountId === labAccountId;
  }

  async report(orderId: string, fact: Hl7LabFact, statusDetail: string | null): Promise<'accepted' | 'ignored'> {
    const order = await this.orders.findById(orderId);
    if (!order) return 'ignored';
    await this.workflows.ensureStarted(order);
    return this.signalUnlessClosed(() => this.workflows.handle(order.id).signal(labUpdate, { low: fact, statusDetail }));
  }

  /** Signals the order's workflow to send its order message again; `ignored`: the workflow has closed. */
  async resend(orderId: string): Promise<'accepted' | 'ignored' | 'not_found'> {
    const order = await this.orders.findById(orderId);
    if (!order) return 'not_found';
    return this.signalUnlessClosed(() => this.workflows.handle(order.id).signal(resendLabOrder));
  }

  private async signalUnlessClosed(signal: () => Promise<void>): Promise<'accepted' | 'ignored'> {
    try {
      await signal();
      return 'accepted';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'ignored';
      throw error;
    }
  }
}
