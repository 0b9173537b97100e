import { allHandlersFinished, ApplicationFailure, ActivityFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import {
  CLIENT_USER_ID_TAKEN,
  DELETION_NOT_UNDOABLE,
  undoUserDeletion,
  type UserActivities,
  type UserDeletionInput,
  type UserDeletionOutcome,
  type UserDeletionPhase,
  userDeletionState,
} from './contract';

const { eraseUser } = proxyActivities<UserActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});

// The undo answers a waiting API call, so it retries briefly and gives up on a taken id.
const { restoreUser } = proxyActivities<UserActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumAttempts: 5, nonRetryableErrorTypes: [CLIENT_USER_ID_TAKEN] },
});

/**
 * `user-deletion:<user_id>`: a deleted user waits out its grace period (a durable timer); an
 * undo within it restores the user, otherwise the user and all it owns are erased.
 */
export async function userDeletionWorkflow(input: UserDeletionInput): Promise<UserDeletionOutcome> {
  let phase: UserDeletionPhase = 'grace_period';

  setHandler(userDeletionState, () => ({ phase }));
  setHandler(
    undoUserDeletion,
    async () => {
      phase = 'restoring';
      try {
        await restoreUser({ userId: input.userId });
      } catch (error) {
        phase = 'grace_period';
        throw asUndoFailure(error);
      }
      phase = 'restored';
      return { restored: true as const };
    },
    {
      validator: () => {
        if (phase !== 'grace_period') {
          throw ApplicationFailure.nonRetryable(`User deletion can no longer be undone (${phase}).`, DELETION_NOT_UNDOABLE);
        }
      },
    },
  );

  const restoredInTime = await waitOutGracePeriod(input.grace, () => phase);
  if (restoredInTime) {
    await condition(allHandlersFinished);
    return 'restored';
  }

  phase = 'erasing';
  await eraseUser({ userId: input.userId });
  phase = 'erased';
  return 'erased';
}

/** True when an undo restored the user before the grace period ended. */
async function waitOutGracePeriod(grace: Duration, currentPhase: () => UserDeletionPhase): Promise<boolean> {
  await condition(() => currentPhase() === 'restored', grace);
  // An undo that began just before the timer fired is allowed to finish.
  await condition(() => currentPhase() !== 'restoring');
  return currentPhase() === 'restored';
}

function asUndoFailure(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return ApplicationFailure.create({ message: cause.message, type: cause.type ?? undefined, nonRetryable: true });
  }
  return ApplicationFailure.create({ message: 'User could not be restored.', nonRetryable: true });
}
