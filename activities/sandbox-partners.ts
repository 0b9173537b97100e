import type { SandboxPartnerActivities, SandboxReportAnswer } from '../workflows/contract';
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
}

/** Thin activities over the sandbox partners' stand-ins; each report is one webhook's worth, and a repeat is ignored by the order. */
export function createSandboxPartnerActivities(partners: SandboxPartnerStandIns): SandboxPartnerActivities {
  return {
    sandboxOrderStatus: async ({ orderId }) => ({ low: await partners.orderStatus(orderId) }),
    sandboxCourierReports: ({ orderId, low }) => partners.courierReports(orderId, low),
    sandboxLabReports: ({ orderId, ...event }) => partners.labReports(orderId, event),
    sandboxStaffReportsDraw: ({ orderId }) => partners.staffReportsDraw(orderId),
  };
}
