import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Continuous queries (src/health-data/continuous-queries): a team's saved aggregation queries,
 * the tasks that evaluate one for a user after their data changed, and the table each evaluation
 * last answered (what a change is measured against).
 *
 * At most one task per (query, user) waits at a time (the partial unique index): writes of data
 * while one waits join it, which is the debounce. A task being evaluated is `started` with
 * `due_at` at the end of its lease, so a worker that died mid-way leaves it due again.
 */
export class ContinuousQueries1763790400000 implements MigrationInterface {
  name = 'ContinuousQueries1763790400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE continuous_queries (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        slug text NOT NULL,
        query jsonb NOT NULL,
        past jsonb NOT NULL,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (team_id, environment, slug)
      )`);
    await db.query(`CREATE INDEX continuous_queries_source ON continuous_queries (team_id, environment, source)`);
    await db.query(`
      CREATE TABLE continuous_query_tasks (
        id uuid PRIMARY KEY,
        query_id uuid NOT NULL REFERENCES continuous_queries(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('scheduled', 'started', 'completed', 'error')),
        scheduled_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        due_at timestamptz NOT NULL,
        started_at timestamptz,
        ended_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        error_details text
      )`);
    await db.query(`CREATE UNIQUE INDEX continuous_query_tasks_waiting ON continuous_query_tasks (query_id, user_id) WHERE status = 'scheduled'`);
    await db.query(`CREATE INDEX continuous_query_tasks_due ON continuous_query_tasks (due_at) WHERE status IN ('scheduled', 'started')`);
    await db.query(`CREATE INDEX continuous_query_tasks_history ON continuous_query_tasks (query_id, user_id, scheduled_at DESC, id DESC)`);
    await db.query(`CREATE INDEX continuous_query_tasks_ended ON continuous_query_tasks (ended_at) WHERE ended_at IS NOT NULL`);
    await db.query(`CREATE INDEX continuous_query_tasks_user ON continuous_query_tasks (user_id)`);
    await db.query(`
      CREATE TABLE continuous_query_results (
        query_id uuid NOT NULL REFERENCES continuous_queries(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        result jsonb NOT NULL,
        computed_at timestamptz NOT NULL,
        PRIMARY KEY (query_id, user_id)
      )`);
    await db.query(`CREATE INDEX continuous_query_results_user ON continuous_query_results (user_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE continuous_query_results');
    await db.query('DROP TABLE continuous_query_tasks');
    await db.query('DROP TABLE continuous_queries');
  }
}
