import type { Pool, QueryArrayConfig, QueryConfig, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs a named statement on a connection of the data source's pool: Postgres parses and plans it
 * once per connection instead of on every request. For the hottest reads only (the team key
 * lookup, GET /v3/order/{id}, a user and a page of users, a timeseries range); list the columns,
 * never `*`, so a column added by a later migration cannot change a prepared statement's result
 * type. One name per statement text (the driver refuses a name reused with another text). These
 * bypass TypeORM's query logging, and its query runner (whose bookkeeping per query showed in the
 * profile of GET /v2/user/{id}): the connection comes from TypeORM's pg pool and goes back to it
 * as a query runner would return it.
 */
export function runPrepared<T extends QueryResultRow>(db: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  return queryOnPoolClient<T>(db, { name, text, values });
}

/**
 * runPrepared with each row as an array of its column values in the statement's order, not an
 * object keyed by column name: for reads of thousands of rows (a timeseries range), where the
 * driver's building of a keyed object per row shows in a CPU profile.
 */
export function runPreparedArrays(db: DataSource, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  return queryOnPoolClient<unknown[]>(db, { name, text, values, rowMode: 'array' });
}

/** The rows of one query on a connection checked out for it; one async function (each level of them is promises on the hottest reads). */
async function queryOnPoolClient<T>(db: DataSource, query: QueryConfig | QueryArrayConfig): Promise<T[]> {
  const client = await poolOf(db).connect();
  // pg-pool listens for errors of idle connections only: one lost while checked out is heard here
  // (else it would be an unhandled 'error' event) and leaves the pool on release.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/** The pg pool TypeORM opened for the data source (its master; labflow has no replicas). */
function poolOf(db: DataSource): Pool {
  return (db.driver as PostgresDriver).master as Pool;
}
