import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type AppointmentStatus,
  type SandboxAppointmentUntil,
  type SandboxPartnerActivities,
  type SandboxPartnersInput,
  type SandboxPlay,
  sandboxPlay,
} from '../contract';
import { canTransition, isTerminal, simulatedNext, simulationCanReach, SUCCESS_PATH } from '../order/order-lifecycle';
import { isAppointmentFlow, type LowStatus, type OrderFlow, sourceOf } from '../order/order-statuses';

const partners = proxyActivities<SandboxPartnerActivities>({
  // Short: a report lost with a stopped worker is tried again soon (a report waits ~5 s at most).
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 20 },
});

/** Longest pause between two looks while the order waits on something no partner does (a registration). */
const MAX_IDLE_MS = 10_000;

/** An appointment order's statuses while its sample is still to be collected. */
const COLLECTING: readonly LowStatus[] = [
  'requisition_created',
  'requisition_bypassed',
  'appointment_pending',
  'appointment_scheduled',
  'appointment_cancelled',
];

/**
 * `sandbox-partners:<order_id>`: the sandbox's courier, lab, appointment provider and on-site
 * staff playing one order's lifecycle for `POST /v3/order/{id}/test`, beside the order's workflow
 * and outside it. Each step, one `delayMs` after the order took the previous one, is a report
 * through the path the real partner uses (courier tracking webhook, lab event webhook, the
 * appointment provider's callback, the on-site draw), which the order's workflow takes as it would
 * a real partner's. What labflow does itself (requisition, shipment) and what the client does
 * (registration) the partners wait for; an appointment order with no open appointment is booked
 * the way its patient would, at an early free slot. Ends once the order reached the play's final
 * status, ended, or can no longer reach it; a new /test redirects the play.
 */
export async function sandboxPartnersWorkflow(input: SandboxPartnersInput): Promise<void> {
  let play = input.play;
  let plays = 0;
  setHandler(sandboxPlay, (next) => {
    play = next;
    plays += 1;
  });
  const { orderId, flow } = input;
  let idle = 0;
  /** The status the order was in at the last report: while it still is, the report is on its way. */
  let reportedAt: string | null = null;
  const provider = new ProviderKnowledge(flow);
  let { low } = await partners.sandboxOrderStatus({ orderId });
  for (;;) {
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof sandboxPartnersWorkflow>({ ...input, play });
    const target = play.finalStatus ?? SUCCESS_PATH[flow][SUCCESS_PATH[flow].length - 1];
    if (low === null || isTerminal(low) || low === target || !simulationCanReach(flow, low, target)) return;
    const settling = reportedAt === low && idle < 3;
    const appointmentTurn = !settling && provider.hasTurn(low, target);
    const next = settling || appointmentTurn ? null : (simulatedNext(flow, low, play.finalStatus) ?? provider.walkInLabNext(low, play));
    const draw =
      !settling &&
      !next &&
      flow === 'on_site_collection' &&
      (low === 'requisition_created' || low === 'requisition_bypassed') &&
      simulationCanReach(flow, 'draw_completed', target);
    const seen = plays;
    const pause = appointmentTurn ? provider.pause(play.delayMs) : next || draw ? play.delayMs : Math.min(play.delayMs * (idle + 1), MAX_IDLE_MS);
    if (await condition(() => plays !== seen, Math.max(1, pause))) {
      idle = 0;
      reportedAt = null;
      ({ low } = await partners.sandboxOrderStatus({ orderId }));
      continue;
    }
    if (appointmentTurn) {
      const outcome = await partners.sandboxProviderStep({ orderId, until: untilFor(target) });
      provider.learn(outcome);
      low = outcome.low;
      idle = 0;
      continue;
    }
    if (next || draw) reportedAt = low;
    // Each report answers with where the order stands once it took it.
    if (next && sourceOf(next) === 'courier') ({ low } = await partners.sandboxCourierReports({ orderId, low: next }));
    else if (next) {
      ({ low } = await partners.sandboxLabReports({
        orderId,
        low: next,
        interpretation: play.interpretation,
        hasMissingResults: play.hasMissingResults,
        resultTypes: play.resultTypes,
      }));
    } else if (draw) ({ low } = await partners.sandboxStaffReportsDraw({ orderId }));
    else ({ low } = await partners.sandboxOrderStatus({ orderId }));
    idle = next || draw ? 0 : idle + 1;
  }
}

/** How far the provider takes the appointment: a play that stops at appointment_scheduled stops at confirmed. */
function untilFor(target: LowStatus): SandboxAppointmentUntil {
  return target === 'appointment_scheduled' ? 'confirmed' : 'completed';
}

/**
 * What the partners know of an appointment order's appointment, from the provider's last step:
 * whether the provider (or the patient booking) has the next turn, and for a walk-in patient who
 * comes without an appointment, what the lab reports first.
 */
class ProviderKnowledge {
  private appointment: AppointmentStatus | null | undefined = undefined;
  private walksIn = false;
  private refusals = 0;

  constructor(private readonly flow: OrderFlow) {}

  learn(outcome: { answer: string; appointment: AppointmentStatus | null; walksIn: boolean }): void {
    this.appointment = outcome.appointment;
    this.walksIn = outcome.walksIn;
    this.refusals = outcome.answer === 'refused' ? this.refusals + 1 : 0;
  }

  /** The sample is still to be collected and the appointment has not got as far as the play asks. */
  hasTurn(low: LowStatus, target: LowStatus): boolean {
    if (!isAppointmentFlow(this.flow) || !COLLECTING.includes(low) || target === 'appointment_pending' || this.walksIn) return false;
    const until = untilFor(target);
    return !(this.appointment === 'completed' || (until === 'confirmed' && this.appointment === 'confirmed'));
  }

  /** A refused booking or report is tried again after a pause that grows with each refusal. */
  pause(delayMs: number): number {
    return delayMs * Math.min(2 ** this.refusals, 8);
  }

  /** A walk-in patient without an appointment: the lab reports the play's final status, or partial results first. */
  walkInLabNext(low: LowStatus, play: SandboxPlay): LowStatus | null {
    if (this.flow !== 'walk_in_test' || !this.walksIn || !COLLECTING.includes(low)) return null;
    const final = play.finalStatus;
    if (final && sourceOf(final) === 'lab' && canTransition(this.flow, low, final)) return final;
    return canTransition(this.flow, low, 'partial_results') ? 'partial_results' : null;
  }
}
