// The delivery side of bench:webhooks in a process of its own, as the worker runs it (roles
// `relay` and `delivery`: src/events/event-processing.ts from dist/, on plain node — ts-node loads
// node:domain, whose async hooks tax every promise), for the bench's team only. Its attempt log
// lines go through the worker's logger at LOG_LEVEL into BENCH_LOG (default /dev/null). Prints
// READY once it runs; SIGTERM stops it.
//
//   DATABASE_URL, REDIS_URL, PHI_ENCRYPTION_KEY, EVENTS_QUEUE, BENCH_TEAM_ID (and the EVENTS_*,
//   WEBHOOK_* settings as for the worker)
import { createRequire } from 'node:module';
import console from 'node:console';
import process from 'node:process';

const require = createRequire(import.meta.url);
require('reflect-metadata');
const pino = require('pino');
const { loadConfig } = require('../../dist/src/config/config.js');
const { createDataSource } = require('../../dist/src/db/data-source.js');
const { PhiCipher } = require('../../dist/src/common/crypto.js');
const { createLogger } = require('../../dist/src/common/logger.js');
const { startEventProcessing } = require('../../dist/src/events/event-processing.js');

const config = loadConfig(process.env);
const db = createDataSource(config.databaseUrl);
await db.initialize();
const logger = createLogger(config, { service: 'worker', destination: pino.destination({ dest: process.env.BENCH_LOG ?? '/dev/null', sync: false }) });
const events = startEventProcessing({ db, cipher: new PhiCipher(config.phiEncryptionKey), config }, { teams: new Set([process.env.BENCH_TEAM_ID]), logger });
console.log('READY');
process.on('SIGTERM', () => {
  void events
    .stop()
    .then(() => db.destroy())
    .finally(() => process.exit(0));
});
