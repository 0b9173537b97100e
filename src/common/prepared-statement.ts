import type { PoolClient, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Runs a named statement on a connection of the data source's pool: Postgres parses and plans it
 * once per connection instead of on every request. For the hottest reads only (the team key
 * lookup, GET /v3/order/{id}, a user and a page of users); list the columns, never `*`, so a column added by a later migration
 * cannot change a prepared statement's result type. These bypass TypeORM's query logging.
 */
export async function runPrepared<T extends QueryResultRow>(db: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const runner = db.createQueryRunner();
  try {
    const client = (await runner.connect()) as PoolClient;
    return (await client.query<T>({ name, text, values })).rows;
  } finally {
    await runner.release();
  }
}
