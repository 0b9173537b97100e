import { Client } from 'pg';

/**
 * A database of a test file's own on the test server (DATABASE_URL's), for a test that must not
 * share the test database: one that rewrites every row, or starts from an older schema. Made empty;
 * `drop` removes it, connections and all.
 */
export async function createScratchDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `${prefix}_${process.pid}`;
  const server = new URL(process.env.DATABASE_URL as string);
  const admin = new Client({ connectionString: Object.assign(new URL(server), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  return {
    url: Object.assign(new URL(server), { pathname: `/${database}` }).toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}
