/** User deletion (src/users, workflows/user-deletion.ts, activities/users.ts). */
import type { Duration } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';

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
