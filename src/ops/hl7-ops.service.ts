import { Injectable } from '@nestjs/common';
import { ApiError, notFound, RequestValidationError } from '../common/errors';
import { zodIssues } from '../common/validation';
import { Hl7InboundService } from '../hl7/hl7-inbound.service';
import { type Hl7MessageSummary, Hl7Repository } from '../hl7/hl7.repository';
import { hl7InterfaceSettings } from '../hl7/hl7-settings';
import { OrderHl7Reports } from '../orders/order-hl7-reports';

/**
 * What ops do with HL7 labs (`labflow hl7 …`): make a lab account an HL7 lab, list the messages
 * of an order and the ones held for review, match a held message again, and resend an order
 * message the lab refused. Bodies stay sealed: listings show the message's envelope only.
 */
@Injectable()
export class Hl7OpsService {
  constructor(
    private readonly repository: Hl7Repository,
    private readonly inbound: Hl7InboundService,
    private readonly orders: OrderHl7Reports,
  ) {}

  async configure(labAccountId: string, input: unknown) {
    const parsed = hl7InterfaceSettings.safeParse(input);
    if (!parsed.success) throw new RequestValidationError(zodIssues(parsed.error, input, ['settings']));
    if (!(await this.repository.labAccountExists(labAccountId))) throw notFound('Lab account');
    const existing = await this.repository.interfaceOfLabFacility(parsed.data.receivingFacility);
    if (existing && existing.labAccountId !== labAccountId) {
      throw new ApiError(409, `Lab facility ${parsed.data.receivingFacility} is already the HL7 interface of lab account ${existing.labAccountId}.`);
    }
    return this.repository.saveInterface(labAccountId, parsed.data);
  }

  messagesOf(orderId: string): Promise<Hl7MessageSummary[]> {
    return this.repository.messagesOfOrder(orderId);
  }

  held(limit: number): Promise<Hl7MessageSummary[]> {
    return this.repository.heldMessages(limit);
  }

  async rematch(messageId: string, orderId?: string): Promise<Hl7MessageSummary> {
    const matched = await this.inbound.rematch(messageId, orderId);
    if (!matched) throw new ApiError(409, `Message ${messageId} is not a held message, or it still matches no order${orderId ? ` (order ${orderId} is not an order at its lab)` : ''}.`);
    return matched;
  }

  async resend(orderId: string): Promise<{ order_id: string; status: 'accepted' | 'ignored' }> {
    const status = await this.orders.resend(orderId);
    if (status === 'not_found') throw notFound('Order');
    return { order_id: orderId, status };
  }
}
