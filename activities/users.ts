import { ApplicationFailure } from '@temporalio/common';
import { CLIENT_USER_ID_TAKEN, type UserActivities } from '../workflows/contract';

/** What the user activities need from src/ (UsersService fits). */
export interface UserDeletionStore {
  restoreFromDeletion(userId: string): Promise<'restored' | 'taken' | 'gone'>;
  erase(userId: string): Promise<void>;
}

/** Thin, idempotent activities over the users service: repeating either changes nothing. */
export function createUserActivities(users: UserDeletionStore): UserActivities {
  return {
    async restoreUser({ userId }) {
      const outcome = await users.restoreFromDeletion(userId);
      if (outcome === 'taken') {
        throw ApplicationFailure.nonRetryable('A new user has taken this client_user_id.', CLIENT_USER_ID_TAKEN);
      }
      if (outcome === 'gone') throw ApplicationFailure.nonRetryable('The user no longer exists.', 'UserGone');
    },
    async eraseUser({ userId }) {
      await users.erase(userId);
    },
  };
}
