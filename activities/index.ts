import type { UserActivities } from '../workflows/contract';
import { createUserActivities, type UserDeletionStore } from './users';

export interface ActivityDependencies {
  users: UserDeletionStore;
}

/** Every activity the worker registers, built from the services it calls. */
export function createActivities(deps: ActivityDependencies): UserActivities {
  return { ...createUserActivities(deps.users) };
}
