/**
 * Webhook delivery benchmark (issue #42): signed deliveries per second to a local receiver,
 * labflow's (every delivery durable in Postgres: outbox, delivery and attempt rows) ÷ a bare
 * sender's doing the least a delivery must (bench/webhooks/bare-sender.mjs: a BullMQ worker that,
 * one job per delivery, serialises the same envelope, signs it with the same Standard Webhooks
 * headers and POSTs it to the same receiver; nothing in Postgres), with the same concurrency on
 * the same Redis — and the time from outbox commit to first attempt (p50/p99), at a steady low
 * rate (idle) and under the burst. Goals: ≥ 0.75 of the bare sender's deliveries/s; idle
 * first-attempt p99 ≤ 100 ms.
 *
 *   npm run build && npm run bench:webhooks
 *                                   (settings from the environment, as for the services:
 *                                    DATABASE_URL of a migrated database, REDIS_URL, PHI_ENCRYPTION_KEY;
 *                                    the delivery process logs at LOG_LEVEL into BENCH_LOG, default /dev/null)
 *   BENCH_EVENTS=2000 BENCH_WARMUP=500 BENCH_ROUNDS=1 npm run bench:webhooks   (a quick run)
 *   BENCH_CHILD_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench:webhooks   (node flags for the delivery process)
 *   BENCH_IDLE_ONLY=1 BENCH_WARMUP=3000 BENCH_IDLE_SLOWEST=8 npm run bench:webhooks   (the idle part alone, ~30 s)
 *
 * Topology as in production, each side the same: the sender runs in a process of its own on
 * CPU BENCH_SENDER_CPU (0) — labflow's relay and delivery worker from dist/ on plain node
 * (bench/webhooks/delivery-process.mjs, what the worker's `relay` and `delivery` roles run, for the
 * bench's team only), or the bare sender — and the receiver in a process of its own on CPU
 * BENCH_RECEIVER_CPU (1) (bench/webhooks/receiver.mjs; `none` for either: not pinned). This
 * process is the producer of both: it commits the outbox events (as the API would), or adds the
 * bare sender's jobs, in batches of 100 as fast as they are taken.
 *
 * Phases: first one burst of BENCH_WARMUP that is not measured, so the delivery tables (and their
 * statistics) are a running system's, not the empty ones the last run left (main says why); then
 * BENCH_ROUNDS rounds (default 3), each (1) the bare sender, then (2) labflow, each in a fresh
 * process that first delivers BENCH_WARMUP (5,000) unmeasured, so both are warm (compiled), then
 * BENCH_EVENTS (20,000) measured, from the first write to the last arrival; the figures are the
 * medians of the rounds. Then (3) idle: events committed one per transaction at a steady rate
 * below capacity (first-attempt latency without a backlog). Its own org/team/endpoint/queues are
 * removed afterwards. The CPU time an item cost (each process, the Postgres backends and Redis
 * where /proc shows them, and the whole machine) is printed too: on a shared machine it moves
 * much less than the rates. Postgres runs with autovacuum on for the run (autovacuumForTheRun).
 */
import 'reflect-metadata';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { type ChildProcess, fork, spawn } from 'node:child_process';
import type { DataSource } from 'typeorm';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { PhiCipher } from '../../src/common/crypto';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { envelopeOf } from '../../src/events/catalogue';
import { workerConnection } from '../../src/events/delivery-queue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { median, onCpu, ROOT } from '../lib/load';
import { recordFigure } from '../lib/results';
import { type CpuMark, cpuMark, cpuPerItem } from '../lib/cpu';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
/** Items each side delivers unmeasured first, in the same process, so both are measured warm (V8 has compiled them). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5000);
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 500);
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 200);
/**
 * Rounds of (bare sender, labflow), each side in fresh processes; the figures are the medians.
 * One short run of each swung the ratio by a third on unchanged code (a moment of other work on
 * the machine moves either a lot).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * BENCH_IDLE_ONLY=1: the idle part alone (no rounds, no figures recorded), on a delivery process
 * warmed by BENCH_WARMUP deliveries; BENCH_IDLE_SLOWEST more lists the slowest latencies. For
 * comparing builds on the idle p99 in a minute instead of a full run.
 */
