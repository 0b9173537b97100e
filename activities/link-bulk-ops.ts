import { whileBeating } from './heartbeat';
import type { LinkBulkOpActivities, LinkBulkOpIdentity, LinkBulkOpStatus } from '../workflows/contract';

/** What the Link Migration activities need from src/ (ConnectionBulkOpsService fits). */
export interface LinkBulkOpRunner {
  open(op: LinkBulkOpIdentity): Promise<'open' | 'aborted'>;
  runStep(opId: string, limit: number): Promise<{ remaining: number }>;
  close(opId: string): Promise<LinkBulkOpStatus>;
}

/**
 * Thin and idempotent: each user's outcome commits with the work it records, so a repeated step
 * skips what is done. A step heartbeats while it runs: it may take many users' syncs, and a killed
 * worker's step must be retried after the heartbeat timeout, not after the step's whole timeout.
 */
export function createLinkBulkOpActivities(runner: LinkBulkOpRunner): LinkBulkOpActivities {
  return {
    openLinkBulkOp: (op) => runner.open(op),
    runLinkBulkOpStep: ({ opId, limit }) => whileBeating(() => runner.runStep(opId, limit)),
    closeLinkBulkOp: ({ opId }) => runner.close(opId),
  };
}
