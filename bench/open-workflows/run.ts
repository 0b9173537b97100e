/**
 * Open workflows are cheap (issue #15 item 5): BENCH_OPEN_ORDERS (10,000) sandbox walk-in orders
 * left open (each workflow waits at appointment_pending for the patient to book, as real ones do
 * for days; a test kit no longer fits: its workflow ships the kit at once and waits at
 * transit_customer, where a cancel is refused before the workflow is asked) on ONE worker process
 * (dist/src/worker.js, role temporal, production settings), then:
 *
 *   - the worker's resident memory (VmRSS) with all of them open ÷ the same worker with only the
 *     baseline orders open (goal: under 1 GiB absolute);
 *   - how fast an order still answers a message: `POST /v3/order/{id}/cancel` (a workflow Update:
 *     the answer comes from the workflow itself) on BENCH_SAMPLE (200) orders picked at random
 *     among all those open (most of them evicted from the sticky cache, so each is replayed from
 *     its history first), p50/p99 ÷ the same on orders cancelled right after they went idle
 *     while few were open (baseline, in the cache).
 *
 *   npm run bench:open-workflows   (settings from the environment as for the services; the worker's
 *                                   sizing from TEMPORAL_MAX_CACHED_WORKFLOWS, _CONCURRENT_* as in
 *                                   production; BENCH_OPEN_ORDERS, BENCH_SAMPLE, BENCH_CREATE_CONCURRENCY,
 *                                   BENCH_IDLE_STALL_MS)
 *
 * The API and the worker run on a task queue of their own; at the end every workflow of that
 * queue is terminated by one batch operation and the bench's org (its users and orders) deleted.
 */
import 'reflect-metadata';
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { dataSourceOptions } from '../../src/db/data-source';
import { benchTenant, fmt, runBenchMain, type ServerProcess, startApiAndWorker, terminateTaskQueue } from '../lib/load';
import { recordFigure } from '../lib/results';

const OPEN = Number(process.env.BENCH_OPEN_ORDERS ?? 10_000);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 200);
const BASELINE = Math.min(SAMPLE, 100);
const CREATE_CONCURRENCY = Number(process.env.BENCH_CREATE_CONCURRENCY ?? 32);
const GIB = 1024 ** 3;
/**
 * The bench gives up waiting for the orders to go idle when none went idle for this long: a stall,
 * not a slow machine (a 2-core machine takes ~14 minutes for 10,000; a fixed 600 s deadline failed
 * there while every order was still moving).
 */
const IDLE_STALL_MS = Number(process.env.BENCH_IDLE_STALL_MS ?? 120_000);
/** The seeded walk-in metabolic panel (src/db/migrations/1763790002001-lab-catalog-seed.ts). */
const WALK_IN_CMP = '1ab7e570-0000-4000-8000-000000000003';
/** Where a walk-in order waits for the patient to book: its workflow idle, its reminders' timers set. */
const IDLE_STATUS = 'appointment_pending';

