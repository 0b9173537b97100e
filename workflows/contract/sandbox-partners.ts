/**
 * The sandbox partners (workflows/sandbox-partners/, activities/sandbox-partners.ts): what
 * `POST /v3/order/{id}/test` asks them to play for an order of orderWorkflowV2.
 */
import { defineSignal } from '@temporalio/workflow';
import type { OrderFlow, OrderLowLevelStatus } from '../order/order-statuses';
import type { AppointmentStatus } from './appointments';
import type { ResultInterpretation, SimulatedResultType } from './orders';

/** What the partners play: the success path, or as far as `finalStatus`; one step per `delayMs`. */
export interface SandboxPlay {
  finalStatus: OrderLowLevelStatus | null;
  delayMs: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
  resultTypes?: SimulatedResultType[];
}

export interface SandboxPartnersInput {
  orderId: string;
  flow: OrderFlow;
  play: SandboxPlay;
}

/** A later `POST /v3/order/{id}/test`: the partners play this instead (signalWithStart). */
export const sandboxPlay = defineSignal<[SandboxPlay]>('sandboxPlay');

export const sandboxPartnersWorkflowId = (orderId: string) => `sandbox-partners:${orderId}`;

/** How a partner's report was taken: `accepted` (signalled to the order), `ignored` (the order's workflow closed), `refused`. */
export type SandboxReportAnswer = 'accepted' | 'ignored' | 'refused';

/** A report's answer, and where the order stands once it took the report (or a few seconds later); null: gone. */
export interface SandboxReportOutcome {
  answer: SandboxReportAnswer;
  low: OrderLowLevelStatus | null;
}

/** How far the sandbox appointment provider takes an appointment: confirmed only, or through the draw. */
export type SandboxAppointmentUntil = 'confirmed' | 'completed';

/**
 * One step of the sandbox appointment provider (or, to book, the patient's): the order's latest
 * appointment afterwards (null: none open or booked), and `walksIn` for a walk-in order whose lab
 * labflow does not schedule service-center visits for (the patient walks in; the lab reports).
 */
export interface SandboxProviderOutcome extends SandboxReportOutcome {
  appointment: AppointmentStatus | null;
  walksIn: boolean;
}

/** What the sandbox partners do, each through the path its real counterpart uses. */
export interface SandboxPartnerActivities {
  /** Where the order stands, as the partners see it (its latest recorded status); null: the order is gone. */
  sandboxOrderStatus(input: { orderId: string }): Promise<{ low: OrderLowLevelStatus | null }>;
  /** The sandbox courier's tracking webhook (the sample's way in, when no kit shipped: the lab's receipt). */
  sandboxCourierReports(input: { orderId: string; low: OrderLowLevelStatus }): Promise<SandboxReportOutcome>;
  /** The sandbox lab's event webhook. */
  sandboxLabReports(input: {
    orderId: string;
    low: OrderLowLevelStatus;
    interpretation?: ResultInterpretation;
    hasMissingResults?: boolean;
    resultTypes?: SimulatedResultType[];
  }): Promise<SandboxReportOutcome>;
  /**
   * Appointment flows: with no open appointment the patient books an early free slot (the booking
   * route's update); otherwise the sandbox provider reports the appointment's next status toward
   * `until` through its callback (`/v3/webhooks/appointments/<provider>`). Nothing once it is there.
   */
  sandboxProviderStep(input: { orderId: string; until: SandboxAppointmentUntil }): Promise<SandboxProviderOutcome>;
  /** The team's staff drew an on-site sample (what `PATCH /v3/order/{id}/draw_completed` does). */
  sandboxStaffReportsDraw(input: { orderId: string }): Promise<SandboxReportOutcome>;
}
