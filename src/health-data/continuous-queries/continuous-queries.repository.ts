import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { encodeCursor, type KeysetPosition } from '../../common/keyset-cursor';

/** A continuous query as stored. */
export interface ContinuousQueryRow {
  id: string;
  team_id: string;
  environment: string;
  slug: string;
  query: Record<string, unknown>;
  past: { value: number; unit: string };
  source: string;
  created_at: Date;
  updated_at: Date;
}

/** Who a query belongs to. */
export interface QueryOwner {
  teamId: string;
  environment: string;
}

export interface TaskRow {
  id: string;
  query_id: string;
  user_id: string;
  status: 'scheduled' | 'started' | 'completed' | 'error';
  scheduled_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  error_details: string | null;
}

/** A task a runner has claimed, with what evaluating it needs. */
export interface ClaimedTask {
  id: string;
  attempts: number;
  query: ContinuousQueryRow;
  user: { id: string; client_user_id: string; deleted: boolean };
}

/**
 * What a query reads and a write touches, as `continuous_queries.source` stores it: the query's
 * table, named as ingestion names what it writes.
 */
export function dataSourceKey(kind: 'timeseries' | 'summary', slug: string): string {
  return `${kind}:${slug}`;
}

const QUERY_COLUMNS = 'q.id, q.team_id, q.environment, q.slug, q.query, q.past, q.source, q.created_at, q.updated_at';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The SQL of continuous queries: their definitions, the tasks that evaluate one for a user
 * (scheduled by a data write, claimed by a runner under a lease, ended completed or error), and
 * the table each query last answered for a user.
 */
