import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { LinkBulkOpActivities, LinkBulkOpStatus, LinkBulkOpWorkflowInput } from '../contract';

const STEPS_PER_RUN = 200;

/**
 * `link-bulk-op:<op_id>`: one Link Migration operation (a bulk import of connections, or a bulk
 * historical pull). The API wrote the operation and its users and started this workflow in one
 * transaction; the workflow processes the users `pace.batchSize` at a time, waiting
 * `pace.batchInterval` between steps (the provider's rate limit), and ends the operation. A user
 * that cannot be processed (unknown, not connected, refused by the provider) is recorded as
 * failed in its step; the operation goes on.
 */
export async function linkBulkOpWorkflow(input: LinkBulkOpWorkflowInput): Promise<LinkBulkOpStatus> {
  const { op, pace } = input;
  const { openLinkBulkOp, runLinkBulkOpStep, closeLinkBulkOp } = proxyActivities<LinkBulkOpActivities>({
    startToCloseTimeout: pace.stepTimeout,
    heartbeatTimeout: pace.heartbeatTimeout,
    retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
  });
  if (!input.opened && (await openLinkBulkOp(op)) === 'aborted') return 'aborted';
  for (let steps = 0; ; steps++) {
    const { remaining } = await runLinkBulkOpStep({ opId: op.opId, limit: pace.batchSize });
    if (remaining === 0) break;
    if (pace.batchInterval !== undefined) await sleep(pace.batchInterval);
    if (steps + 1 >= (pace.stepsPerRun ?? STEPS_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof linkBulkOpWorkflow>({ ...input, opened: true });
    }
  }
  return closeLinkBulkOp({ opId: op.opId });
}
