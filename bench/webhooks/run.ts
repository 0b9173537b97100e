/**
 * Webhook delivery benchmark: signed deliveries per second to a local receiver, divided by raw
 * BullMQ no-op jobs per second on the same Redis with the same concurrency (the ceiling the
 * queue alone allows), and the time from outbox commit to delivery (p50/p99) — all measured in
 * one run, so the ratio is comparable across machines.
 *
 *   npm run build && npm run bench:webhooks
 *                                   (settings from the environment, as for the services:
 *                                    DATABASE_URL of a migrated database, REDIS_URL, PHI_ENCRYPTION_KEY;
 *                                    the delivery process logs at LOG_LEVEL into BENCH_LOG, default /dev/null)
 *   BENCH_EVENTS=5000 BENCH_PACED_EVENTS=500 BENCH_PACED_RATE=200 npm run bench:webhooks
 *   BENCH_CHILD_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench:webhooks   (node flags for the delivery process)
 *
 * Topology as in production: the relay and the delivery worker run in a process of their own
 * from dist/ on plain node (bench/webhooks/delivery-process.mjs, what the worker's `relay` and
 * `delivery` roles run, for the bench's team only), the no-op baseline likewise on plain node
 * (bench/webhooks/noop-worker.mjs); this process writes the outbox (as the API would) and is the
 * receiver (as the team's server would be).
 *
 * Phases: first one burst that is not measured, so the delivery tables (and their statistics) are
 * a running system's, not the empty ones the last run left (main says why); then BENCH_ROUNDS
 * rounds (default 3), each (1) baseline — N no-op jobs through BullMQ — then
 * (2) burst — N events committed to the outbox in transactions of 100, relayed, signed and POSTed
 * (throughput, and latency including queueing), each side in fresh processes; the figures are
 * the medians of the rounds. Then (3) paced — events committed one per transaction at a steady rate below capacity
 * (latency without a backlog). Its own org/team/endpoint/queues are removed afterwards. The CPU
 * time an item cost (each process, and the Postgres backends where /proc shows them) is printed
 * too: on a shared machine it moves much less than the rates.
 */
import 'reflect-metadata';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { PhiCipher } from '../../src/common/crypto';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { workerConnection } from '../../src/events/delivery-queue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { median, ROOT } from '../lib/load';
import { recordFigure } from '../lib/results';
import { cpuMark, cpuPerItem } from '../lib/cpu';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 500);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 200);
/**
 * Rounds of (baseline, burst), alternating, each side in fresh processes; the figures are the
 * medians. One short run of each swung the ratio between 0.29 and 0.43 on unchanged code (both
 * sides last about a second, so a moment of other work on the machine moves either a lot).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Items each side runs unmeasured first, in the same process; default 0, both sides measured cold,
 * as the goal was set. Warm (BENCH_WARMUP=5000) the delivery worker costs about a third less CPU per
 * delivery (V8 has compiled it), but the no-op worker gains more and the ratio falls (0.22-0.34
 * against 0.34-0.37 cold, 2026-11-26).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 0);
const run = randomUUID().slice(0, 8);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** µs per item of a total over the round's EVENTS items, or '?'. */
const perItem = (total: number | null) => (total === null ? '?' : fmt(total / EVENTS));

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

/** The no-op baseline in a plain node process of its own (noop-worker.mjs). */
interface NoopRound {
  perSecond: number;
  cpuMicros: number;
  /** The Redis server's CPU over the measured part (null: not on this machine, or /proc cannot tell). */
  redisMicros: number | null;
  /** All CPUs' busy time over the measured part (null: /proc cannot tell). */
  machineMicros: number | null;
}

async function baseline(redisUrl: string, concurrency: number): Promise<NoopRound> {
  const child = spawn(process.execPath, [join(__dirname, 'noop-worker.mjs')], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: redisUrl, BENCH_EVENTS: String(EVENTS), BENCH_WARMUP: String(WARMUP), BENCH_CONCURRENCY: String(concurrency) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`noop-worker.mjs exited with ${code}`);
  return JSON.parse(output.trim().split('\n').at(-1) as string) as NoopRound;
}

