import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../common/crypto';
import { type AckCode, buildAck } from './ack';
import { Hl7InboundDelivery } from './hl7-inbound-delivery';
import { Hl7InboundStore } from './hl7-inbound-store';
import { hl7Metrics } from './hl7-metrics';
import type { Hl7LabInterfaceEntity } from './hl7.entities';
import { HL7_ORDERS, type Hl7Orders } from './hl7-orders';
import { Hl7Repository, type Hl7MessageSummary } from './hl7.repository';
import { decodeInbound, type DecodedMessage, Hl7Refusal, type InboundHeader } from './inbound-message';
import { factOf, matchKeysOf } from './lab-facts';
import { readReportedOrders, readReportedStatuses } from './lab-report';

export { factOf, type LabFactOf } from './lab-facts';

/** The message types labflow takes from a lab: results, and the lab's order status messages. */
export const INBOUND_TYPES = ['ORU^R01', 'ORM^O01', 'ORR^O02', 'OML^O21', 'ORL^O22'];

/** How long a lab's interface (by its facility) is taken from memory before it is read again. */
const LAB_CACHE_MS = 10_000;

export interface InboundOutcome {
  ack: string;
  ackCode: AckCode;
  /** The stored message (null: refused, nothing stored). */
  messageId: string | null;
  repeat: boolean;
}

/**
 * Takes one message from a lab, up to its ACK: checks it (refusals, AR, store nothing), stores it
 * raw and sealed, and ACKs AA once that row has committed; a repeat of a control id (per sending
 * facility) is ACKed again and stores nothing. Matching the message to its order and handing it to
 * the order's workflow come after the ACK (Hl7InboundDelivery), so a lab's throughput is bounded
 * by a commit, not by the order's workflow.
 */
@Injectable()
export class Hl7InboundService {
  private readonly labs = new Map<string, { lab: Hl7LabInterfaceEntity; until: number }>();
  /** False in a listener of worker role `hl7-listener`: a process of role `hl7-handoff` claims what it stores. */
  private handsOver = true;

  constructor(
    private readonly repository: Hl7Repository,
    private readonly cipher: PhiCipher,
    private readonly store: Hl7InboundStore,
    private readonly delivery: Hl7InboundDelivery,
    @Inject(HL7_ORDERS) private readonly orders: Hl7Orders,
  ) {}

  async receive(bytes: Buffer): Promise<InboundOutcome> {
    let decoded: DecodedMessage;
    try {
      decoded = decodeInbound(bytes);
    } catch (error) {
      const refusal = error instanceof Hl7Refusal ? error : new Hl7Refusal('AR', `The message could not be parsed: ${(error as Error).message}`, '100');
      return this.answer(refusal.header, refusal.controlId, refusal.ackCode, refusal.message, refusal.errorCode, null);
    }
    const { header } = decoded;
    const lab = await this.labOfFacility(header.sendingFacility);
    if (!lab)
      return this.answer(header, null, 'AR', `Sending facility ${header.sendingFacility} (MSH-4) is not a lab labflow has an HL7 interface with.`, '204', null);
    if (!INBOUND_TYPES.includes(header.messageType)) {
      return this.answer(header, null, 'AR', `Message type ${header.messageType} is not taken; send ${INBOUND_TYPES.join(', ')}.`, '200', null);
    }
    const reported = readReportedStatuses(decoded.message);
    if (reported.length === 0) return this.answer(header, null, 'AR', 'The message reports no order (no ORC or OBR segment).', '100', null);

    const keys = matchKeysOf(reported);
    const { stored, message } = await this.store.store({
      peerFacility: header.sendingFacility,
      controlId: header.controlId,
      messageType: header.messageType,
      labAccountId: lab.labAccountId,
      fillerNumber: reported.find((order) => order.filler)?.filler ?? null,
      ackText: 'Message accepted.',
      bodyEnc: this.cipher.encrypt(decoded.text),
      matchKeys: keys,
    });
    // Committed: from here the message is labflow's to deliver, and the lab hears so at once.
    if (this.handsOver && message.state === 'received') {
      this.delivery.enqueue([{ id: message.id, labAccountId: lab.labAccountId, peerFacility: header.sendingFacility, keys }]);
    }
    return this.answer(header, null, 'AA', message.ackText ?? 'Message accepted.', undefined, message.id, !stored);
  }

