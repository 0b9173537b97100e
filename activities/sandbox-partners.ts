import type { SandboxPartnerActivities, SandboxReportAnswer, SandboxReportOutcome } from '../workflows/contract';
import type { ResultInterpretation, SimulatedResultType } from '../workflows/contract';
import type { OrderLowLevelStatus } from '../workflows/order/order-statuses';

/** What the sandbox partners' activities need from src/ (OrderSandboxPartners fits). */
export interface SandboxPartnerStandIns {
  orderStatus(orderId: string): Promise<OrderLowLevelStatus | null>;
  courierReports(orderId: string, low: OrderLowLevelStatus): Promise<SandboxReportAnswer>;
  labReports(
    orderId: string,
    event: { low: OrderLowLevelStatus; interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: SimulatedResultType[] },
  ): Promise<SandboxReportAnswer>;
  staffReportsDraw(orderId: string): Promise<SandboxReportAnswer>;
  /** The order's status once it is no longer `from` (the report was taken), or as it is after a few seconds. */
  statusAfter(orderId: string, from: OrderLowLevelStatus | null): Promise<OrderLowLevelStatus | null>;
}

/** Thin activities over the sandbox partners' stand-ins; each report is one webhook's worth, and a repeat is ignored by the order. */
export function createSandboxPartnerActivities(partners: SandboxPartnerStandIns): SandboxPartnerActivities {
  /** A report, then where the order stands once it took it: the partners' next step needs both. */
  const reported = async (orderId: string, report: () => Promise<SandboxReportAnswer>): Promise<SandboxReportOutcome> => {
    const from = await partners.orderStatus(orderId);
    const answer = await report();
    return { answer, low: answer === 'accepted' ? await partners.statusAfter(orderId, from) : await partners.orderStatus(orderId) };
  };
  return {
    sandboxOrderStatus: async ({ orderId }) => ({ low: await partners.orderStatus(orderId) }),
    sandboxCourierReports: ({ orderId, low }) => reported(orderId, () => partners.courierReports(orderId, low)),
    sandboxLabReports: ({ orderId, ...event }) => reported(orderId, () => partners.labReports(orderId, event)),
    sandboxStaffReportsDraw: ({ orderId }) => reported(orderId, () => partners.staffReportsDraw(orderId)),
  };
}