/** The relay and delivery worker from dist/ in a process of their own (delivery-process.mjs), once it runs. */
async function startDeliveryProcess(env: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(join(ROOT, 'dist/src/events/event-processing.js'))) throw new Error('dist/ is missing: npm run build');
  const nodeArgs = process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...nodeArgs, join(__dirname, 'delivery-process.mjs')], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('READY')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`delivery-process.mjs exited with ${code} before it was ready`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const settings = {
    EVENTS_QUEUE: `bench-webhooks-${run}`,
    EVENTS_RELAY_POLL_INTERVAL: process.env.EVENTS_RELAY_POLL_INTERVAL ?? '100ms',
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
  const config = loadConfig({ ...process.env, ...settings });
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

  // Earlier runs (and tests) leave dead rows behind, and a Postgres with autovacuum off (as on CI
  // machines) never clears them: without this, each round starts on a larger, staler table than
  // the last, and the planner's statistics say whatever the last ANALYZE saw.
  const vacuum = () => db.query('VACUUM (ANALYZE) event_outbox, event_deliveries, event_delivery_attempts');

  // The Redis server's pid, to count its CPU (both sides use it) where it runs on this machine.
  const redis = new Redis(config.redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]) || undefined;
  await redis.quit();

  const concurrency = config.events.concurrency;
  console.log(`labflow webhook bench: ${fmt(EVENTS)} events a round, ${ROUNDS} rounds (baseline, burst), concurrency ${concurrency}, Redis ${new URL(config.redisUrl).host}`);
  console.log(`  load average at start: ${loadavg().map((n) => fmt(n, 2)).join(' ')}`);

  const committed = new Map<string, number>();
  let seq = 0;
  const event = (): NewEvent => ({
    eventType: 'labtest.order.updated',
    teamId: team.id,
    environment: 'sandbox',
    userId: randomUUID(),
    clientUserId: `bench-${seq}`,
    data: { id: randomUUID(), status: 'completed', seq: seq++, results: { glucose: 92, unit: 'mg/dL' } },
  });
  const rounds: Array<{ noop: NoopRound; deliveryRate: number; writeRate: number; latency: number[]; cpu: Awaited<ReturnType<typeof cpuPerItem>> }> = [];
  let deliveries: ChildProcess | undefined;
  /** `count` events written in transactions of 100 and delivered, not measured. */
  const deliverUnmeasured = async (count: number) => {
    const before = receiver.arrivals.size;
    for (let i = 0; i < count; i += 100) await outbox.emit(Array.from({ length: Math.min(100, count - i) }, () => event()));
    await receiver.until(before + count);
  };
  try {
    // The delivery tables as a running system's before the first VACUUM (ANALYZE): one burst, not
    // measured. The bench removes its rows when it ends, so it finds these tables holding dead
    // rows only; ANALYZE then records about 2 live rows on hundreds of pages, the claim and finish
    // statements plan a sequential scan of event_deliveries, and keep it while the burst grows the
    // table (autovacuum, off here as on CI, re-analyses within about a minute in production; a
    // running system's tables are not empty). Round 1 cost Postgres 1,168-1,438 µs per delivery
    // against 192-264 in rounds 2 and 3, whose ANALYZE saw the earlier rounds' rows (2026-11-26).
    deliveries = await startDeliveryProcess({ ...settings, BENCH_TEAM_ID: team.id });
    await deliverUnmeasured(EVENTS);
    await stopProcess(deliveries);
    deliveries = undefined;
    for (let round = 0; round < ROUNDS; round += 1) {
      await vacuum();
      const noop = await baseline(config.redisUrl, concurrency);
      deliveries = await startDeliveryProcess({ ...settings, BENCH_TEAM_ID: team.id });
      if (WARMUP > 0) await deliverUnmeasured(WARMUP);
      // Burst: EVENTS committed in transactions of 100, as fast as Postgres takes them.
      const before = receiver.arrivals.size;
      const ids: string[] = [];
      const burstMark = await cpuMark(db, deliveries.pid as number, redisPid);
      const burstStart = performance.now();
      for (let i = 0; i < EVENTS; i += 100) {
        const written = await outbox.emit(Array.from({ length: Math.min(100, EVENTS - i) }, () => event()));
        const at = performance.now();
        for (const id of written) committed.set(id, at);
        ids.push(...written);
      }
      const writeSeconds = (performance.now() - burstStart) / 1000;
      await receiver.until(before + EVENTS);
      const burstSeconds = (Math.max(...ids.map((id) => receiver.arrivals.get(id)!)) - burstStart) / 1000;
      const cpu = await cpuPerItem(db, burstMark, EVENTS);
      rounds.push({
        noop,
        deliveryRate: EVENTS / burstSeconds,
        writeRate: EVENTS / writeSeconds,
        latency: ids.map((id) => receiver.arrivals.get(id)! - committed.get(id)!),
        cpu,
      });
      console.log(
        `  round ${round + 1}: no-op ${fmt(noop.perSecond)}/s, deliveries ${fmt(EVENTS / burstSeconds)}/s (${fmt(EVENTS / burstSeconds / noop.perSecond, 2)}); ` +
          `cpu/item no-op ${fmt(noop.cpuMicros / EVENTS)} µs, relay + worker ${cpu.child ?? '?'} µs, writes + receiver ${cpu.self} µs, postgres ${cpu.postgres ?? '?'} µs; ` +
          `redis ${perItem(noop.redisMicros)} / ${cpu.server ?? '?'} µs, machine ${perItem(noop.machineMicros)} / ${cpu.machine ?? '?'} µs (no-op / delivery)`,
      );
      if (round < ROUNDS - 1) {
        await stopProcess(deliveries);
        deliveries = undefined;
      }
    }

    // Paced, on the last round's (warm) delivery process.
    const pacedIds: string[] = [];
    const interval = 1000 / PACED_RATE;
    const pacedStart = performance.now();
    const before = receiver.arrivals.size;
    for (let i = 0; i < PACED_EVENTS; i++) {
      const due = pacedStart + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const [id] = await outbox.emit([event()]);
      committed.set(id, performance.now());
      pacedIds.push(id);
    }
    await receiver.until(before + PACED_EVENTS);
    const pacedLatency = pacedIds.map((id) => receiver.arrivals.get(id)! - committed.get(id)!).sort((a, b) => a - b);
    const { verified, failures } = receiver.stats();

    const noopRate = median(rounds.map((r) => r.noop.perSecond));
    const deliveryRate = median(rounds.map((r) => r.deliveryRate));
    const ratio = deliveryRate / noopRate;
    const burstLatency = rounds.flatMap((r) => r.latency).sort((a, b) => a - b);
    const medianOf = (pick: (r: (typeof rounds)[number]) => number | null) => {
      const values = rounds.map(pick);
      return values.every((v) => v !== null) ? median(values as number[]) : null;
    };
    console.log(`  baseline  BullMQ no-op jobs/s            ${fmt(noopRate)}   (median of ${ROUNDS})`);
    console.log(`  webhooks  signed deliveries/s            ${fmt(deliveryRate)}   (median; outbox writes: ${fmt(median(rounds.map((r) => r.writeRate)))}/s)`);
    console.log(`  ratio     deliveries/s ÷ no-op jobs/s    ${fmt(ratio, 2)}   (medians' ratio, as bench:reads)`);
    console.log(`  burst     outbox→delivery p50 / p99      ${fmt(percentile(burstLatency, 50))} ms / ${fmt(percentile(burstLatency, 99))} ms   (includes the backlog of ${fmt(EVENTS)})`);
    console.log(
      `  paced     outbox→delivery p50 / p99      ${fmt(percentile(pacedLatency, 50))} ms / ${fmt(percentile(pacedLatency, 99))} ms   (${fmt(PACED_EVENTS)} events at ${fmt(PACED_RATE)}/s)`,
    );
    console.log(`  receiver  signatures verified (sample)   ${verified} ok, ${failures} failed`);
    const micros = (value: number | null) => (value === null ? '?' : `${fmt(value)} µs`);
    console.log(
      `  cpu/item  no-op job ${micros(medianOf((r) => Math.round(r.noop.cpuMicros / EVENTS)))}; delivery: relay + worker ${micros(medianOf((r) => r.cpu.child))}, ` +
        `outbox writes + receiver ${micros(medianOf((r) => r.cpu.self))}, postgres ${micros(medianOf((r) => r.cpu.postgres))}   (medians)`,
    );
    // Both sides saturate the machine, so the ratio is about what an item costs all of it: the
    // goal needs a delivery to cost the machine at most twice a no-op job.
    const noopMachine = medianOf((r) => (r.noop.machineMicros === null ? null : Math.round(r.noop.machineMicros / EVENTS)));
    const deliveryMachine = medianOf((r) => r.cpu.machine);
    console.log(
      `  machine   cpu/item, all processes         no-op job ${micros(noopMachine)} (Redis ${micros(medianOf((r) => (r.noop.redisMicros === null ? null : Math.round(r.noop.redisMicros / EVENTS))))}); ` +
        `delivery ${micros(deliveryMachine)} (Redis ${micros(medianOf((r) => r.cpu.server))})` +
        (noopMachine && deliveryMachine ? `; a delivery costs ${fmt(deliveryMachine / noopMachine, 2)} no-op jobs   (medians)` : ''),
    );
    recordFigure({
      bench: 'webhooks',
      name: 'signed webhook deliveries/s',
      value: deliveryRate,
      baseline: noopRate,
      baselineName: 'BullMQ no-op jobs/s',
      unit: '/s',
      goal: { ratio: 0.5, atLeast: true },
    });
    if (noopMachine && deliveryMachine) {
      recordFigure({
        bench: 'webhooks',
        name: "machine CPU per signed delivery (all processes), µs",
        value: deliveryMachine,
        baseline: noopMachine,
        baselineName: 'per BullMQ no-op job',
        unit: 'µs',
      });
    }
    if (failures > 0) process.exitCode = 1;
  } finally {
    if (deliveries) await stopProcess(deliveries);
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