  /** The listener stores and ACKs only; another process (worker role `hl7-handoff`) hands the messages to their orders. */
  handOverElsewhere(): void {
    this.handsOver = false;
  }

  /**
   * Matches a held message again (after an order was fixed or the lab's numbers explained) and
   * hands it to that order at once; null when it is not held or still matches no order. The
   * message stays held unless its order took it: an order that cannot be reached now (Temporal
   * down) leaves it held and throws.
   */
  async rematch(messageId: string, orderId?: string): Promise<Hl7MessageSummary | null> {
    const message = await this.repository.message(messageId);
    if (!message || message.direction !== 'in' || message.state !== 'held') return null;
    const lab = message.labAccountId ? await this.repository.interfaceOf(message.labAccountId) : null;
    if (!lab) return null;
    const decoded = decodeInbound(Buffer.from(this.cipher.decrypt(message.bodyEnc), 'utf8'));
    const reported = readReportedOrders(decoded.message);
    const matched = orderId ? ((await this.orders.isOrderAt(orderId, lab.labAccountId)) ? orderId : null) : await this.match(lab, reported);
    if (!matched) return null;
    const fact = factOf(reported);
    // The order first, then the mark: a mark lost after the signal leaves the message held, and a
    // second rematch signals again, which the order's workflow takes once (by message id).
    if (fact) await this.orders.report(matched, { messageId: message.id, fact: fact.low, statusDetail: fact.detail, correction: fact.correction ?? false });
    if (!(await this.repository.processHeld(message.id, matched))) return null;
    const { bodyEnc: _body, ...summary } = message;
    return { ...summary, state: 'processed', orderId: matched };
  }

  private async match(lab: Hl7LabInterfaceEntity, reported: ReturnType<typeof readReportedOrders>): Promise<string | null> {
    const placers = reported.map((order) => order.placer?.toLowerCase()).filter((placer): placer is string => Boolean(placer && UUID.test(placer)));
    const known = await this.repository.ordersAt(placers, lab.labAccountId);
    const byPlacer = placers.find((placer) => known.has(placer));
    if (byPlacer) return byPlacer;
    const fillers = await this.repository.ordersOfFillers(
      lab.receivingFacility,
      reported.flatMap((order) => (order.filler ? [order.filler] : [])),
    );
    return reported.map((order) => (order.filler ? fillers.get(order.filler) : undefined)).find(Boolean) ?? null;
  }

  /** The lab whose facility sends (MSH-4), from memory for LAB_CACHE_MS: it is read for every message. */
  private async labOfFacility(facility: string): Promise<Hl7LabInterfaceEntity | null> {
    const cached = this.labs.get(facility);
    if (cached && cached.until > Date.now()) return cached.lab;
    const lab = await this.repository.interfaceOfLabFacility(facility);
    if (lab) this.labs.set(facility, { lab, until: Date.now() + LAB_CACHE_MS });
    else this.labs.delete(facility);
    return lab;
  }

  private answer(
    header: InboundHeader | null,
    controlId: string | null,
    ackCode: AckCode,
    text: string,
    errorCode: string | undefined,
    messageId: string | null,
    repeat = false,
  ): InboundOutcome {
    hl7Metrics.message('in', header?.messageType ?? '', ackCode);
    const ack = buildAck({ to: header, controlId, ackCode, text, errorCode, ownControlId: randomUUID().replace(/-/g, '').slice(0, 20), at: new Date() });
    return { ack, ackCode, messageId, repeat };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
