import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import { ApiError, notFound, RequestValidationError } from '../common/errors';
import { zodIssues } from '../common/validation';
import { Hl7InboundService } from '../hl7/hl7-inbound.service';
import { type Hl7MessageSummary, Hl7Repository } from '../hl7/hl7.repository';
import { hl7InterfaceSettings } from '../hl7/hl7-settings';
import { OrderHl7Reports } from '../orders/order-hl7-reports';
import { OrdersRepository } from '../orders/orders.repository';

/** One message with its decrypted body, as `labflow hl7 show` prints it. */
export interface Hl7MessageWithBody {
  message: Hl7MessageSummary;
  body: string;
}

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
    private readonly orderRows: OrdersRepository,
    private readonly cipher: PhiCipher,
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

  /**
   * The message with its decrypted body (it carries PHI). The audit row is committed first, under
   * the team that owns it (its order's, else its lab account's), so no body is shown unaudited.
   */
  async show(messageId: string, actor: string): Promise<Hl7MessageWithBody> {
    const message = await this.repository.message(messageId);
    if (!message) throw notFound('HL7 message');
    const order = message.orderId ? await this.orderRows.findById(message.orderId) : null;
    const teamId = order?.teamId ?? (message.labAccountId ? await this.repository.teamOfLabAccount(message.labAccountId) : null);
    await this.repository.recordOperatorRead({ teamId, actor }, message.id);
    const { bodyEnc, ...summary } = message;
    return { message: summary, body: this.cipher.decrypt(bodyEnc) };
  }

  held(limit: number): Promise<Hl7MessageSummary[]> {
    return this.repository.heldMessages(limit);
  }

  async rematch(messageId: string, orderId?: string): Promise<Hl7MessageSummary> {
    const matched = await this.inbound.rematch(messageId, orderId);
    if (!matched)
      throw new ApiError(
        409,
        `Message ${messageId} is not a held message, or it still matches no order${orderId ? ` (order ${orderId} is not an order at its lab)` : ''}.`,
      );
    return matched;
  }

  async resend(orderId: string): Promise<{ order_id: string; status: 'accepted' | 'ignored' }> {
    const status = await this.orders.resend(orderId);
    if (status === 'not_found') throw notFound('Order');
    return { order_id: orderId, status };
  }
}
