/**
 * Webhook delivery benchmark: signed deliveries per second to a local receiver, divided by raw
 * BullMQ no-op jobs per second on the same Redis with the same concurrency (the ceiling the
 * queue alone allows), and the time from outbox commit to delivery (p50/p99) — all measured in
 * one run, so the ratio is comparable across machines.
 *
 *   npm run bench:webhooks          (settings from the environment, as for the services:
 *                                    DATABASE_URL of a migrated database, REDIS_URL, PHI_ENCRYPTION_KEY;
 *                                    the delivery worker logs at LOG_LEVEL into BENCH_LOG, default /dev/null)
 *   BENCH_EVENTS=5000 BENCH_PACED_EVENTS=500 BENCH_PACED_RATE=200 npm run bench:webhooks
 *
 * Phases: (1) baseline — N no-op jobs through BullMQ; (2) burst — N events committed to the
 * outbox in transactions of 100, relayed, signed and POSTed (throughput, and latency including
 * queueing); (3) paced — events committed one per transaction at a steady rate below capacity
 * (latency without a backlog). Its own org/team/endpoint/queues are removed afterwards. The CPU
 * time an item cost (this process, and the Postgres backends where /proc shows them) is printed
 * too: on a shared machine it moves much less than the rates.
 */
import 'reflect-metadata';
import { Queue, Worker } from 'bullmq';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../../src/common/logger';
import { PhiCipher } from '../../src/common/crypto';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { workerConnection } from '../../src/events/delivery-queue';
import { startEventProcessing } from '../../src/events/event-processing';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { cpuMark, cpuPerItem } from './cpu';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 500);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 200);
const run = randomUUID().slice(0, 8);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Local receiver: 204 for everything, arrival time per webhook-id; verifies a sample. */
function startReceiver(secret: string) {
  const arrivals = new Map<string, number>();
  let verified = 0;
  let failures = 0;
  let waiter: { count: number; resolve: () => void } | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      if (verified + failures < 200) {
        try {
          new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          verified++;
        } catch {
          failures++;
        }
      }
      res.writeHead(204).end();
      if (waiter && arrivals.size >= waiter.count) {
        waiter.resolve();
        waiter = null;
      }
    });
  });
  return {
    arrivals,
    stats: () => ({ verified, failures }),
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    until: (count: number) =>
      new Promise<void>((resolve) => {
        if (arrivals.size >= count) return resolve();
        waiter = { count, resolve };
      }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function baseline(redisUrl: string, concurrency: number): Promise<number> {
  const name = `bench-noop-${run}`;
  const queue = new Queue(name, { connection: workerConnection(redisUrl) });
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker(
    name,
    async () => {
      if (++done === EVENTS) finish();
    },
    { connection: workerConnection(redisUrl), concurrency, autorun: false },
  );
  const started = performance.now();
  void worker.run();
  for (let i = 0; i < EVENTS; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => ({
        name: 'noop',
        data: { i: i + j },
        opts: { jobId: randomUUID(), removeOnComplete: true, removeOnFail: true },
      })),
    );
  }
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return EVENTS / seconds;
}

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    EVENTS_QUEUE: `bench-webhooks-${run}`,
    EVENTS_RELAY_POLL_INTERVAL: process.env.EVENTS_RELAY_POLL_INTERVAL ?? '100ms',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  });
  const db = createDataSource(config.databaseUrl);
  await db.initialize();
  const cipher = new PhiCipher(config.phiEncryptionKey);
  const outbox = new OutboxService(db, cipher);

  const secret = generateWebhookSecret();
  const receiver = startReceiver(secret);
  const port = await receiver.listen();
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `bench ${run}`, plan: 'scale' });
  const team = await db.getRepository(TeamEntity).save({
    id: randomUUID(),
    orgId: org.id,
    name: `bench ${run}`,
    region: 'us',
    integrationTeamId: null,
    partialWebhooksEnabled: false,
  });
  await db.getRepository(WebhookEndpointEntity).save({
    id: randomUUID(),
    teamId: team.id,
    environment: 'sandbox',
    url: `http://127.0.0.1:${port}/hook`,
    description: 'bench',
    rateLimit: null,
    disabled: false,
    filterTypes: null,
    secretEnc: cipher.encrypt(secret),
    previousSecretEnc: null,
    previousSecretExpiresAt: null,
    headersEnc: null,
    sensitiveHeaders: [],
  });

  const concurrency = config.events.concurrency;
  console.log(`labflow webhook bench: ${fmt(EVENTS)} events, concurrency ${concurrency}, Redis ${new URL(config.redisUrl).host}`);

  const baselineMark = await cpuMark(db);
  const noopRate = await baseline(config.redisUrl, concurrency);
  const baselineCpu = await cpuPerItem(db, baselineMark, EVENTS);
  console.log(`  baseline  BullMQ no-op jobs/s            ${fmt(noopRate)}`);

  // The worker's own logger at LOG_LEVEL (default info: one line per attempt, as in production),
  // its lines written to BENCH_LOG (default /dev/null) instead of between the figures.
  const logger = createLogger(config, { service: 'worker', destination: pino.destination({ dest: process.env.BENCH_LOG ?? '/dev/null', sync: false }) });
  const events = startEventProcessing({ db, cipher, config }, { teams: new Set([team.id]), logger });
  const committed = new Map<string, number>();
  const event = (seq: number): NewEvent => ({
    eventType: 'labtest.order.updated',
    teamId: team.id,
    environment: 'sandbox',
    userId: randomUUID(),
    clientUserId: `bench-${seq}`,
    data: { id: randomUUID(), status: 'completed', seq, results: { glucose: 92, unit: 'mg/dL' } },
  });
  try {
    // Burst.
    const burstMark = await cpuMark(db);
    const burstStart = performance.now();
    for (let i = 0; i < EVENTS; i += 100) {
      const ids = await outbox.emit(Array.from({ length: Math.min(100, EVENTS - i) }, (_, j) => event(i + j)));
      const at = performance.now();
      for (const id of ids) committed.set(id, at);
    }
    const writeSeconds = (performance.now() - burstStart) / 1000;
    await receiver.until(EVENTS);
    const burstSeconds = (Math.max(...receiver.arrivals.values()) - burstStart) / 1000;
    const deliveryRate = EVENTS / burstSeconds;
    const burstCpu = await cpuPerItem(db, burstMark, EVENTS);
    const burstLatency = [...committed].map(([id, at]) => receiver.arrivals.get(id)! - at).sort((a, b) => a - b);

    // Paced.
    const pacedIds: string[] = [];
    const interval = 1000 / PACED_RATE;
    const pacedStart = performance.now();
    for (let i = 0; i < PACED_EVENTS; i++) {
      const due = pacedStart + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const [id] = await outbox.emit([event(EVENTS + i)]);
      committed.set(id, performance.now());
      pacedIds.push(id);
    }
    await receiver.until(EVENTS + PACED_EVENTS);
    const pacedLatency = pacedIds.map((id) => receiver.arrivals.get(id)! - committed.get(id)!).sort((a, b) => a - b);
    const { verified, failures } = receiver.stats();

    console.log(`  webhooks  signed deliveries/s            ${fmt(deliveryRate)}   (outbox writes: ${fmt(EVENTS / writeSeconds)}/s)`);
    console.log(`  ratio     deliveries/s ÷ no-op jobs/s    ${fmt(deliveryRate / noopRate, 2)}`);
    console.log(`  burst     outbox→delivery p50 / p99      ${fmt(percentile(burstLatency, 50))} ms / ${fmt(percentile(burstLatency, 99))} ms   (includes the backlog of ${fmt(EVENTS)})`);
    console.log(
      `  paced     outbox→delivery p50 / p99      ${fmt(percentile(pacedLatency, 50))} ms / ${fmt(percentile(pacedLatency, 99))} ms   (${fmt(PACED_EVENTS)} events at ${fmt(PACED_RATE)}/s)`,
    );
    console.log(`  receiver  signatures verified (sample)   ${verified} ok, ${failures} failed`);
    console.log(`  cpu/item  no-op job: ${baselineCpu}; delivery (burst, all of it: outbox writes, relay, worker, receiver): ${burstCpu}`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    await events.stop();
    const queue = new Queue(config.events.queueName, { connection: workerConnection(config.redisUrl) });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await db.query(`DELETE FROM orgs WHERE id = $1`, [org.id]);
    await receiver.close();
    await db.destroy();
  }
}

main().then(
  // Redis connections of the baseline's queue and worker would keep the process alive.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
