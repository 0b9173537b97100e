import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, IsNull, Not, QueryFailedError } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { runPrepared } from '../common/prepared-statement';
import { UserEntity } from './user.entity';

/** Postgres unique_violation: another live user already has this client_user_id. */
export const isUniqueViolation = (error: unknown) => error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === '23505';

type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** The columns of a user as the named statements read them (dates as text, as TypeORM gives them). */
export const USER_COLUMNS = `id, team_id, environment, client_user_id, created_on, fallback_time_zone, fallback_birth_date_enc, fallback_birth_date,
  ingestion_start::text AS ingestion_start, ingestion_end::text AS ingestion_end, deletion_requested_at`;

const LIVE_USER = {
  name: 'labflow_live_user',
  text: `SELECT ${USER_COLUMNS} FROM users WHERE id = $1 AND team_id = $2 AND environment = $3 AND deletion_requested_at IS NULL`,
};

const LIVE_USERS_PAGE = {
  name: 'labflow_live_users_page',
  text: `SELECT ${USER_COLUMNS}, count(*) OVER () AS total FROM users
    WHERE team_id = $1 AND environment = $2 AND deletion_requested_at IS NULL
    ORDER BY created_on, id OFFSET $3 LIMIT $4`,
};

/** A row of USER_COLUMNS. */
export interface UserRow {
  id: string;
  team_id: string;
  environment: UserEntity['environment'];
  client_user_id: string;
  created_on: Date;
  fallback_time_zone: UserEntity['fallbackTimeZone'];
  fallback_birth_date_enc: string | null;
  fallback_birth_date: UserEntity['plaintextFallbackBirthDate'];
  ingestion_start: string | null;
  ingestion_end: string | null;
  deletion_requested_at: Date | null;
}

export function userFromRow(row: UserRow): UserEntity {
  return Object.assign(new UserEntity(), {
    id: row.id,
    teamId: row.team_id,
    environment: row.environment,
    clientUserId: row.client_user_id,
    createdOn: row.created_on,
    fallbackTimeZone: row.fallback_time_zone,
    fallbackBirthDateEnc: row.fallback_birth_date_enc,
    plaintextFallbackBirthDate: row.fallback_birth_date,
    ingestionStart: row.ingestion_start,
    ingestionEnd: row.ingestion_end,
    deletionRequestedAt: row.deletion_requested_at,
  });
}

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

  /** GET /v2/user/{id} and every route on one user: a named statement (runPrepared), not TypeORM's query building. */
  async findLive(scope: Scope, userId: string): Promise<UserEntity | null> {
    const [row] = await runPrepared<UserRow>(this.db, LIVE_USER.name, LIVE_USER.text, [userId, scope.teamId, scope.environment]);
    return row ? userFromRow(row) : null;
  }

  findLiveByClientUserId(scope: Scope, clientUserId: string): Promise<UserEntity | null> {
    return this.repo().findOneBy({ clientUserId, ...scoped(scope), deletionRequestedAt: IsNull() });
  }

  /** How many live users the team has in this environment. */
  countLive(scope: Scope): Promise<number> {
    return this.repo().countBy({ ...scoped(scope), deletionRequestedAt: IsNull() });
  }

  /** A page of live users and how many there are, in one statement (a count beside each row). */
  async listLive(scope: Scope, offset: number, limit: number): Promise<{ users: UserEntity[]; total: number }> {
    const rows = await runPrepared<UserRow & { total: string }>(this.db, LIVE_USERS_PAGE.name, LIVE_USERS_PAGE.text, [
      scope.teamId,
      scope.environment,
      offset,
      limit,
    ]);
    if (rows.length > 0) return { users: rows.map(userFromRow), total: Number(rows[0].total) };
    // A page past the end carries no count: ask for it.
    const total = await this.countLive(scope);
    return { users: [], total };
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
  /** Erases the user if still pending deletion; whether this call erased it. */
  async erasePendingDeletion(userId: string): Promise<boolean> {
    const result = await this.repo().delete({ id: userId, deletionRequestedAt: Not(IsNull()) });
    return (result.affected ?? 0) > 0;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

function scoped(scope: Scope) {
  return { teamId: scope.teamId, environment: scope.environment };
}
