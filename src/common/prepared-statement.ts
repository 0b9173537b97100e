import type { PoolClient, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Runs a named statement on a connection of the data source's pool: Postgres parses and plans it
 * once per connection instead of on every request. For the hottest reads only (the team key
 * lookup, GET /v3/order/{id}, a user and a page of users, a timeseries range); list the columns,
 * never `*`, so a column added by a later migration cannot change a prepared statement's result
 * type. One name per statement text (the driver refuses a name reused with another text). These
 * bypass TypeORM's query logging.
 */
export async function runPrepared<T extends QueryResultRow>(db: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  return withPoolClient(db, async (client) => (await client.query<T>({ name, text, values })).rows);
}

/**
 * runPrepared with each row as an array of its column values in the statement's order, not an
 * object keyed by column name: for reads of thousands of rows (a timeseries range), where the
 * driver's building of a keyed object per row shows in a CPU profile.
 */
export async function runPreparedArrays(db: DataSource, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  return withPoolClient(db, async (client) => (await client.query<unknown[]>({ name, text, values, rowMode: 'array' })).rows);
}

async function withPoolClient<T>(db: DataSource, use: (client: PoolClient) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  try {
    return await use((await runner.connect()) as PoolClient);
  } finally {
    await runner.release();
  }
}
