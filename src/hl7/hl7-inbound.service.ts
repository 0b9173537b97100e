import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../common/crypto';
import { type AckCode, buildAck } from './ack';
import type { Hl7LabInterfaceEntity } from './hl7.entities';
import { hl7Metrics } from './hl7-metrics';
import { HL7_ORDERS, type Hl7LabFact, type Hl7Orders } from './hl7-orders';
import { Hl7Repository, type Hl7MessageSummary } from './hl7.repository';
import { decodeInbound, type DecodedMessage, Hl7Refusal, type InboundHeader } from './inbound-message';
import { readReportedOrders, type ReportedOrder } from './lab-report';

/** The message types labflow takes from a lab: results, and the lab's order status messages. */
export const INBOUND_TYPES = ['ORU^R01', 'ORM^O01', 'ORR^O02', 'OML^O21', 'ORL^O22'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface InboundOutcome {
  ack: string;
  ackCode: AckCode;
  /** The stored message (null: refused, nothing stored). */
  messageId: string | null;
  repeat: boolean;
}

/**
 * Takes one message from a lab: checks it, stores it raw and sealed (committed before the ACK is
 * written), matches it to its order by placer number (ORC-2/OBR-2, labflow's order id) or by the
 * lab's filler number seen before, and hands the lab's fact to the order's workflow. A repeat of a
 * control id (per sending facility) is answered as the first was, without doing anything again.
 * A message that matches no order is held for review and ACKed. Refusals (AR) store nothing.
 */
@Injectable()
export class Hl7InboundService {
  constructor(
    private readonly repository: Hl7Repository,
    private readonly cipher: PhiCipher,
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
    const lab = await this.repository.interfaceOfLabFacility(header.sendingFacility);
    if (!lab)
      return this.answer(header, null, 'AR', `Sending facility ${header.sendingFacility} (MSH-4) is not a lab labflow has an HL7 interface with.`, '204', null);
    if (!INBOUND_TYPES.includes(header.messageType)) {
      return this.answer(header, null, 'AR', `Message type ${header.messageType} is not taken; send ${INBOUND_TYPES.join(', ')}.`, '200', null);
    }
    const reported = readReportedOrders(decoded.message);
    if (reported.length === 0) return this.answer(header, null, 'AR', 'The message reports no order (no ORC or OBR segment).', '100', null);

    const orderId = await this.match(lab, reported);
    const fact = orderId ? factOf(reported) : null;
    const { stored, message } = await this.repository.storeInbound({
      peerFacility: header.sendingFacility,
      controlId: header.controlId,
      messageType: header.messageType,
      labAccountId: lab.labAccountId,
      orderId,
      fillerNumber: reported.find((order) => order.filler)?.filler ?? null,
      state: orderId ? 'received' : 'held',
      ackCode: 'AA',
      ackText: orderId ? 'Message accepted.' : 'Message accepted and held for review: it matches no order.',
      bodyEnc: this.cipher.encrypt(decoded.text),
    });
    if (stored && !orderId) hl7Metrics.held();
    if (message.state === 'received') {
      try {
        await this.deliver(message, fact);
      } catch (error) {
        // Stored, not yet handed over: the lab's resend of the same control id delivers it.
        return this.answer(
          header,
          null,
          'AE',
          `Stored but not yet delivered to the order (${(error as Error).message}); resend the message.`,
          '207',
          message.id,
          !stored,
        );
      }
    }
    return this.answer(header, null, 'AA', message.ackText ?? 'Message accepted.', undefined, message.id, !stored);
  }

  /** Matches a held message again (after an order was fixed or the lab's numbers explained); true when it now has an order. */
  async rematch(messageId: string, orderId?: string): Promise<Hl7MessageSummary | null> {
    const message = await this.repository.message(messageId);
    if (!message || message.direction !== 'in' || message.state !== 'held') return null;
    const lab = message.labAccountId ? await this.repository.interfaceOf(message.labAccountId) : null;
    if (!lab) return null;
    const decoded = decodeInbound(Buffer.from(this.cipher.decrypt(message.bodyEnc), 'utf8'));
    const reported = readReportedOrders(decoded.message);
    const matched = orderId ? ((await this.orders.isOrderAt(orderId, lab.labAccountId)) ? orderId : null) : await this.match(lab, reported);
    if (!matched) return null;
    await this.repository.setInboundState(message.id, 'received', matched);
    const summary = { ...message, state: 'received' as const, orderId: matched };
    await this.deliver(summary, factOf(reported));
    return { ...summary, state: 'processed' };
  }

  private async match(lab: Hl7LabInterfaceEntity, reported: readonly ReportedOrder[]): Promise<string | null> {
    for (const order of reported) {
      if (order.placer && UUID.test(order.placer) && (await this.orders.isOrderAt(order.placer.toLowerCase(), lab.labAccountId)))
        return order.placer.toLowerCase();
    }
    for (const order of reported) {
      const found = order.filler ? await this.repository.orderOfFiller(lab.receivingFacility, order.filler) : null;
      if (found) return found;
    }
    return null;
  }

  private async deliver(message: Pick<Hl7MessageSummary, 'id' | 'orderId'>, fact: LabFactOf | null): Promise<void> {
    if (fact && message.orderId) await this.orders.report(message.orderId, fact.low, fact.detail, fact.correction ? { reportId: message.id } : undefined);
    await this.repository.setInboundState(message.id, 'processed');
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

/** A message's fact for its order; `correction`: it corrects results (OBR-25 or an OBX-11 `C`). */
export interface LabFactOf {
  low: Hl7LabFact;
  detail: string | null;
  correction?: boolean;
}

/**
 * The lab fact a message carries for its order. Results decide first (OBR-25): every report final,
 * corrected or cannot-be-done completes the order (a correction after completion corrects its
 * stored results: OrderHl7Reports), anything else with observations is partial
 * results. Without results, ORC-5 says it (CM completed, A some results). A cancellation by the
 * lab (ORC-5 CA, ORC-1 OC) stops the order. IP, SC and the like: no fact.
 */
export function factOf(reported: readonly ReportedOrder[]): LabFactOf | null {
  const statuses = reported.map((order) => (order.orderStatus ?? '').toUpperCase());
  const controls = reported.map((order) => (order.orderControl ?? '').toUpperCase());
  if (statuses.includes('CA') || controls.includes('OC'))
    return { low: 'do_not_process', detail: reported.flatMap((order) => order.notes).join(' ') || 'Cancelled by the lab.' };
  const withResults = reported.filter((order) => order.observations.length > 0);
  if (withResults.length > 0) {
    const final = withResults.every((order) => ['F', 'C', 'X'].includes((order.resultStatus ?? '').toUpperCase()));
    const correction = withResults.some(
      (order) => (order.resultStatus ?? '').toUpperCase() === 'C' || order.observations.some((observation) => observation.status === 'C'),
    );
    return { low: final ? 'completed' : 'partial_results', detail: null, correction };
  }
  if (statuses.includes('CM') && !statuses.some((status) => status === 'IP' || status === 'A')) return { low: 'completed', detail: null };
  if (statuses.includes('A')) return { low: 'partial_results', detail: null };
  return null;
}
