import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, IsNull, Not, QueryFailedError } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { UserEntity } from './user.entity';

/** Postgres unique_violation: another live user already has this client_user_id. */
export const isUniqueViolation = (error: unknown) =>
  error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === '23505';

type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** Intent-named queries over users; "live" means not pending deletion. */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private repo(manager: EntityManager = this.db.manager) {
    return manager.getRepository(UserEntity);
  }

  insert(user: UserEntity): Promise<UserEntity> {
    return this.repo().save(user);
  }

  save(user: UserEntity): Promise<UserEntity> {
    return this.repo().save(user);
  }

  findLive(scope: Scope, userId: string): Promise<UserEntity | null> {
    return this.repo().findOneBy({ id: userId, ...scoped(scope), deletionRequestedAt: IsNull() });
  }

  findLiveByClientUserId(scope: Scope, clientUserId: string): Promise<UserEntity | null> {
    return this.repo().findOneBy({ clientUserId, ...scoped(scope), deletionRequestedAt: IsNull() });
  }

  async listLive(scope: Scope, offset: number, limit: number): Promise<{ users: UserEntity[]; total: number }> {
    const [users, total] = await this.repo().findAndCount({
      where: { ...scoped(scope), deletionRequestedAt: IsNull() },
      order: { createdOn: 'ASC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
    return { users, total };
  }

  findPendingDeletion(scope: Scope, userId: string): Promise<UserEntity | null> {
    return this.repo().findOneBy({ id: userId, ...scoped(scope), deletionRequestedAt: Not(IsNull()) });
  }

  /** The most recently deleted user with this client_user_id that is still in its grace period. */
  findPendingDeletionByClientUserId(scope: Scope, clientUserId: string): Promise<UserEntity | null> {
    return this.repo().findOne({
      where: { clientUserId, ...scoped(scope), deletionRequestedAt: Not(IsNull()) },
      order: { deletionRequestedAt: 'DESC' },
    });
  }

  /** The user's client_user_id (the webhook envelope's), live or pending deletion; null when gone. */
  async clientUserIdOf(userId: string, manager?: EntityManager): Promise<string | null> {
    const user = await this.repo(manager).findOneBy({ id: userId });
    return user?.clientUserId ?? null;
  }

  /** Marks a live user pending deletion; false when it was not live. */
  async markPendingDeletion(userId: string, at: Date, manager?: EntityManager): Promise<boolean> {
    const result = await this.repo(manager).update({ id: userId, deletionRequestedAt: IsNull() }, { deletionRequestedAt: at });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Clears the pending-deletion mark. Returns `taken` when a live user now holds the
   * client_user_id (the unique index refuses), `restored` otherwise (also when already live).
   */
  async clearPendingDeletion(userId: string): Promise<'restored' | 'taken' | 'gone'> {
    try {
      await this.repo().update({ id: userId }, { deletionRequestedAt: null });
    } catch (error) {
      if (isUniqueViolation(error)) return 'taken';
      throw error;
    }
    return (await this.repo().existsBy({ id: userId })) ? 'restored' : 'gone';
  }

  /** Erases a user pending deletion; everything it owns goes with it (ON DELETE CASCADE). */
  async erasePendingDeletion(userId: string): Promise<void> {
    await this.repo().delete({ id: userId, deletionRequestedAt: Not(IsNull()) });
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

function scoped(scope: Scope) {
  return { teamId: scope.teamId, environment: scope.environment };
}
