/**
 * Applies every pending TypeORM migration to DATABASE_URL and prints what it applied.
 *
 *   node dist/scripts/migrate.js        (npm run migrate; scripts/stack.sh runs it for you)
 *
 * Settings come from the environment (see src/config/environment.ts); for the dev database:
 *   node --env-file=.labflow/env dist/scripts/migrate.js
 */
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../src/config/config';
import { createDataSource } from '../src/db/data-source';

async function main(): Promise<void> {
  const config = loadConfig();
  const dataSource = createDataSource(config.databaseUrl);
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    const target = new URL(config.databaseUrl).pathname.replace(/^\//, '');
    if (applied.length === 0) {
      console.log(`[labflow] migrations: database ${target} is up to date`);
    } else {
      for (const migration of applied) console.log(`[labflow] migration applied: ${migration.name}`);
      console.log(`[labflow] migrations: ${applied.length} applied to ${target}`);
    }
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`[labflow] ERROR: ${error.message}`);
  } else {
    console.error(`[labflow] ERROR: migrations failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  process.exit(1);
});
