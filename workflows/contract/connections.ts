/** Data source connections (src/connections, workflows/connection, activities/connections.ts). */
import type { Duration } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** One workflow per connected (user, provider); a reconnect after a deregistration reuses the id. */
export const connectionWorkflowId = (userId: string, provider: string) => `connection:${userId}:${provider}`;

export interface ConnectionSchedule {
  /** Days of history the first sync backfills (Junction's demo: 30). */
  backfillDays: number;
  /** Milliseconds of history one backfill step syncs (one activity each, so a crash repeats one step). */
  backfillChunkMs: number;
  /** Time between incremental syncs. */
  syncInterval: Duration;
  /** Incremental syncs per run before continue-as-new keeps the history small. */
  syncsPerRun: number;
  /** startToClose of one sync step (a killed worker's step runs again after it). */
  syncTimeout: Duration;
  /** First retry interval of a failed sync step. */
  syncRetryInterval: Duration;
  /** A step's worker heartbeats this often while it runs, so a dead worker's step is run again this soon (absent from connections started before it existed). */
  syncHeartbeatTimeout?: Duration;
}

/** Where a connection's workflow is; carried across continue-as-new. */
export interface ConnectionProgress {
  announced: boolean;
  /** Epoch ms the backfill starts at and ends at (the connection's creation). */
  backfillFrom: number;
  backfillTo: number;
  /** Epoch ms up to which history is stored: backfillTo once the backfill is done. */
  syncedUntil: number;
  /** Incremental syncs so far, over all runs. */
  syncs: number;
}

export interface ConnectionWorkflowInput {
  connection: ConnectionIdentity;
  schedule: ConnectionSchedule;
  /** Set by continue-as-new; absent on the first run. */
  progress?: ConnectionProgress;
  /** Set by continue-as-new: a refresh arrived just before it. */
  refreshPending?: boolean;
}

/** `deregistered`: DELETE /v2/user/{user_id}/{provider}; `gone`: the connection or its user no longer exists. */
export type ConnectionOutcome = 'deregistered' | 'gone';

export interface ConnectionState {
  phase: 'announcing' | 'backfilling' | 'connected' | 'syncing' | 'error' | 'ended';
  progress: ConnectionProgress;
}

/** Sync now instead of at the next interval (POST /v2/user/refresh/{user_id}). */
export const refreshConnection = defineSignal('refreshConnection');
/** The user deregistered the provider: the workflow ends. */
export const deregisterConnection = defineSignal('deregisterConnection');
export const connectionState = defineQuery<ConnectionState>('connectionState');

export interface SyncConnectionInput {
  connectionId: string;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
  stage: 'historical' | 'daily';
  /** Historical stage: the backfill's last step (its historical.data.* events follow). */
  finalChunk: boolean;
  /** Historical stage: the backfill's whole range, as its historical.data.* events report it. */
  backfill?: { from: number; to: number };
  /** What makes the backfill's historical.data.* events once-only; default the connection's first backfill. */
  backfillKey?: string;
}

/**
 * `synced`: the window's data is stored; `paused`: the user is pending deletion, or the connection
 * is paused (nothing stored, the window is tried again next time); `gone`: the connection or user no longer exists.
 */
/**
 * `error`: the source refused the connection itself (its credentials stopped working); the
 * connection is marked `error` and the same window is tried again after an interval.
 */
export type SyncConnectionResult = { status: 'synced'; stored: number } | { status: 'paused' } | { status: 'gone' } | { status: 'error'; errorType: string };

/** Who a connection is: what its workflow was started with, enough to write its row again. */
export interface ConnectionIdentity {
  connectionId: string;
  teamId: string;
  environment: 'sandbox' | 'production';
  region: string;
  userId: string;
  provider: string;
}

export interface ConnectionActivities {
  /**
   * Makes sure the connection's row exists (the API wrote it in the transaction that started the
   * workflow; should that transaction have failed after the start, the workflow's row stands) and
   * writes provider.connection.created once. `gone`: the user no longer exists, or a newer
   * connection holds the pair.
   */
  announceConnection(input: ConnectionIdentity): Promise<'announced' | 'gone'>;
  /** Removes this connection's row (after a deregistration). Idempotent. */
  endConnection(input: { connectionId: string }): Promise<void>;
  /** Pulls the window from the source and ingests it through the health-data ingestion path. Idempotent. */
  syncConnection(input: SyncConnectionInput): Promise<SyncConnectionResult>;
}
