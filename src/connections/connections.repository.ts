import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { SESSION_LOCKS, withSessionLock } from '../common/session-lock';
import type { ApiEnvironment, Region } from '../tenancy/entities';
import { changedRows } from '../common/write-statements';

/** A connected data source (`provider_connections`). */
export interface ConnectionRow {
  id: string;
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
  userId: string;
  provider: string;
  seed: string;
  /** `pull`: labflow fetches the data (a workflow per connection); `push`: the user's phone or app sends it (no workflow). */
  kind: 'pull' | 'push';
  /** The provider's id of the user, when known. */
  externalUserId: string | null;
  /** `paused` (Link Migration's bulk pause): nothing is fetched and no token refreshed until the user signs in again or is imported again. */
  status: 'connected' | 'error' | 'paused';
  createdAt: Date;
  backfilledAt: Date | null;
  lastSyncedAt: Date | null;
  /** Set with status `error` (what the source said, and since when); null while connected. */
  errorType: string | null;
  errorMessage: string | null;
  erroredAt: Date | null;
}

export type NewConnection = Pick<ConnectionRow, 'id' | 'teamId' | 'environment' | 'region' | 'userId' | 'provider' | 'seed'> &
  Partial<Pick<ConnectionRow, 'kind' | 'externalUserId'>> & {
    /** The provider's grant (OAuth tokens), encrypted (PhiCipher); never among COLUMNS, so no view can show it. */
    credentialsEnc?: string | null;
  };

const COLUMNS = `id, team_id AS "teamId", environment, region, user_id AS "userId", provider, seed, kind, external_user_id AS "externalUserId", status,
  created_at AS "createdAt", backfilled_at AS "backfilledAt", last_synced_at AS "lastSyncedAt",
  error_type AS "errorType", error_message AS "errorMessage", errored_at AS "erroredAt"`;

/** A connection's grant from its provider, as stored (encrypted). */
export interface SealedGrant {
  id: string;
  provider: string;
  environment: ApiEnvironment;
  sealed: string;
}

