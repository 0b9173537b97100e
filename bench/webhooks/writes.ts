/**
 * What one webhook delivery writes to Postgres (issue #42 item 4): row versions (inserts,
 * updates, of which HOT) per table and the index entries they add, counted by Postgres itself
 * (pg_stat_user_tables) over BENCH_WRITES_EVENTS (1,000) deliveries that all succeed at their
 * first attempt, one endpoint, on the delivery process bench:webhooks runs (dist/). With
 * BENCH_WRITES_FAIL_FIRST=1 each delivery's first attempt is answered 500 and its retry (after
 * the schedule's first delay, 0 s) 204: what a delivery with attempt rows writes.
 *
 *   npm run build && npx ts-node --transpile-only bench/webhooks/writes.ts
 *
 * Use a database of your own: pg_stat_user_tables counts every session's writes to these tables.
 * Index entries are derived: an inserted row or a non-HOT update adds one entry to each index
 * whose predicate the new row version satisfies (the indexes and predicates are read from
 * pg_index, so the count follows the schema); a HOT update adds none.
 */
import 'reflect-metadata';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { PhiCipher } from '../../src/common/crypto';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { OutboxService } from '../../src/events/outbox.service';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { ROOT } from '../lib/load';

const EVENTS = Number(process.env.BENCH_WRITES_EVENTS ?? 1000);
const FAIL_FIRST = process.env.BENCH_WRITES_FAIL_FIRST === '1';
const TABLES = ['event_outbox', 'event_deliveries', 'event_delivery_attempts'] as const;
const run = randomUUID().slice(0, 8);

type Counts = Record<string, { ins: number; upd: number; hot: number }>;

async function counts(databaseUrl: string): Promise<Counts> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ relname: string; ins: string; upd: string; hot: string }>(
      `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = ANY($1)`,
      [[...TABLES]],
    );
    return Object.fromEntries(rows.map((r) => [r.relname, { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot) }]));
  } finally {
    await client.end();
  }
}

/** Backends flush their statistics when they exit or go idle: waits until the outbox count has moved by `events`. */
async function settledCounts(databaseUrl: string, before: Counts, events: number): Promise<Counts> {
  for (let i = 0; ; i++) {
    const now = await counts(databaseUrl);
    const attempts = now.event_delivery_attempts?.ins ?? 0;
    const updates = now.event_deliveries.upd;
    if ((now.event_outbox.ins - before.event_outbox.ins >= events && i >= 3) || i >= 30) {
      // Two equal readings a second apart: nothing left to flush.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const again = await counts(databaseUrl);
      if (again.event_deliveries.upd === updates && (again.event_delivery_attempts?.ins ?? 0) === attempts) return again;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function indexes(databaseUrl: string): Promise<Array<{ table: string; name: string; predicate: string | null }>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string; name: string; predicate: string | null }>(
      `SELECT t.relname AS table, i.relname AS name, pg_get_expr(x.indpred, x.indrelid) AS predicate
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relname = ANY($1) ORDER BY 1, 2`,
      [[...TABLES]],
    );
    return rows;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const settings = { EVENTS_QUEUE: `bench-writes-${run}`, ALLOW_PRIVATE_WEBHOOK_URLS: 'true', EVENTS_RELAY_POLL_INTERVAL: '100ms' };
  const config = loadConfig({ ...process.env, ...settings });
  const secret = generateWebhookSecret();
  const receiver = fork(join(__dirname, 'receiver.mjs'), [], {
    env: { ...process.env, BENCH_SECRET: secret, BENCH_FAIL_FIRST: FAIL_FIRST ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) => receiver.once('message', (m: { port: number }) => resolve(m.port)));
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      const onMessage = (m: { type: string }) => {
        if (m.type !== 'reached') return;
        receiver.off('message', onMessage);
        resolve();
      };
      receiver.on('message', onMessage);
      receiver.send({ type: 'until', count });
    });

  const db = createDataSource(config.databaseUrl);
  await db.initialize();
  const cipher = new PhiCipher(config.phiEncryptionKey);
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `writes ${run}`, plan: 'scale' });
  const team = await db
    .getRepository(TeamEntity)
    .save({ id: randomUUID(), orgId: org.id, name: `writes ${run}`, region: 'us', integrationTeamId: null, partialWebhooksEnabled: false });
  await db.getRepository(WebhookEndpointEntity).save({
    id: randomUUID(),
    teamId: team.id,
    environment: 'sandbox',
    url: `http://127.0.0.1:${port}/hook`,
    description: 'writes',
    rateLimit: null,
    disabled: false,
    filterTypes: null,
    secretEnc: cipher.encrypt(secret),
    previousSecretEnc: null,
    previousSecretExpiresAt: null,
    headersEnc: null,
    sensitiveHeaders: [],
  });
  await db.destroy();

  const sender: ChildProcess = spawn(process.execPath, [join(__dirname, 'delivery-process.mjs')], {
    cwd: ROOT,
    env: { ...process.env, ...settings, BENCH_TEAM_ID: team.id },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => sender.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('READY') && resolve()));

  const before = await counts(config.databaseUrl);
  // The producer in a DataSource of its own, closed before counting (an exiting backend flushes its statistics).
  const producer = createDataSource(config.databaseUrl);
  await producer.initialize();
  const outbox = new OutboxService(producer, cipher);
  for (let i = 0; i < EVENTS; i += 100) {
    await outbox.emit(
      Array.from({ length: Math.min(100, EVENTS - i) }, (_, j) => ({
        eventType: 'labtest.order.updated' as const,
        teamId: team.id,
        environment: 'sandbox' as const,
        userId: randomUUID(),
        clientUserId: `writes-${i + j}`,
        data: { id: randomUUID(), status: 'completed', seq: i + j },
      })),
    );
  }
  await until(EVENTS);
  await producer.destroy();
  // Let the last outcomes commit, then stop the delivery process (its backends exit and flush).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  sender.kill('SIGTERM');
  await new Promise((resolve) => sender.once('exit', resolve));
  const after = await settledCounts(config.databaseUrl, before, EVENTS);
  receiver.disconnect();

  const schema = await indexes(config.databaseUrl);
  const cleanup = createDataSource(config.databaseUrl);
  await cleanup.initialize();
  await cleanup.query(`DELETE FROM orgs WHERE id = $1`, [org.id]);
  await cleanup.destroy();

  let versions = 0;
  console.log(
    `writes per delivery over ${EVENTS} deliveries (${FAIL_FIRST ? 'first attempt answered 500, the retry 204' : 'first attempt succeeds'}, one endpoint)`,
  );
  for (const table of TABLES) {
    const b = before[table] ?? { ins: 0, upd: 0, hot: 0 };
    const a = after[table] ?? { ins: 0, upd: 0, hot: 0 };
    const ins = (a.ins - b.ins) / EVENTS;
    const upd = (a.upd - b.upd) / EVENTS;
    const hot = (a.hot - b.hot) / EVENTS;
    const tableIndexes = schema.filter((i) => i.table === table);
    versions += ins + upd;
    console.log(
      `  ${table.padEnd(24)} inserts ${ins.toFixed(2)}, updates ${upd.toFixed(2)} (HOT ${hot.toFixed(2)}); indexes: ${tableIndexes.map((i) => i.name + (i.predicate ? ` WHERE ${i.predicate}` : '')).join('; ')}`,
    );
  }
  console.log(`  row versions per delivery: ${versions.toFixed(2)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
