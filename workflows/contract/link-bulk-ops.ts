/** Link Migration's background operations (src/link/link-migration.service.ts, workflows/link-bulk-op, activities/link-bulk-ops.ts). */
import type { Duration } from '@temporalio/common';

/** One workflow per bulk operation. */
export const linkBulkOpWorkflowId = (opId: string) => `link-bulk-op:${opId}`;

/** Junction's BulkOpType: an import of connections, or a historical pull of connections. */
export type LinkBulkOpType = 'link_bulk_import' | 'link_bulk_historical_trigger';

/** Junction's BulkOpStatus. */
export type LinkBulkOpStatus = 'in_progress' | 'success' | 'failure' | 'aborted';

/** What an operation is, enough to write its row should the API's transaction have failed after the start. */
export interface LinkBulkOpIdentity {
  opId: string;
  teamId: string;
  environment: 'sandbox' | 'production';
  region: string;
  type: LinkBulkOpType;
  provider: string;
}

export interface LinkBulkOpPace {
  /** Users one step processes (one activity each). */
  batchSize: number;
  /** Pause between steps (historical pulls: the provider's rate limit must not be spent at once); none for imports. */
  batchInterval?: Duration;
  /** startToClose of one step (a killed worker's step runs again; items done stay done). */
  stepTimeout: Duration;
  /** A step's worker heartbeats this often while it runs, so a dead worker's step is retried this soon (not set by operations started before it existed). */
  heartbeatTimeout?: Duration;
  /** Steps per run before continue-as-new keeps the history short (default 200: an import of 100,000 users is 2,000 steps of 50). */
  stepsPerRun?: number;
}

export interface LinkBulkOpWorkflowInput {
  op: LinkBulkOpIdentity;
  pace: LinkBulkOpPace;
  /** Set by continue-as-new: the row is known to exist. */
  opened?: boolean;
}

export interface LinkBulkOpActivities {
  /**
   * Waits for the API's transaction that wrote the operation (and started this workflow) to end:
   * `open` when it committed; `aborted` when it did not — an aborted row is written in its place,
   * so the operation is on record and ends here.
   */
  openLinkBulkOp(op: LinkBulkOpIdentity): Promise<'open' | 'aborted'>;
  /** Processes up to `limit` of the operation's users not yet processed, each committed as it is done; answers how many remain. */
  runLinkBulkOpStep(input: { opId: string; limit: number }): Promise<{ remaining: number }>;
  /** Every user is processed: the operation ends (`success`). Idempotent. */
  closeLinkBulkOp(input: { opId: string }): Promise<LinkBulkOpStatus>;
}