/** The SQL of `provider_connections`. */
@Injectable()
export class ConnectionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Inserts the connection unless its (user, provider) is connected already; returns the row
   * that holds the pair (the new one or the one that was there). Waits for a concurrent,
   * uncommitted insert of the same pair to settle (the unique index), so the API's insert and the
   * workflow's agree. Null when the user no longer exists.
   */
  async insertIfAbsent(connection: NewConnection, manager: EntityManager = this.db.manager): Promise<ConnectionRow | null> {
    try {
      await manager.query(
        `INSERT INTO provider_connections (id, team_id, environment, region, user_id, provider, seed, kind, external_user_id, credentials_enc)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (user_id, provider) DO NOTHING`,
        [
          connection.id,
          connection.teamId,
          connection.environment,
          connection.region,
          connection.userId,
          connection.provider,
          connection.seed,
          connection.kind ?? 'pull',
          connection.externalUserId ?? null,
          connection.credentialsEnc ?? null,
        ],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23503') return null; // the user was erased meanwhile
      throw error;
    }
    const rows: ConnectionRow[] = await manager.query(`SELECT ${COLUMNS} FROM provider_connections WHERE user_id = $1 AND provider = $2`, [
      connection.userId,
      connection.provider,
    ]);
    return rows[0] ?? null;
  }

  /**
   * The team's connections in numbers: how many, how many in error, and for each of the last
   * `weeks` weeks (Monday 00:00 UTC) how many were made in it (`value`) and how many of today's
   * were made by its end (`all`). Reads every connection of the team: a rare call (`GET /v2/user/metrics`).
   */
  async metricsOf(
    teamId: string,
    environment: string,
    weeks: number,
  ): Promise<{ connected: number; errored: number; byWeek: Array<{ week: Date; value: number; all: number }> }> {
    const [counts]: Array<{ connected: number; errored: number }> = await this.db.query(
      `SELECT count(*)::int AS connected, count(*) FILTER (WHERE status = 'error')::int AS errored
         FROM provider_connections WHERE team_id = $1 AND environment = $2`,
      [teamId, environment],
    );
    const byWeek: Array<{ week: Date; value: number; all: number }> = await this.db.query(
      `SELECT w.week AT TIME ZONE 'UTC' AS week,
              count(c.id) FILTER (WHERE c.created_at AT TIME ZONE 'UTC' >= w.week)::int AS value,
              count(c.id)::int AS "all"
         FROM generate_series(date_trunc('week', now() AT TIME ZONE 'UTC') - make_interval(weeks => $3 - 1), date_trunc('week', now() AT TIME ZONE 'UTC'), interval '1 week') AS w(week)
         LEFT JOIN provider_connections c
           ON c.team_id = $1 AND c.environment = $2 AND c.created_at AT TIME ZONE 'UTC' < w.week + interval '1 week'
        GROUP BY w.week ORDER BY w.week`,
      [teamId, environment, weeks],
    );
    return { ...counts, byWeek };
  }

  async findById(id: string): Promise<ConnectionRow | null> {
    const rows: ConnectionRow[] = await this.db.query(`SELECT ${COLUMNS} FROM provider_connections WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The connections of these users, oldest first. */
  async findForUsers(userIds: string[]): Promise<ConnectionRow[]> {
    if (userIds.length === 0) return [];
    return this.db.query(`SELECT ${COLUMNS} FROM provider_connections WHERE user_id = ANY($1::uuid[]) ORDER BY created_at, provider`, [userIds]);
  }

  /**
   * The user's connection to the provider, locked (FOR UPDATE) until `manager`'s transaction ends,
   * or null when there is none. Deregistration and the reconciler's restart take this lock, so the
   * two never interleave (connections.service.ts, connection-reconciler.ts).
   */
  async lockByProvider(userId: string, provider: string, manager: EntityManager): Promise<ConnectionRow | null> {
    const rows: ConnectionRow[] = await manager.query(`SELECT ${COLUMNS} FROM provider_connections WHERE user_id = $1 AND provider = $2 FOR UPDATE`, [
      userId,
      provider,
    ]);
    return rows[0] ?? null;
  }

  /** This connection, locked (FOR UPDATE) until `manager`'s transaction ends, or null when it is gone. */
  async lockById(id: string, manager: EntityManager): Promise<ConnectionRow | null> {
    const rows: ConnectionRow[] = await manager.query(`SELECT ${COLUMNS} FROM provider_connections WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ?? null;
  }

  /** The connection's encrypted credentials (null when it has none, or is gone). */
  async credentialsOf(id: string, manager: EntityManager = this.db.manager): Promise<string | null> {
    const rows: Array<{ credentials_enc: string | null }> = await manager.query('SELECT credentials_enc FROM provider_connections WHERE id = $1', [id]);
    return rows[0]?.credentials_enc ?? null;
  }

  /** The user's connections that hold a provider's grant, with it (sealed). */
  async sealedGrantsOf(userId: string): Promise<SealedGrant[]> {
    return this.db.query(
      `SELECT id, provider, environment, credentials_enc AS "sealed" FROM provider_connections WHERE user_id = $1 AND credentials_enc IS NOT NULL`,
      [userId],
    );
  }

  /**
   * Replaces the connection's credentials (a refreshed token, or a new grant when the user signed
   * in again), and its provider user id when one is given.
   */
  async storeCredentials(id: string, credentialsEnc: string, externalUserId: string | null = null, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.query('UPDATE provider_connections SET credentials_enc = $2, external_user_id = coalesce($3, external_user_id) WHERE id = $1', [
      id,
      credentialsEnc,
      externalUserId,
    ]);
  }

  /**
   * The pulled connections to `provider` of the account it knows as `externalUserId`, in every team
   * and environment (one person may have linked the same account for two teams' users).
   */
  async findPulledByExternalUser(provider: string, externalUserId: string): Promise<ConnectionRow[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM provider_connections WHERE provider = $1 AND external_user_id = $2 AND kind = 'pull' ORDER BY created_at`, [
      provider,
      externalUserId,
    ]);
  }

  /** The user's connection to the provider, or null when there is none. */
  async findByProvider(userId: string, provider: string): Promise<ConnectionRow | null> {
    const rows: ConnectionRow[] = await this.db.query(`SELECT ${COLUMNS} FROM provider_connections WHERE user_id = $1 AND provider = $2`, [userId, provider]);
    return rows[0] ?? null;
  }

  /**
   * Pauses the team's pulled connections to the provider of these users (an error they were in is
   * cleared: nothing is fetched while paused); answers the users whose connection is paused now.
   */
  async pause(teamId: string, environment: ApiEnvironment, provider: string, userIds: string[]): Promise<string[]> {
    const rows = await changedRows<{ userId: string }>(
      this.db,
      `UPDATE provider_connections SET status = 'paused', error_type = NULL, error_message = NULL, errored_at = NULL
        WHERE team_id = $1 AND environment = $2 AND provider = $3 AND user_id = ANY($4::uuid[]) AND kind = 'pull'
        RETURNING user_id AS "userId"`,
      [teamId, environment, provider, userIds],
    );
    return rows.map((row) => row.userId);
  }

  /** A paused connection is `connected` again (its user signed in again, or was imported again). */
  async resume(id: string, manager: EntityManager = this.db.manager): Promise<void> {
    await manager.query(`UPDATE provider_connections SET status = 'connected' WHERE id = $1 AND status = 'paused'`, [id]);
  }

  /**
   * A page of the team's connections to the provider that hold a grant, by user id after
   * `afterUserId` (only `userIds`, when given), with the grant sealed as stored.
   */
  exportPage(
    teamId: string,
    environment: ApiEnvironment,
    provider: string,
    userIds: string[] | null,
    afterUserId: string | null,
    limit: number,
    manager: EntityManager = this.db.manager,
  ): Promise<Array<{ id: string; userId: string; externalUserId: string | null; sealed: string }>> {
    return manager.query(
      `SELECT id, user_id AS "userId", external_user_id AS "externalUserId", credentials_enc AS sealed FROM provider_connections
        WHERE team_id = $1 AND environment = $2 AND provider = $3 AND credentials_enc IS NOT NULL
          AND ($4::uuid[] IS NULL OR user_id = ANY($4::uuid[])) AND ($5::uuid IS NULL OR user_id > $5::uuid)
        ORDER BY user_id LIMIT $6`,
      [teamId, environment, provider, userIds, afterUserId, limit],
    );
  }

  /** Removes the user's connection to the provider; returns it, or null when there was none. */
  async deleteByProvider(userId: string, provider: string, manager: EntityManager = this.db.manager): Promise<ConnectionRow | null> {
    const rows = await changedRows<ConnectionRow>(manager, `DELETE FROM provider_connections WHERE user_id = $1 AND provider = $2 RETURNING ${COLUMNS}`, [
      userId,
      provider,
    ]);
    return rows[0] ?? null;
  }

  /** Removes this connection (not a newer one of the same pair). */
  async deleteById(id: string): Promise<void> {
    await this.db.query('DELETE FROM provider_connections WHERE id = $1', [id]);
  }

  /** A sync went through: the connection is `connected` (again, if it was in error). */
  async markSynced(id: string, at: Date, backfilled: boolean): Promise<void> {
    await this.db.query(
      `UPDATE provider_connections
          SET last_synced_at = $2, backfilled_at = CASE WHEN $3 THEN coalesce(backfilled_at, $2) ELSE backfilled_at END,
              status = 'connected', error_type = NULL, error_message = NULL, errored_at = NULL
        WHERE id = $1`,
      [id, at, backfilled],
    );
  }

  /**
   * Marks the connection `error` with what its source said, unless it is in error already
   * (the first error's details and time stay). Returns the row when this call made the change,
   * null otherwise, so the error is announced once per episode.
   */
  async markErrored(id: string, errorType: string, errorMessage: string, manager: EntityManager): Promise<ConnectionRow | null> {
    const rows = await changedRows<ConnectionRow>(
      manager,
      `UPDATE provider_connections SET status = 'error', error_type = $2, error_message = $3, errored_at = clock_timestamp()
        WHERE id = $1 AND status <> 'error'
        RETURNING ${COLUMNS}`,
      [id, errorType, errorMessage],
    );
    return rows[0] ?? null;
  }

  /**
   * Runs one pass of the connection reconciler holding its session lock, so that of several
   * workers (replicas) one reconciles at a time; `{ran: false}` when another process holds it.
   */
  exclusively<T>(pass: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return withSessionLock(this.db, SESSION_LOCKS.connectionReconciler, pass);
  }

  /**
   * One keyset page of the connections by id (the primary key's order, so no index of its own),
   * strictly after `afterId`, and the id to resume after (null once the page is the last: fewer
   * than `limit` rows). A connection made during a cycle is seen in it or in the next one.
   */
  async page(afterId: string | null, limit: number): Promise<{ rows: ConnectionRow[]; next: string | null }> {
    const rows: ConnectionRow[] = afterId
      ? await this.db.query(`SELECT ${COLUMNS} FROM provider_connections WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])
      : await this.db.query(`SELECT ${COLUMNS} FROM provider_connections ORDER BY id LIMIT $1`, [limit]);
    return { rows, next: rows.length < limit ? null : rows[rows.length - 1].id };
  }
}