/** Resident memory of a process, bytes (VmRSS of /proc/<pid>/status). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  if (!line) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(line.replace(/\D+/g, '')) * 1024;
}

const mib = (bytes: number) => `${fmt(bytes / 1024 ** 2)} MiB`;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-open-'));
  const tenant = await benchTenant(db, 'open-workflows');
  const taskQueue = `bench-open-${randomUUID().slice(0, 8)}`;
  const servers: ServerProcess[] = [];
  const connection = await Connection.connect(config.temporal.connection);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  try {
    const env = { NODE_ENV: 'production', TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'warn', RECONCILER_INTERVAL: '1h' };
    const { api, worker } = await startApiAndWorker({ env, logDir, servers });
    const workerPid = worker.child.pid as number;
    const headers = { 'x-service-api-key': tenant.key, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, any>;
    };
    const userId = (await post('/v2/user', { client_user_id: `bench-${taskQueue}` })).user_id as string;
    const orderBody = {
      user_id: userId,
      lab_test_id: WALK_IN_CMP,
      patient_details: {
        first_name: 'Bench',
        last_name: 'Open',
        dob: '1980-01-01',
        gender: 'female',
        phone_number: '+14155550100',
        email: 'bench@example.com',
      },
      patient_address: {
        receiver_name: 'Bench Open',
        first_line: '1 Market St',
        city: 'San Francisco',
        state: 'CA',
        zip: '94105',
        country: 'US',
        phone_number: '+14155550100',
      },
    };
    const orderIds: string[] = [];
    const createOrders = async (count: number) => {
      const created: string[] = [];
      let done = 0;
      let lastReport = Date.now();
      await pool(Array.from({ length: count }), CREATE_CONCURRENCY, async () => {
        created.push(((await post('/v3/order', orderBody)).order as { id: string }).id);
        done += 1;
        if (Date.now() - lastReport > 15_000) {
          lastReport = Date.now();
          console.log(`  ... ${fmt(done)} of ${fmt(count)} orders created`);
        }
      });
      orderIds.push(...created);
      return created;
    };
    /** Waits until every order of the team has reached IDLE_STATUS: its workflow is idle, waiting for a booking. */
    const waitIdle = async () => {
      let fewestBusy = Infinity;
      let progressAt = Date.now();
      let lastReport = Date.now();
      for (;;) {
        const [{ busy }] = await db.query(
          `SELECT count(*)::int AS busy FROM orders WHERE team_id = $1 AND low_level_status <> $2 AND low_level_status <> 'cancelled'`,
          [tenant.teamId, IDLE_STATUS],
        );
        if (busy === 0) return;
        if (busy < fewestBusy) {
          fewestBusy = busy;
          progressAt = Date.now();
        }
        if (Date.now() - progressAt > IDLE_STALL_MS) {
          // Fail, not hang: `npm run bench` runs the benches after this one.
          const statuses = await db.query(`SELECT low_level_status, count(*)::int AS n FROM orders WHERE team_id = $1 GROUP BY 1`, [tenant.teamId]);
          throw new Error(`${busy} orders not at ${IDLE_STATUS}, none went idle for ${IDLE_STALL_MS / 1000} s: ${JSON.stringify(statuses)}`);
        }
        if (Date.now() - lastReport > 30_000) {
          lastReport = Date.now();
          console.log(`  ... ${fmt(busy)} orders not yet at ${IDLE_STATUS}`);
        }
        await sleep(1000);
      }
    };
    const cancelLatencies = async (ids: string[]) => {
      const latencies: number[] = [];
      await pool(ids, 8, async (id) => {
        const started = performance.now();
        const reply = await post(`/v3/order/${id}/cancel`, {});
        latencies.push(performance.now() - started);
        if (reply.order?.status !== 'cancelled') throw new Error(`cancel of ${id}: ${JSON.stringify(reply).slice(0, 300)}`);
      });
      return latencies.sort((a, b) => a - b);
    };

    console.log(
      `open workflows bench: ${fmt(OPEN)} open walk-in orders on one worker (task queue ${taskQueue}); load average ${loadavg()
        .map((load) => fmt(load, 1))
        .join(' ')}`,
    );
    // Baseline: few open, the ones cancelled still in the sticky cache.
    const baselineIds = await createOrders(BASELINE * 2);
    await waitIdle();
    const rssFew = rssOf(workerPid);
    const baseline = await cancelLatencies(baselineIds.slice(0, BASELINE));

    const started = performance.now();
    await createOrders(OPEN - BASELINE * 2);
    await waitIdle();
    const createSeconds = (performance.now() - started) / 1000;
    const [{ open }] = await db.query(`SELECT count(*)::int AS open FROM orders WHERE team_id = $1 AND low_level_status = $2`, [tenant.teamId, IDLE_STATUS]);
    const rssMany = rssOf(workerPid);
    // A random sample of the open ones, most of them long evicted from the worker's cache.
    const candidates = orderIds.slice(BASELINE);
    for (let i = candidates.length - 1; i > 0; i -= 1) {
      const j = Math.floor(Math.random() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
    }
    const many = await cancelLatencies(candidates.slice(0, SAMPLE));
    const rssAfter = rssOf(workerPid);

    const cached = config.temporal.worker.maxCachedWorkflows;
    console.log(
      `  ${fmt(open)} workflows open (created and idle in ${fmt(createSeconds)} s); worker: maxCachedWorkflows ${fmt(cached)}, ${config.temporal.worker.maxConcurrentWorkflowTasks} workflow task slots`,
    );
    console.log(
      `  worker RSS    ${BASELINE * 2 - BASELINE} open: ${mib(rssFew)}   ${fmt(open)} open: ${mib(rssMany)}   after ${SAMPLE} replays and cancels: ${mib(rssAfter)}   (goal < 1,024 MiB: ${Math.max(rssMany, rssAfter) < GIB ? 'met' : 'NOT met'})`,
    );
    console.log(
      `  cancel (an Update answered by the workflow)   in cache, few open: p50 ${fmt(quantile(baseline, 0.5))} ms  p99 ${fmt(quantile(baseline, 0.99))} ms`,
    );
    console.log(
      `                                                random among ${fmt(open)}: p50 ${fmt(quantile(many, 0.5))} ms  p99 ${fmt(quantile(many, 0.99))} ms  max ${fmt(many[many.length - 1])} ms`,
    );
    recordFigure({
      bench: 'open-workflows',
      name: `worker RSS, ${fmt(open)} open orders`,
      value: Math.max(rssMany, rssAfter) / 1024 ** 2,
      baseline: 1024,
      baselineName: 'the 1 GiB budget',
      unit: 'MiB',
      goal: { ratio: 1, atLeast: false },
    });
    recordFigure({
      bench: 'open-workflows',
      name: `cancel p99 among ${fmt(open)} open`,
      value: quantile(many, 0.99),
      baseline: quantile(baseline, 0.99),
      baselineName: 'in cache, few open',
      unit: 'ms',
    });
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await terminateTaskQueue(client, config.temporal.namespace, taskQueue);
    await connection.close();
    await tenant.remove();
    await db.destroy();
    rmSync(logDir, { recursive: true, force: true });
  }
}

runBenchMain(main);
