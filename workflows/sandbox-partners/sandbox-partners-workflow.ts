import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { type SandboxPartnerActivities, type SandboxPartnersInput, sandboxPlay } from '../contract';
import { isTerminal, simulatedNext, simulationCanReach, SUCCESS_PATH } from '../order/order-lifecycle';
import { sourceOf } from '../order/order-statuses';

const partners = proxyActivities<SandboxPartnerActivities>({
  // Short: a report lost with a stopped worker is tried again soon (a report waits ~5 s at most).
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 20 },
});

/** Longest pause between two looks while the order waits on something no partner does (a registration). */
const MAX_IDLE_MS = 10_000;

/**
 * `sandbox-partners:<order_id>`: the sandbox's courier, lab and on-site staff playing one order's
 * lifecycle for `POST /v3/order/{id}/test`, beside the order's workflow and outside it. Each step,
 * one `delayMs` after the order took the previous one, is a report through the path the real
 * partner uses (courier tracking webhook, lab event webhook, the on-site draw), which the order's
 * workflow takes as it would a real partner's. What labflow does itself (requisition, shipment)
 * and what the client does (registration) the partners wait for. Ends once the order reached the
 * play's final status, ended, or can no longer reach it; a new /test redirects the play.
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
  let { low } = await partners.sandboxOrderStatus({ orderId });
  for (;;) {
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof sandboxPartnersWorkflow>({ ...input, play });
    const target = play.finalStatus ?? SUCCESS_PATH[flow][SUCCESS_PATH[flow].length - 1];
    if (low === null || isTerminal(low) || low === target || !simulationCanReach(flow, low, target)) return;
    const settling = reportedAt === low && idle < 3;
    const next = settling ? null : simulatedNext(flow, low, play.finalStatus);
    const draw =
      !settling &&
      !next &&
      flow === 'on_site_collection' &&
      (low === 'requisition_created' || low === 'requisition_bypassed') &&
      simulationCanReach(flow, 'draw_completed', target);
    const seen = plays;
    const pause = next || draw ? play.delayMs : Math.min(play.delayMs * (idle + 1), MAX_IDLE_MS);
    if (await condition(() => plays !== seen, Math.max(1, pause))) {
      idle = 0;
      reportedAt = null;
      ({ low } = await partners.sandboxOrderStatus({ orderId }));
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