const IDLE_ONLY = process.env.BENCH_IDLE_ONLY === '1';
const IDLE_SLOWEST = Number(process.env.BENCH_IDLE_SLOWEST ?? 0);
const cpuSetting = (value: string | undefined, fallback: number) => (value === 'none' ? undefined : value ? Number(value) : fallback);
/** The senders' CPU and the receiver's (taskset; `none`: not pinned). */
const SENDER_CPU = cpuSetting(process.env.BENCH_SENDER_CPU, 0);
const RECEIVER_CPU = cpuSetting(process.env.BENCH_RECEIVER_CPU, 1);
/** Events (or jobs) written per transaction (or addBulk) by the producer, both sides. */
const BATCH = 100;
const run = randomUUID().slice(0, 8);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** The clock the receiver stamps arrivals with (epoch ms, sub-millisecond). */
const now = () => performance.timeOrigin + performance.now();

/** The receiver (receiver.mjs) in a process of its own on RECEIVER_CPU; arrival times by webhook-id. */
async function startReceiver(secret: string) {
  const [command, args] = onCpu(RECEIVER_CPU, process.execPath, [join(__dirname, 'receiver.mjs')]);
  // fork() gives the IPC channel; taskset execs node with it still open (NODE_CHANNEL_FD).
  const child =
    command === process.execPath
      ? fork(args[0], [], { cwd: ROOT, env: { ...process.env, BENCH_SECRET: secret }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      : spawn(command, args, { cwd: ROOT, env: { ...process.env, BENCH_SECRET: secret }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const arrivals = new Map<string, number>();
  let stats = { verified: 0, failures: 0 };
  /** Distinct webhook ids sent its way so far (every delivery of the bench's endpoint, every job of the bare sender). */
  let expected = 0;
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      const onExit = (code: number | null) => reject(new Error(`receiver.mjs exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const { port } = (await next('listening')) as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    pid: child.pid as number,
    /** `count` more deliveries are on their way. */
    expect(count: number) {
      expected += count;
    },
    /** Resolves once every delivery expected so far has arrived. */
    async drain() {
      const reached = next('reached');
      child.send({ type: 'until', count: expected });
      await reached;
    },
    /** The arrivals so far, by webhook-id. */
    async take() {
      const answer = next('arrivals');
      child.send({ type: 'take' });
      const { entries, verified, failures } = (await answer) as { entries: Array<[string, number]>; verified: number; failures: number };
      for (const [id, at] of entries) arrivals.set(id, at);
      stats = { verified, failures };
      return arrivals;
    },
    stats: () => stats,
    close: () => {
      child.disconnect();
      return new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A node script from this folder in a process of its own on SENDER_CPU, once it prints READY. */
async function startSender(script: string, env: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(join(ROOT, 'dist/src/events/event-processing.js'))) throw new Error('dist/ is missing: npm run build');
  const nodeArgs = script === 'delivery-process.mjs' && process.env.BENCH_CHILD_ARGS ? process.env.BENCH_CHILD_ARGS.split(' ') : [];
  const [command, args] = onCpu(SENDER_CPU, process.execPath, [...nodeArgs, join(__dirname, script)]);
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('READY')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** One side's measured burst: deliveries/s, commit-to-arrival latencies (ms), CPU µs per delivery. */
interface SideRound {
  perSecond: number;
  latency: number[];
  cpu: Awaited<ReturnType<typeof cpuPerItem>>;
}

/** CPU µs per delivery of the processes that do it: the sender, the producer, Postgres' backends and Redis (null: /proc cannot tell). */
function knownCpu(side: SideRound): number | null {
  const { child, self, postgres, server } = side.cpu;
  return child === null ? null : child + self + (postgres ?? 0) + (server ?? 0);
}

/** A producer of one side: writes `count` items (one transaction, or one addBulk) and returns their webhook ids. */
type Produce = (count: number) => Promise<string[]>;

/** `count` items produced BATCH at a time and delivered, not measured (a warm-up). */
async function deliverUnmeasured(receiver: Receiver, produce: Produce, count: number): Promise<void> {
  for (let i = 0; i < count; i += BATCH) receiver.expect((await produce(Math.min(BATCH, count - i))).length);
  await receiver.drain();
}

/**
 * A side's measured burst, its sender process already warm: EVENTS items produced BATCH at a time,
 * as fast as they are taken, from the first write to the last arrival.
 */
async function burst(
  receiver: Receiver,
  produce: Produce,
  mark: () => Promise<CpuMark>,
  cpu: (mark: CpuMark) => ReturnType<typeof cpuPerItem>,
): Promise<SideRound> {
  const committed = new Map<string, number>();
  const started = await mark();
  const startedAt = now();
  for (let i = 0; i < EVENTS; i += BATCH) {
    const ids = await produce(Math.min(BATCH, EVENTS - i));
    const at = now();
    for (const id of ids) committed.set(id, at);
    receiver.expect(ids.length);
  }
  await receiver.drain();
  const used = await cpu(started);
  const arrivals = await receiver.take();
  const arrived = (id: string) => arrivals.get(id) as number;
  const last = Math.max(...[...committed.keys()].map(arrived));
  return { perSecond: EVENTS / ((last - startedAt) / 1000), latency: [...committed].map(([id, at]) => arrived(id) - at), cpu: used };
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
  const receiver = await startReceiver(secret);
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
    url: receiver.url,
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
  const restoreAutovacuum = await autovacuumForTheRun(db);
  const [{ autovacuum }] = (await db.query('SHOW autovacuum')) as Array<{ autovacuum: string }>;

  // The Redis server's pid, to count its CPU (both sides use it) where it runs on this machine.
  const redis = new Redis(config.redisUrl);
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]) || undefined;
  await redis.quit();

  const concurrency = config.events.concurrency;
  console.log(
    `labflow webhook bench: ${fmt(EVENTS)} deliveries a round after ${fmt(WARMUP)} unmeasured, ${ROUNDS} rounds (bare sender, labflow), concurrency ${concurrency}, ` +
      `Redis ${new URL(config.redisUrl).host}; senders on CPU ${SENDER_CPU ?? 'any'}, receiver on CPU ${RECEIVER_CPU ?? 'any'}; Postgres autovacuum ${autovacuum}`,
  );
  console.log(
    `  load average at start: ${loadavg()
      .map((n) => fmt(n, 2))
      .join(' ')}`,
  );

  let seq = 0;
  const event = (): NewEvent => ({
    eventType: 'labtest.order.updated',
    teamId: team.id,
    environment: 'sandbox',
    userId: randomUUID(),
    clientUserId: `bench-${seq}`,
    data: { id: randomUUID(), status: 'completed', seq: seq++, results: { glucose: 92, unit: 'mg/dL' } },
  });
  /** labflow's producer: `count` events committed to the outbox in one transaction, as the API writes them. */
  const emit: Produce = (count) => outbox.emit(Array.from({ length: count }, () => event()));
  // The bare sender's producer: `count` jobs in one addBulk, each the envelope labflow's delivery
  // of the same event sends (envelopeOf), keyed by its webhook id.
  const bareQueue = new Queue(`bench-bare-sender-${run}`, { connection: workerConnection(config.redisUrl) });
  const enqueue: Produce = async (count) => {
    const jobs = Array.from({ length: count }, () => {
      const { eventType, userId, clientUserId, data } = event();
      const id = randomUUID();
      const envelope = envelopeOf({ event_type: eventType, team_id: team.id, user_id: userId as string, client_user_id: clientUserId as string }, data);
      return { name: 'deliver', data: { id, envelope }, opts: { jobId: id, removeOnComplete: true, removeOnFail: true } };
    });
    await bareQueue.addBulk(jobs);
    return jobs.map((job) => job.data.id);
  };

  const rounds: Array<{ bare: SideRound; labflow: SideRound }> = [];
  let sender: ChildProcess | undefined;
  const markOf = (child: ChildProcess) => () => cpuMark(db, child.pid as number, redisPid);
  const cpuSince = (mark: CpuMark) => cpuPerItem(db, mark, EVENTS);
  try {
    // The delivery tables as a running system's before the first VACUUM (ANALYZE): one burst, not
    // measured. The bench removes its rows when it ends, so it finds these tables holding dead
    // rows only; ANALYZE then records about 2 live rows on hundreds of pages, the claim and finish
    // statements plan a sequential scan of event_deliveries, and keep it while the burst grows the
    // table (autovacuum, off on CI machines, re-analyses within about a minute in production; a
    // running system's tables are not empty). Round 1 cost Postgres 1,168-1,438 µs per delivery
    // against 192-264 in rounds 2 and 3, whose ANALYZE saw the earlier rounds' rows (2026-11-26).
    sender = await startSender('delivery-process.mjs', { ...settings, BENCH_TEAM_ID: team.id });
    await deliverUnmeasured(receiver, emit, Math.max(WARMUP, 1000));
    if (!IDLE_ONLY) {
      await stopProcess(sender);
      sender = undefined;
    }
    for (let round = 0; round < (IDLE_ONLY ? 0 : ROUNDS); round += 1) {
      await vacuum();
      sender = await startSender('bare-sender.mjs', {
        BENCH_QUEUE: bareQueue.name,
        BENCH_CONCURRENCY: String(concurrency),
        BENCH_URL: receiver.url,
        BENCH_SECRET: secret,
      });
      if (WARMUP > 0) await deliverUnmeasured(receiver, enqueue, WARMUP);
      const bare = await burst(receiver, enqueue, markOf(sender), cpuSince);
      const bareExit = await stopProcess(sender);
      sender = undefined;
      if (bareExit !== 0) throw new Error(`bare-sender.mjs exited with ${bareExit}`);

      sender = await startSender('delivery-process.mjs', { ...settings, BENCH_TEAM_ID: team.id });
      if (WARMUP > 0) await deliverUnmeasured(receiver, emit, WARMUP);
      const labflow = await burst(receiver, emit, markOf(sender), cpuSince);
      rounds.push({ bare, labflow });
      const cpuLine = (side: SideRound) =>
        `sender ${side.cpu.child ?? '?'} µs, producer ${side.cpu.self} µs, postgres ${side.cpu.postgres ?? '?'} µs, redis ${side.cpu.server ?? '?'} µs, machine ${side.cpu.machine ?? '?'} µs`;
      console.log(
        `  round ${round + 1}: bare sender ${fmt(bare.perSecond)}/s, labflow ${fmt(labflow.perSecond)}/s (${fmt(labflow.perSecond / bare.perSecond, 2)}); ` +
          `cpu/delivery bare: ${cpuLine(bare)}; labflow: ${cpuLine(labflow)}`,
      );
      if (round < ROUNDS - 1) {
        await stopProcess(sender);
        sender = undefined;
      }
    }

    // Idle: on the last round's (warm) delivery process, one event a transaction at a steady rate.
    const pacedIds: string[] = [];
    const committed = new Map<string, number>();
    const interval = 1000 / PACED_RATE;
    const pacedStart = performance.now();
    for (let i = 0; i < PACED_EVENTS; i++) {
      const due = pacedStart + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const [id] = await emit(1);
      committed.set(id, now());
      pacedIds.push(id);
      receiver.expect(1);
    }
    await receiver.drain();
    const arrivals = await receiver.take();
    const pacedLatency = pacedIds.map((id) => (arrivals.get(id) as number) - (committed.get(id) as number)).sort((a, b) => a - b);
    const { verified, failures } = receiver.stats();
    if (IDLE_ONLY) {
      console.log(
        `  idle         outbox commit → first attempt p50 / p90 / p99 / max  ${[50, 90, 99, 100].map((p) => `${fmt(percentile(pacedLatency, p))} ms`).join(' / ')}   (${fmt(PACED_EVENTS)} events at ${fmt(PACED_RATE)}/s; load ${loadavg()
          .map((n) => fmt(n, 2))
          .join(' ')})`,
      );
      if (IDLE_SLOWEST > 0)
        console.log(
          `  slowest: ${pacedLatency
            .slice(-IDLE_SLOWEST)
            .map((ms) => fmt(ms, 1))
            .join(', ')} ms`,
        );
      if (failures > 0) process.exitCode = 1;
      return;
    }

    const bareRate = median(rounds.map((r) => r.bare.perSecond));
    const deliveryRate = median(rounds.map((r) => r.labflow.perSecond));
    const ratios = rounds.map((r) => r.labflow.perSecond / r.bare.perSecond).sort((a, b) => a - b);
    const burstLatency = rounds.flatMap((r) => r.labflow.latency).sort((a, b) => a - b);
    const medianOf = (pick: (r: (typeof rounds)[number]) => number | null) => {
      const values = rounds.map(pick);
      return values.every((v) => v !== null) ? median(values as number[]) : null;
    };
    const idleP99 = percentile(pacedLatency, 99);
    console.log(`  bare sender  signed deliveries/s (BullMQ, nothing in Postgres)   ${fmt(bareRate)}   (median of ${ROUNDS})`);
    console.log(`  labflow      signed deliveries/s (durable in Postgres)            ${fmt(deliveryRate)}   (median)`);
    console.log(
      `  ratio        labflow ÷ bare sender                                ${fmt(deliveryRate / bareRate, 2)}   (goal ≥ 0.75; medians' ratio; rounds ${ratios.map((r) => fmt(r, 2)).join(', ')})`,
    );
    console.log(
      `  idle         outbox commit → first attempt p50 / p99             ${fmt(percentile(pacedLatency, 50))} ms / ${fmt(idleP99)} ms   (goal p99 ≤ 100 ms; ${fmt(PACED_EVENTS)} events at ${fmt(PACED_RATE)}/s)`,
    );
    console.log(
      `  burst        outbox commit → delivery p50 / p99                  ${fmt(percentile(burstLatency, 50))} ms / ${fmt(percentile(burstLatency, 99))} ms   (includes the backlog of ${fmt(EVENTS)})`,
    );
    console.log(`  receiver     signatures verified (sample)                        ${verified} ok, ${failures} failed`);
    const micros = (value: number | null) => (value === null ? '?' : `${fmt(value)} µs`);
    const cpuOf = (side: 'bare' | 'labflow') =>
      `sender ${micros(medianOf((r) => r[side].cpu.child))}, producer ${micros(medianOf((r) => r[side].cpu.self))}, postgres ${micros(medianOf((r) => r[side].cpu.postgres))}, ` +
      `redis ${micros(medianOf((r) => r[side].cpu.server))}, machine ${micros(medianOf((r) => r[side].cpu.machine))}`;
    console.log(`  cpu/delivery bare: ${cpuOf('bare')}`);
    console.log(`               labflow: ${cpuOf('labflow')}   (medians)`);
    // On a machine busy with other work, rates follow the share of the CPUs each side's processes
    // get, and labflow's work is spread over more processes (its Postgres backends) than the bare
    // sender's: the CPU a delivery costs the processes that do it is the steadier comparison.
    const bareCpu = medianOf((r) => knownCpu(r.bare));
    const labflowCpu = medianOf((r) => knownCpu(r.labflow));
    if (bareCpu !== null && labflowCpu !== null) {
      console.log(
        `  cpu/delivery of the processes doing it (sender, producer, Postgres, Redis): bare ${micros(bareCpu)}, labflow ${micros(labflowCpu)}: ` +
          `per CPU-second ${fmt(bareCpu / labflowCpu, 2)}   (medians; rounds ${rounds.map((r) => fmt((knownCpu(r.bare) ?? NaN) / (knownCpu(r.labflow) ?? NaN), 2)).join(', ')})`,
      );
    }
    recordFigure({
      bench: 'webhooks',
      name: 'signed webhook deliveries/s',
      value: deliveryRate,
      baseline: bareRate,
      baselineName: 'a bare BullMQ sender: signed POSTs, nothing in Postgres',
      unit: '/s',
      goal: { ratio: 0.75, atLeast: true },
    });
    recordFigure({
      bench: 'webhooks',
      name: 'idle first-attempt p99 (outbox commit to arrival)',
      value: idleP99,
      baseline: 100,
      baselineName: 'the 100 ms goal',
      unit: 'ms',
      goal: { ratio: 1, atLeast: false },
    });
    const bareMachine = medianOf((r) => r.bare.cpu.machine);
    const deliveryMachine = medianOf((r) => r.labflow.cpu.machine);
    if (bareMachine && deliveryMachine) {
      recordFigure({
        bench: 'webhooks',
        name: 'machine CPU per signed delivery (all processes), µs',
        value: deliveryMachine,
        baseline: bareMachine,
        baselineName: 'per bare-sender delivery',
        unit: 'µs',
      });
    }
    if (failures > 0) process.exitCode = 1;
  } finally {
    if (sender) await stopProcess(sender);
    const queue = new Queue(config.events.queueName, { connection: workerConnection(config.redisUrl) });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await bareQueue.obliterate({ force: true }).catch(() => undefined);
    await bareQueue.close();
    await db.query(`DELETE FROM orgs WHERE id = $1`, [org.id]);
    await receiver.close();
    await restoreAutovacuum();
    await db.destroy();
  }
}

/**
 * Issue #42 measures with autovacuum on, as production runs. CI machines turn it off server-wide
 * (a conf.d file), so for the bench's run it is switched on with ALTER SYSTEM (a reload, no
 * restart) and the override removed at the end; BENCH_AUTOVACUUM=keep leaves the server as it is.
 * Returns what puts the setting back.
 */
async function autovacuumForTheRun(db: DataSource): Promise<() => Promise<void>> {
  const [{ autovacuum }] = (await db.query('SHOW autovacuum')) as Array<{ autovacuum: string }>;
  if (autovacuum === 'on' || process.env.BENCH_AUTOVACUUM === 'keep') return async () => undefined;
  await db.query('ALTER SYSTEM SET autovacuum = on');
  await db.query('SELECT pg_reload_conf()');
  // The reload is asynchronous: wait until new sessions see it.
  for (let i = 0; i < 50; i++) {
    const [{ autovacuum: now }] = (await db.query('SHOW autovacuum')) as Array<{ autovacuum: string }>;
    if (now === 'on') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return async () => {
    await db.query('ALTER SYSTEM RESET autovacuum');
    await db.query('SELECT pg_reload_conf()');
  };
}

main().then(
  // Redis connections of the queues would keep the process alive.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