@Injectable()
export class ContinuousQueriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  // --- definitions ------------------------------------------------------------------------

  /** Inserts a query; false when the owner already has one with that slug. */
  async insert(row: Omit<ContinuousQueryRow, 'created_at' | 'updated_at'>): Promise<boolean> {
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO continuous_queries (id, team_id, environment, slug, query, past, source)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (team_id, environment, slug) DO NOTHING RETURNING id`,
      [row.id, row.team_id, row.environment, row.slug, JSON.stringify(row.query), JSON.stringify(row.past), row.source],
    );
    return inserted.length === 1;
  }

  /** Replaces a query's definition; 'slug taken' when another of the owner's queries has the new slug. */
  async update(
    owner: QueryOwner,
    id: string,
    row: Pick<ContinuousQueryRow, 'slug' | 'query' | 'past' | 'source'>,
  ): Promise<'updated' | 'missing' | 'slug taken'> {
    try {
      const [, count] = (await this.db.query(
        `UPDATE continuous_queries SET slug = $4, query = $5, past = $6, source = $7, updated_at = now()
          WHERE id = $1 AND team_id = $2 AND environment = $3`,
        [id, owner.teamId, owner.environment, row.slug, JSON.stringify(row.query), JSON.stringify(row.past), row.source],
      )) as [unknown, number];
      return count === 1 ? 'updated' : 'missing';
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return 'slug taken';
      throw error;
    }
  }

  async delete(owner: QueryOwner, id: string): Promise<boolean> {
    const [, count] = (await this.db.query(`DELETE FROM continuous_queries WHERE id = $1 AND team_id = $2 AND environment = $3`, [
      id,
      owner.teamId,
      owner.environment,
    ])) as [unknown, number];
    return count === 1;
  }

  /** One of the owner's queries by id or slug. */
  async find(owner: QueryOwner, idOrSlug: string): Promise<ContinuousQueryRow | null> {
    const byId = UUID.test(idOrSlug);
    const rows: ContinuousQueryRow[] = await this.db.query(
      `SELECT ${QUERY_COLUMNS} FROM continuous_queries q
        WHERE q.team_id = $1 AND q.environment = $2 AND ${byId ? 'q.id = $3::uuid' : 'q.slug = $3'}`,
      [owner.teamId, owner.environment, byId ? idOrSlug.toLowerCase() : idOrSlug],
    );
    return rows[0] ?? null;
  }

  /** The owner's queries in slug order. */
  async list(owner: QueryOwner): Promise<ContinuousQueryRow[]> {
    return this.db.query(`SELECT ${QUERY_COLUMNS} FROM continuous_queries q WHERE q.team_id = $1 AND q.environment = $2 ORDER BY q.slug`, [
      owner.teamId,
      owner.environment,
    ]);
  }

  // --- tasks ------------------------------------------------------------------------------

  /**
   * In the transaction that wrote a user's data of `source`: a task for each of the owner's
   * queries reading it, due after `debounceMs`, unless one is already waiting (it takes this
   * write too). Answers how many were added.
   */
  async schedule(manager: EntityManager, owner: QueryOwner, userId: string, source: string, debounceMs: number): Promise<number> {
    const added: unknown[] = await manager.query(
      `INSERT INTO continuous_query_tasks (id, query_id, user_id, status, due_at)
       SELECT gen_random_uuid(), q.id, $4, 'scheduled', clock_timestamp() + make_interval(secs => $5::double precision / 1000)
         FROM continuous_queries q
        WHERE q.team_id = $1 AND q.environment = $2 AND q.source = $3
        -- One order for every writer: concurrent writes for the same user wait on each other's
        -- waiting tasks in the same order, never in a cycle.
        ORDER BY q.id
       ON CONFLICT (query_id, user_id) WHERE status = 'scheduled' DO NOTHING
       RETURNING id`,
      [owner.teamId, owner.environment, source, userId, debounceMs],
    );
    return added.length;
  }

  /**
   * Up to `limit` due tasks (waiting ones past their debounce, started ones past their lease),
   * now `started` with a lease of `leaseMs`; tasks other runners hold are skipped.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedTask[]> {
    const rows: Array<{ id: string; attempts: number; user_id: string; client_user_id: string; deleted: boolean } & { q: ContinuousQueryRow }> =
      await this.db.query(
        `WITH due AS (
           SELECT id FROM continuous_query_tasks
            WHERE status IN ('scheduled', 'started') AND due_at <= clock_timestamp()
            ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE continuous_query_tasks t
              SET status = 'started', started_at = clock_timestamp(), attempts = t.attempts + 1,
                  due_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
             FROM due WHERE t.id = due.id
           RETURNING t.id, t.attempts, t.query_id, t.user_id
         )
         SELECT c.id, c.attempts, c.user_id, u.client_user_id, (u.deletion_requested_at IS NOT NULL) AS deleted, to_jsonb(q) AS q
           FROM claimed c
           JOIN continuous_queries q ON q.id = c.query_id
           JOIN users u ON u.id = c.user_id`,
        [limit, leaseMs],
      );
    return rows.map((row) => ({
      id: row.id,
      attempts: row.attempts,
      query: { ...row.q, created_at: new Date(row.q.created_at), updated_at: new Date(row.q.updated_at) },
      user: { id: row.user_id, client_user_id: row.client_user_id, deleted: row.deleted },
    }));
  }

  /** Ends a claimed task; false when it is no longer this runner's (its lease ran out and another took it). */
  async finish(
    manager: EntityManager,
    taskId: string,
    attempts: number,
    outcome: { status: 'completed' } | { status: 'error'; detail: string },
  ): Promise<boolean> {
    const [, count] = (await manager.query(
      `UPDATE continuous_query_tasks SET status = $3, ended_at = clock_timestamp(), error_details = $4
        WHERE id = $1 AND status = 'started' AND attempts = $2`,
      [taskId, attempts, outcome.status, outcome.status === 'error' ? outcome.detail : null],
    )) as [unknown, number];
    return count === 1;
  }

  /** A page of a user's tasks of one query, newest first, strictly before `before`. */
  async history(queryId: string, userId: string, before: KeysetPosition | undefined, limit: number): Promise<{ items: TaskRow[]; nextCursor: string | null }> {
    const rows: Array<TaskRow & { keyset_at: string }> = await this.db.query(
      `SELECT id, query_id, user_id, status, scheduled_at, started_at, ended_at, error_details,
              to_char(scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS keyset_at
         FROM continuous_query_tasks
        WHERE query_id = $1 AND user_id = $2
          AND ($3::timestamp IS NULL OR (scheduled_at, id) < ($3::timestamp AT TIME ZONE 'UTC', $4::uuid))
        ORDER BY scheduled_at DESC, id DESC
        LIMIT $5`,
      [queryId, userId, before?.at ?? null, before?.id ?? null, limit + 1],
    );
    if (rows.length <= limit) return { items: rows, nextCursor: null };
    const items = rows.slice(0, limit);
    const last = rows[limit - 1];
    return { items, nextCursor: encodeCursor({ at: last.keyset_at, id: last.id }) };
  }

  /** Deletes up to `batchSize` tasks that ended more than `olderThanMs` ago; answers how many. */
  async deleteEnded(olderThanMs: number, batchSize: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM continuous_query_tasks WHERE id IN (
         SELECT id FROM continuous_query_tasks WHERE ended_at < now() - make_interval(secs => $1::double precision / 1000) LIMIT $2)`,
      [olderThanMs, batchSize],
    )) as [unknown, number];
    return count;
  }

  // --- results ----------------------------------------------------------------------------

  /**
   * The table the query last answered for the user. The (query, user) pair stays locked until
   * the transaction ends (an advisory lock, as there may be no row yet), so two evaluations of
   * one pair compare and save one after the other.
   */
  async lockResult(manager: EntityManager, queryId: string, userId: string): Promise<unknown> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`continuous_query:${queryId}:${userId}`]);
    const rows: Array<{ result: unknown }> = await manager.query(`SELECT result FROM continuous_query_results WHERE query_id = $1 AND user_id = $2`, [
      queryId,
      userId,
    ]);
    return rows[0]?.result;
  }

  async saveResult(manager: EntityManager, queryId: string, userId: string, result: unknown): Promise<void> {
    await manager.query(
      `INSERT INTO continuous_query_results (query_id, user_id, result, computed_at) VALUES ($1, $2, $3, clock_timestamp())
       ON CONFLICT (query_id, user_id) DO UPDATE SET result = EXCLUDED.result, computed_at = EXCLUDED.computed_at`,
      [queryId, userId, JSON.stringify(result)],
    );
  }
}
