/** A fact the lab reported about an order, as the order workflow takes lab facts. */
export type Hl7LabFact = 'partial_results' | 'completed' | 'do_not_process';

/**
 * What the HL7 listener needs from orders (src/orders implements it: OrderHl7Reports), so that
 * src/hl7 does not reach up into the orders module.
 */
export interface Hl7Orders {
  /** Whether `orderId` is an order placed through the lab account (a placer number names it). */
  isOrderAt(orderId: string, labAccountId: string): Promise<boolean>;
  /**
   * Hands a lab fact to the order's workflow; `ignored`: the workflow has closed. `correction`:
   * the message (`reportId`) corrects results; an order that already completed takes it as a
   * correction of its stored results.
   */
  report(orderId: string, fact: Hl7LabFact, statusDetail: string | null, correction?: { reportId: string }): Promise<'accepted' | 'ignored'>;
}

export const HL7_ORDERS = Symbol('HL7_ORDERS');
