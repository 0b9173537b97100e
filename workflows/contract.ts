/**
 * The workflow-safe contract shared by workflows/, activities/ and src/: workflow ids, task
 * queue, signal/update/query definitions, search attributes and input/output types.
 * Only workflow-safe imports are allowed here (no Node, no Nest).
 */
import { defineSearchAttributeKey, type Duration, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export const DEFAULT_TASK_QUEUE = 'labflow';

/** Keyword search attributes registered on the dev server (scripts/stack.sh) for ops to filter by. */
export const SEARCH_ATTRIBUTES = {
  teamId: defineSearchAttributeKey('LabflowTeamId', SearchAttributeType.KEYWORD),
  orderStatus: defineSearchAttributeKey('LabflowOrderStatus', SearchAttributeType.KEYWORD),
  collectionMethod: defineSearchAttributeKey('LabflowCollectionMethod', SearchAttributeType.KEYWORD),
  lab: defineSearchAttributeKey('LabflowLab', SearchAttributeType.KEYWORD),
} as const;

// ---------------------------------------------------------------------------------------------
// User deletion

export const userDeletionWorkflowId = (userId: string) => `user-deletion:${userId}`;

export interface UserDeletionInput {
  userId: string;
  teamId: string;
  /** How long the deletion can still be undone, e.g. "7d" (configurable so tests use seconds). */
  grace: Duration;
}

/** `restored`: undone in time; `erased`: the user and all they own are gone. */
export type UserDeletionOutcome = 'restored' | 'erased';

export type UserDeletionPhase = 'grace_period' | 'restoring' | 'restored' | 'erasing' | 'erased';

export interface UserDeletionState {
  phase: UserDeletionPhase;
}

/** Undo the deletion. Fails if the grace period is over or the client_user_id was taken. */
export const undoUserDeletion = defineUpdate<{ restored: true }>('undoUserDeletion');
export const userDeletionState = defineQuery<UserDeletionState>('userDeletionState');

/** Failure type of restoreUser when a new user took the client_user_id in the meantime. */
export const CLIENT_USER_ID_TAKEN = 'ClientUserIdTaken';
/** Failure type of the undo update once the grace period is over. */
export const DELETION_NOT_UNDOABLE = 'DeletionNotUndoable';

export interface UserActivities {
  /** Makes a user pending deletion visible again; fails with CLIENT_USER_ID_TAKEN if it cannot. */
  restoreUser(input: { userId: string }): Promise<void>;
  /** Erases a user pending deletion and everything it owns. Idempotent. */
  eraseUser(input: { userId: string }): Promise<void>;
}
