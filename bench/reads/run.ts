/**
 * Reads against their floor (issues #15, #42): req/s and p99 of labflow's read routes, the real API
 * process with its production settings (request log, metrics, node flags), ÷ a bare Fastify + pg
 * process answering the same bytes with the least work (bench/reads/bare-server.mjs: the very
 * statement each route runs with the same parameters, the same sealed columns opened with the same
 * cipher, the same JSON; no auth, audit, logging or framework). Before measuring, each route's
 * body from both is compared byte for byte (else after sorting keys): the bench fails when they
 * differ. Each server runs on CPU BENCH_SERVER_CPU (0), autocannon in a process of its own on
 * BENCH_GENERATOR_CPU (1) at 64 connections, the same for both sides (`none`: not pinned).
 * Goal: ≥ 0.75 of the floor's req/s, p99 ≤ 1.5× the floor's p99.
 * The servers take turns in BENCH_SLICES pairs of BENCH_SECONDS slices (comparePaired in
 * bench/lib/load.ts says why): req/s are the means over the slices, p99 the medians of the
 * slices' p99; the pairs' ratios are printed for their spread, with the CPU a request cost.
 *
 *   npm run bench:reads   (settings from the environment as for the services: DATABASE_URL of a
 *                          migrated database, PHI_ENCRYPTION_KEY, REDIS_URL, TEMPORAL_ADDRESS,
 *                          TEMPORAL_NAMESPACE; BENCH_CONNECTIONS (64), BENCH_SECONDS (2,
 *                          per slice), BENCH_SLICES (16), BENCH_CPU_PROFILE=<dir> writes the API's --cpu-prof (the floor's in <dir>/floor),
 *                          BENCH_ROUTES=user,order,users,orders: only those routes; BENCH_API_ARGS: more
 *                          node flags for the API, e.g. --perf-basic-prof for perf record)
 *
 * No worker runs: the one order's workflow waits on a task queue of its own and is terminated at
 * the end; the bench's org (with its users and order) is deleted.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { dataSourceOptions } from '../../src/db/data-source';
import {
  autocannon,
  BENCH_CPUS,
  benchOrder,
  benchPost,
  benchTenant,
  comparePaired,
  fmt,
  median,
  middleHalf,
  type PairedSide,
  PRODUCTION_API_ENV,
  PRODUCTION_API_NODE_ARGS,
  runBenchMain,
  type ServerProcess,
  startServer,
  terminateBenchOrders,
} from '../lib/load';
import { recordFigure } from '../lib/results';
import { orderPageStatement, orderViewStatement } from '../../src/orders/order-read-model';
import { LIVE_USER, LIVE_USERS_PAGE } from '../../src/users/user-read-model';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 16);
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE;
/** Only these routes (comma-separated: user, order, users, orders), e.g. to profile one; default all. */
const ROUTES = process.env.BENCH_ROUTES ? process.env.BENCH_ROUTES.split(',') : null;

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-reads-'));
  const tenant = await benchTenant(db, 'reads');
  const taskQueue = `bench-reads-${randomUUID()}`;
  const servers: ServerProcess[] = [];
  const orderIds: string[] = [];
  try {
    const api = await startServer({
      name: 'the API',
      script: 'dist/src/main.js',
      env: { ...PRODUCTION_API_ENV, TEMPORAL_TASK_QUEUE: taskQueue },
      portVariable: 'API_PORT',
      logFile: join(logDir, 'api.log'),
      readyPath: '/health/ready',
      cpu: BENCH_CPUS.server,
      nodeArgs: [
        ...PRODUCTION_API_NODE_ARGS,
        ...(CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE}`] : []),
        ...(process.env.BENCH_API_ARGS ?? '').split(' ').filter(Boolean),
      ],
    });
    servers.push(api);
    // The floor runs the statements the routes run, so both sides do the same read (issue #15),
    // and answers the same bytes (issue #42; checked below).
    const ordersPage = orderPageStatement(
      db,
      { teamId: tenant.teamId, environment: tenant.environment },
      { orderBy: 'created_at', direction: 'DESC' },
      { offset: 0, limit: 50 },
    );
    const statements = { user: LIVE_USER, order: orderViewStatement(db), users: LIVE_USERS_PAGE, orders: { name: ordersPage.name, text: ordersPage.text } };
    const bare = await startServer({
      name: 'the bare server',
      script: 'bench/reads/bare-server.mjs',
      cpu: BENCH_CPUS.server,
      nodeArgs: [
        ...(CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROFILE, 'floor')}`] : []),
        ...(process.env.BENCH_FLOOR_ARGS ?? '').split(' ').filter(Boolean),
      ],
      env: { ...PRODUCTION_API_ENV, BENCH_TEAM_ID: tenant.teamId, BENCH_ENVIRONMENT: tenant.environment, BENCH_STATEMENTS: JSON.stringify(statements) },
      portVariable: 'BARE_PORT',
      logFile: join(logDir, 'bare.log'),
      readyPath: '/health/ready',
    });
    servers.push(bare);

    // 50 users (one page of the list), each with an order (one page of the order list).
    const userIds: string[] = [];
    for (let i = 0; i < 50; i += 1)
      userIds.push((await benchPost(`${api.url}/v2/user`, tenant.key, { client_user_id: `bench-${randomUUID()}` })).user_id as string);
    for (const userId of userIds) orderIds.push(await benchOrder(api.url, tenant.key, userId));
    const orderId = orderIds[0];

    // Statistics as autovacuum would keep them in production: a Postgres with autovacuum off (as on
    // CI machines) never analyses the tables the tests and the other benches filled, and the
    // planner then guesses (bitmap scans where an index scan is cheaper, the wrong index).
    await db.query('ANALYZE users, orders, order_events, order_transactions, appointments, lab_tests, phi_access_log');

    const routes = [
      { key: 'user', name: 'GET /v2/user/{id}', path: `/v2/user/${userIds[0]}` },
      { key: 'order', name: 'GET /v3/order/{id}', path: `/v3/order/${orderId}` },
      { key: 'users', name: 'GET /v2/user (a page of 50)', path: '/v2/user?limit=50' },
      { key: 'orders', name: 'GET /v3/orders (a page of 50)', path: '/v3/orders?size=50' },
    ].filter((route) => ROUTES === null || ROUTES.includes(route.key));
    const headers = { 'x-service-api-key': tenant.key };
    for (const route of routes) console.log(`  ${route.name}: ${await sameBody(api, bare, route.path, headers)}`);

    const cpus = `servers on CPU ${BENCH_CPUS.server ?? 'any'}, load generator on CPU ${BENCH_CPUS.generator ?? 'any'}`;
    console.log(
      `reads bench: the API (production settings) ÷ the same-bytes floor, ${CONNECTIONS} connections, ${SLICES} pairs of ${SECONDS} s slices per route, interleaved; ${cpus}`,
    );
    console.log(
      `  (load average at start: ${loadavg()
        .map((load) => fmt(load, 1))
        .join(' ')})`,
    );
    for (const route of routes) {
      for (const server of servers) await autocannon(`${server.url}${route.path}`, headers, 3, CONNECTIONS, undefined, BENCH_CPUS.generator);
      const side = (server: ServerProcess): PairedSide => ({ server, path: route.path, headers });
      const result = await comparePaired([side(api), side(bare)], {
        slices: SLICES,
        seconds: SECONDS,
        connections: CONNECTIONS,
        db,
        generatorCpu: BENCH_CPUS.generator,
      });
      const [ours, floor] = [0, 1].map((index) => ({ perSecond: result.perSecond[index], p99: result.p99[index], cpu: result.cpuMicros[index] }));
      // Where a request's CPU goes, both servers. Under this load each server's one event loop is
      // busy 80-95% of the time (req/s × server µs), so req/s ≈ 1 s ÷ the server's CPU per
      // request, and the req/s ratio ≈ bare server µs ÷ ours; Postgres and the generator take
      // the other core, and cost more per request the fewer requests each wake-up brings them.
      const cpuOf = (cpu: typeof ours.cpu) => {
        const show = (value: number | null) => (value === null ? '?' : fmt(value));
        return `server ${show(cpu.server)}, Postgres ${show(cpu.postgres)}, load generator ${show(cpu.generator)}`;
      };
      // Requests per CPU-second of each server, ours ÷ bare: the CPU a request cost them, inverted.
      const cpuRatio = ours.cpu.server !== null && floor.cpu.server !== null ? `   per CPU-second ${fmt(floor.cpu.server / ours.cpu.server, 2)}` : '';
      console.log(
        `  ${route.name.padEnd(28)} ${fmt(ours.perSecond).padStart(6)} ÷ ${fmt(floor.perSecond).padStart(6)} req/s = ${fmt(ours.perSecond / floor.perSecond, 2)} (goal ≥ 0.75)` +
          `   p99 ${fmt(ours.p99)} ÷ ${fmt(floor.p99)} ms = ${fmt(ours.p99 / Math.max(floor.p99, 1), 2)}× (goal ≤ 1.5×)${cpuRatio}`,
      );
      console.log(
        `      pairs: median ${fmt(median(result.pairRatios), 2)}, middle half ${middleHalf(result.pairRatios)}, all ${fmt(result.pairRatios[0], 2)}–${fmt(result.pairRatios[result.pairRatios.length - 1], 2)}`,
      );
      console.log(`      CPU µs per request: ours ${cpuOf(ours.cpu)}; bare ${cpuOf(floor.cpu)}`);
      const floorName = 'same-bytes floor';
      recordFigure({
        bench: 'reads',
        name: `${route.name} req/s`,
        value: ours.perSecond,
        baseline: floor.perSecond,
        baselineName: floorName,
        unit: 'req/s',
        goal: { ratio: 0.75, atLeast: true },
      });
      recordFigure({
        bench: 'reads',
        name: `${route.name} p99`,
        value: ours.p99,
        baseline: floor.p99,
        baselineName: floorName,
        unit: 'ms',
        goal: { ratio: 1.5, atLeast: false },
      });
    }
  } finally {
    for (const server of servers) await server.stop();
    await terminateBenchOrders(config.temporal, orderIds);
    await tenant.remove();
    await db.destroy();
    if (process.env.BENCH_KEEP_LOGS === '1') console.log(`  logs kept in ${logDir}`);
    else rmSync(logDir, { recursive: true, force: true });
  }
}

