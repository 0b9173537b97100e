/** A fact the lab reported about an order, as the order workflow takes lab facts. */
export type Hl7LabFact = 'partial_results' | 'completed' | 'do_not_process';

/** One stored message's fact for its order. */
export interface Hl7Report {
  /** The stored message (hl7_messages.id): the order's workflow takes each message once. */
  messageId: string;
  fact: Hl7LabFact;
  statusDetail: string | null;
  /** The message corrects results (OBR-25 or an OBX-11 `C`). */
  correction: boolean;
}

/**
 * What the HL7 listener needs from orders (src/orders implements it: OrderHl7Reports), so that
 * src/hl7 does not reach up into the orders module.
 */
export interface Hl7Orders {
  /** Whether `orderId` is an order placed through the lab account (a placer number names it). */
  isOrderAt(orderId: string, labAccountId: string): Promise<boolean>;
  /**
   * Hands a message's lab fact to the order's workflow; `ignored`: the workflow has closed. A
   * correction for an order that already completed corrects its stored results.
   */
  report(orderId: string, report: Hl7Report): Promise<'accepted' | 'ignored'>;
  /**
   * `report` for each of an order's messages in turn, the order read once: the ids handed over,
   * up to the first that failed (`error`: why; the rest wait for a sweep, in order).
   */
  reportEach(orderId: string, reports: readonly Hl7Report[]): Promise<{ handed: string[]; error?: unknown }>;
}

export const HL7_ORDERS = Symbol('HL7_ORDERS');
