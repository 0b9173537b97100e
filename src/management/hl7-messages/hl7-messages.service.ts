import { Injectable, Logger } from '@nestjs/common';
import { PhiCipher } from '../../common/crypto';
import { ApiError, notFound } from '../../common/errors';
import { Hl7InboundService } from '../../hl7/hl7-inbound.service';
import { type Hl7MessageSummary, Hl7Repository } from '../../hl7/hl7.repository';
import { decodeInbound } from '../../hl7/inbound-message';
import { readReportedOrders } from '../../hl7/lab-report';
import { OrdersRepository } from '../../orders/orders.repository';
import { TeamLookup } from '../teams/team-lookup';
import type { Hl7MessageView } from './hl7-messages.dto';

/**
 * A team's HL7 messages on the management API. A message is the team's when its order is, or,
 * held (no order), when it came from a lab account the team owns; anything else answers 404, as
 * an unknown id does. Held messages of platform lab accounts (no team owns them) are for ops
 * (`labflow hl7 held`).
 */
@Injectable()
export class Hl7MessagesService {
  private readonly logger = new Logger('Hl7MessagesService');

  constructor(
    private readonly teams: TeamLookup,
    private readonly repository: Hl7Repository,
    private readonly orders: OrdersRepository,
    private readonly inbound: Hl7InboundService,
    private readonly cipher: PhiCipher,
  ) {}

  async ofOrder(orgId: string, teamId: string, orderId: string) {
    await this.teams.requireInOrg(orgId, teamId);
    await this.requireOrder(teamId, orderId);
    return { hl7_messages: (await this.repository.messagesOfOrder(orderId)).map(toView) };
  }

  async held(orgId: string, teamId: string, limit: number) {
    await this.teams.requireInOrg(orgId, teamId);
    const accounts = await this.repository.labAccountsOfTeam(teamId);
    return { hl7_messages: accounts.length === 0 ? [] : (await this.repository.heldMessagesOf(accounts, limit)).map(toView) };
  }

  /** The envelope, and for a message in the orders it reports by their numbers (read from the sealed body, nothing else of it shown). */
  async show(orgId: string, teamId: string, messageId: string) {
    await this.teams.requireInOrg(orgId, teamId);
    const message = await this.requireMessage(teamId, messageId);
    const { bodyEnc, ...summary } = (await this.repository.message(message.id))!;
    let reported: ReturnType<typeof readReportedOrders> = [];
    if (summary.direction === 'in') {
      try {
        reported = readReportedOrders(decodeInbound(Buffer.from(this.cipher.decrypt(bodyEnc), 'utf8')).message);
      } catch {
        // Stored messages passed these checks when they came in; one that no longer reads has no numbers to show.
      }
    }
    return {
      ...toView(summary),
      reported_orders: reported.map((order) => ({
        placer_order_number: order.placer,
        filler_order_number: order.filler,
        order_control: order.orderControl,
        order_status: order.orderStatus,
        result_status: order.resultStatus,
        observation_count: order.observations.length,
      })),
    };
  }

  async rematch(orgId: string, teamId: string, messageId: string, orderId: string | undefined) {
    await this.teams.requireInOrg(orgId, teamId);
    const message = await this.requireMessage(teamId, messageId);
    if (orderId) await this.requireOrder(teamId, orderId);
    let matched: Hl7MessageSummary | null;
    try {
      matched = await this.inbound.rematch(message.id, orderId);
    } catch (error) {
      // The order's workflow could not be reached (Temporal down): nothing was written, the message stays held.
      this.logger.warn(`hl7 message ${message.id}: rematch not handed over (${(error as Error).message})`);
      throw new ApiError(503, `The order could not be reached now; message ${messageId} is still held. Rematch it again later.`);
    }
    if (!matched) {
      throw new ApiError(
        409,
        message.state !== 'held'
          ? `Message ${messageId} is not held (it is ${message.state}).`
          : orderId
            ? `Order ${orderId} is not an order at the lab account the message came from (${message.labAccountId}).`
            : `Message ${messageId} still matches no order; give order_id.`,
      );
    }
    return toView(matched);
  }

  private async requireOrder(teamId: string, orderId: string): Promise<void> {
    const order = await this.orders.findById(orderId);
    if (!order || order.teamId !== teamId) throw notFound('Order');
  }

  private async requireMessage(teamId: string, messageId: string): Promise<Hl7MessageSummary> {
    const message = await this.repository.summary(messageId);
    if (!message) throw notFound('HL7 message');
    const owner = message.orderId
      ? (await this.orders.findById(message.orderId))?.teamId
      : message.labAccountId
        ? await this.repository.teamOfLabAccount(message.labAccountId)
        : null;
    if (owner !== teamId) throw notFound('HL7 message');
    return message;
  }
}

function toView(message: Hl7MessageSummary): Hl7MessageView {
  return {
    id: message.id,
    direction: message.direction,
    message_type: message.messageType,
    control_id: message.controlId,
    peer_facility: message.peerFacility,
    lab_account_id: message.labAccountId,
    order_id: message.orderId,
    filler_number: message.fillerNumber,
    state: message.state,
    ack_code: message.ackCode,
    ack_text: message.ackText,
    created_at: new Date(message.createdAt).toISOString(),
    updated_at: new Date(message.updatedAt).toISOString(),
  };
}
