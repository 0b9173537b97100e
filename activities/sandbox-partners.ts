import { Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import type { PartnerWebhookAnswer, PartnerWebhookCall } from '../src/adapters/sandbox-callbacks/partner-webhook-client';
import type {
  AppointmentStatus,
  ResultInterpretation,
  SandboxAppointmentUntil,
  SandboxPartnerActivities,
  SandboxReportAnswer,
  SandboxReportOutcome,
  SimulatedResultType,
} from '../workflows/contract';
import type { OrderLowLevelStatus } from '../workflows/order/order-statuses';

/** What the sandbox courier, lab and on-site staff need from src/ (OrderSandboxPartners fits). */
export interface SandboxPartnerStandIns {
  orderStatus(orderId: string): Promise<OrderLowLevelStatus | null>;
  /** The courier's tracking webhook for this status (by the kit's tracking number); null: nothing to track. */
  courierCall(orderId: string, low: OrderLowLevelStatus): Promise<PartnerWebhookCall | null>;
  labCall(
    orderId: string,
    event: { low: OrderLowLevelStatus; interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: SimulatedResultType[] },
  ): PartnerWebhookCall;
  staffReportsDraw(orderId: string): Promise<SandboxReportAnswer>;
  /** The order's status once it is no longer `from` (the report was taken), or as it is after a few seconds. */
  statusAfter(orderId: string, from: OrderLowLevelStatus | null): Promise<OrderLowLevelStatus | null>;
}

/** The order's latest appointment as the sandbox provider sees it. */
export interface SandboxAppointmentSeen {
  appointmentId: string;
  status: AppointmentStatus;
}

/** The appointment provider's next move for an order (SandboxAppointmentPartner fits). */
export type SandboxProviderMove =
  | { kind: 'book' }
  | { kind: 'report'; call: PartnerWebhookCall; appointment: SandboxAppointmentSeen }
  | { kind: 'none'; appointment: AppointmentStatus | null; walksIn: boolean };

/** What the sandbox appointment provider (and the patient who books) need from src/. */
export interface SandboxProviderStandIn {
  nextMove(orderId: string, until: SandboxAppointmentUntil): Promise<SandboxProviderMove>;
  /** The patient books the first free slot, through the order's booking update as the booking route does. */
  book(orderId: string): Promise<SandboxReportAnswer>;
  /** The latest appointment's status once it is no longer `from` (the report was taken), or after a few seconds. */
  appointmentAfter(orderId: string, from: SandboxAppointmentSeen | null): Promise<AppointmentStatus | null>;
}

/** A signed POST to labflow's partner webhooks (PartnerWebhookClient fits). */
export interface PartnerWebhookSender {
  post(call: PartnerWebhookCall): Promise<PartnerWebhookAnswer>;
}

/**
 * The id of the report an activity sends: stable across the activity's retries (Temporal keeps
 * its workflow, run and activity id), different for each report of an order. Outside an activity
 * (a direct call) the report goes without one.
 */
function reportEventId(orderId: string): string | undefined {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined;
  }
  const run = info.workflowExecution ? `${info.workflowExecution.workflowId}:${info.workflowExecution.runId}` : 'standalone';
  return `sandbox-${createHash('sha256').update(`${orderId}:${run}:${info.activityId}`).digest('hex').slice(0, 32)}`;
}

/**
 * Thin activities over the sandbox partners: the courier, the lab and the appointment provider
 * report by calling labflow's signed partner webhooks over HTTP, as real ones do. Each report
 * carries an event id derived from the order and the activity (reportEventId), so when labflow
 * took a report but its answer was lost, the retried activity resends the same id and labflow
 * answers it without applying it twice. A network error or a 5xx fails the activity, which is
 * retried.
 */
export function createSandboxPartnerActivities(
  partners: SandboxPartnerStandIns,
  provider: SandboxProviderStandIn,
  partnerWebhooks: PartnerWebhookSender,
): SandboxPartnerActivities {
  const webhooks = { post: (orderId: string, call: PartnerWebhookCall) => partnerWebhooks.post({ ...call, eventId: reportEventId(orderId) }) };
  /** A report, then where the order stands once it took it: the partners' next step needs both. */
  const reported = async (orderId: string, report: () => Promise<SandboxReportAnswer>): Promise<SandboxReportOutcome> => {
    const from = await partners.orderStatus(orderId);
    const answer = await report();
    return { answer, low: answer === 'accepted' ? await partners.statusAfter(orderId, from) : await partners.orderStatus(orderId) };
  };
  return {
    sandboxOrderStatus: async ({ orderId }) => ({ low: await partners.orderStatus(orderId) }),
    sandboxCourierReports: ({ orderId, low }) =>
      reported(orderId, async () => {
        const call = await partners.courierCall(orderId, low);
        return call ? webhooks.post(orderId, call) : 'refused';
      }),
    sandboxLabReports: ({ orderId, ...event }) => reported(orderId, () => webhooks.post(orderId, partners.labCall(orderId, event))),
    sandboxStaffReportsDraw: ({ orderId }) => reported(orderId, () => partners.staffReportsDraw(orderId)),
    sandboxProviderStep: async ({ orderId, until }) => {
      const move = await provider.nextMove(orderId, until);
      if (move.kind === 'none') return { answer: 'ignored', low: await partners.orderStatus(orderId), appointment: move.appointment, walksIn: move.walksIn };
      const answer = move.kind === 'book' ? await provider.book(orderId) : await webhooks.post(orderId, move.call);
      const from = move.kind === 'report' && answer === 'accepted' ? move.appointment : null;
      const appointment = await provider.appointmentAfter(orderId, from);
      return { answer, low: await partners.orderStatus(orderId), appointment, walksIn: false };
    },
  };
}
