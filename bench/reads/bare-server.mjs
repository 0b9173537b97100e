// The floor the reads bench measures labflow against (bench/reads/floor-app.mjs says what it does),
// on a port of its own. Run by bench/reads/run.ts in a process of its own.
//
//   BARE_PORT, DATABASE_URL, PHI_ENCRYPTION_KEY (and the settings labflow's loadConfig needs),
//   BENCH_TEAM_ID and BENCH_ENVIRONMENT (the team whose rows the routes read), BENCH_STATEMENTS
//   ({user, order, users, orders}: each {name, text})
import { createRequire } from 'node:module';
import process from 'node:process';
import { floorApp } from './floor-app.mjs';

const require = createRequire(import.meta.url);
const { loadConfig } = require('../../dist/src/config/config.js');

const { app, close } = floorApp({
  config: loadConfig(process.env),
  teamId: process.env.BENCH_TEAM_ID,
  environment: process.env.BENCH_ENVIRONMENT,
  statements: JSON.parse(process.env.BENCH_STATEMENTS),
});
await app.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void close());
