/**
 * The user read model: the statements behind the user object (`GET /v2/user/{id}`, a page of
 * `GET /v2/user`, `GET /v2/user/resolve/{client_user_id}`), which read the connections module's
 * `provider_connections` beside `users`, on purpose:
 * - Speed: the user object carries its `connected_sources`. Read apart, that was a second query
 *   per request (through TypeORM) on the hottest read; in the same statement it is one round trip
 *   and one snapshot (GET /v2/user/{id}: ~0.17 ms less API CPU per request, bench:reads).
 * - Direction: connections import users, so users cannot ask the connections repository.
 * It reads only the two columns of a connection the user object shows (provider and created_at);
 * ConnectedSources (the connections module) turns them into the view. It writes nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { types } from 'pg';
import { DataSource } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { runPrepared } from '../common/prepared-statement';
import type { UserConnection } from './connected-sources';
import type { UserEntity } from './user.entity';
import { USER_COLUMNS, type UserRow, userFromRow } from './users.repository';

type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** A user with its connections, oldest first (then by provider), as the user object shows them. */
export interface UserRead {
  user: UserEntity;
  connections: UserConnection[];
}

/**
 * The connections of the row's user (`users.id` of the enclosing statement) as JSON
 * `[[provider, created_at], …]`, null when it has none. The timestamps are Postgres' text output,
 * parsed by pg's own timestamptz parser: the same Dates as a column read.
 */
const CONNECTIONS_OF = (userId: string) => `(SELECT json_agg(json_build_array(c.provider, c.created_at::text) ORDER BY c.created_at, c.provider)
    FROM provider_connections c WHERE c.user_id = ${userId}) AS connections`;

/** `GET /v2/user/{id}`'s statement (user id, team id, environment); exported for bench:reads, whose floor runs it too. */
export const LIVE_USER = {
  name: 'labflow_live_user_read',
  text: `SELECT ${USER_COLUMNS}, ${CONNECTIONS_OF('users.id')}
    FROM users WHERE id = $1 AND team_id = $2 AND environment = $3 AND deletion_requested_at IS NULL`,
};

const LIVE_USER_BY_CLIENT_USER_ID = {
  name: 'labflow_live_user_read_by_client_user_id',
  text: `SELECT ${USER_COLUMNS}, ${CONNECTIONS_OF('users.id')}
    FROM users WHERE client_user_id = $1 AND team_id = $2 AND environment = $3 AND deletion_requested_at IS NULL`,
};

// The page first, then the connections of its users only (not of every user the count sees).
// `GET /v2/user`'s statement (team id, environment, offset, limit); exported for bench:reads too.
export const LIVE_USERS_PAGE = {
  name: 'labflow_live_users_page_read',
  text: `SELECT page.*, ${CONNECTIONS_OF('page.id')}
    FROM (SELECT ${USER_COLUMNS}, count(*) OVER () AS total FROM users
      WHERE team_id = $1 AND environment = $2 AND deletion_requested_at IS NULL
      ORDER BY created_on, id OFFSET $3 LIMIT $4) page
    ORDER BY page.created_on, page.id`,
};

const LIVE_USERS_COUNT = {
  name: 'labflow_live_users_count',
  text: `SELECT count(*) AS total FROM users WHERE team_id = $1 AND environment = $2 AND deletion_requested_at IS NULL`,
};

type ReadRow = UserRow & { connections: Array<[string, string]> | null };

const parseTimestamptz = types.getTypeParser(1184, 'text') as (value: string) => Date;

function userRead(row: ReadRow): UserRead {
  return {
    user: userFromRow(row),
    connections: row.connections === null ? [] : row.connections.map(([provider, createdAt]) => ({ provider, createdAt: parseTimestamptz(createdAt) })),
  };
}

@Injectable()
export class UserReadModel {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The team's live user with its connections, or null. */
  async readLive(scope: Scope, userId: string): Promise<UserRead | null> {
    const [row] = await runPrepared<ReadRow>(this.db, LIVE_USER.name, LIVE_USER.text, [userId, scope.teamId, scope.environment]);
    return row ? userRead(row) : null;
  }

  /** The team's live user with this client_user_id, with its connections, or null. */
  async readLiveByClientUserId(scope: Scope, clientUserId: string): Promise<UserRead | null> {
    const [row] = await runPrepared<ReadRow>(this.db, LIVE_USER_BY_CLIENT_USER_ID.name, LIVE_USER_BY_CLIENT_USER_ID.text, [
      clientUserId,
      scope.teamId,
      scope.environment,
    ]);
    return row ? userRead(row) : null;
  }

  /** A page of the team's live users with their connections, and how many live users it has. */
  async readLivePage(scope: Scope, offset: number, limit: number): Promise<{ users: UserRead[]; total: number }> {
    const rows = await runPrepared<ReadRow & { total: string }>(this.db, LIVE_USERS_PAGE.name, LIVE_USERS_PAGE.text, [
      scope.teamId,
      scope.environment,
      offset,
      limit,
    ]);
    if (rows.length > 0) return { users: rows.map(userRead), total: Number(rows[0].total) };
    // A page past the end carries no count: ask for it.
    const [count] = await runPrepared<{ total: string }>(this.db, LIVE_USERS_COUNT.name, LIVE_USERS_COUNT.text, [scope.teamId, scope.environment]);
    return { users: [], total: Number(count.total) };
  }
}