/**
 * Whether the API and the floor answer `path` with the same body: byte for byte, else the same
 * JSON once keys are sorted; throws, showing where they part, when neither. A body carries a
 * freshly signed requisition link whose expiry is in whole seconds, so a pair of answers that
 * straddles a second differs there: asked again (a few times) before it counts as different.
 */
async function sameBody(api: ServerProcess, floor: ServerProcess, path: string, headers: Record<string, string>): Promise<string> {
  const body = async (server: ServerProcess) => {
    const response = await fetch(`${server.url}${path}`, { headers });
    if (response.status !== 200) throw new Error(`${server.url}${path} answered ${response.status}`);
    return response.text();
  };
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  let ours = '';
  let theirs = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    [ours, theirs] = await Promise.all([body(api), body(floor)]);
    if (ours === theirs) return `same ${ours.length} bytes from both`;
    if (JSON.stringify(sorted(JSON.parse(ours))) === JSON.stringify(sorted(JSON.parse(theirs))))
      return `same JSON from both once keys are sorted (${ours.length} bytes)`;
  }
  let at = 0;
  while (at < ours.length && ours[at] === theirs[at]) at += 1;
  throw new Error(
    `${path}: the floor's body differs from the API's at character ${at}:\n  API:   …${ours.slice(Math.max(0, at - 80), at + 80)}\n  floor: …${theirs.slice(Math.max(0, at - 80), at + 80)}`,
  );
}

runBenchMain(main);
