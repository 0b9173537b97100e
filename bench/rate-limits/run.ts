/**
 * What the rate limits cost (issue #39: "the benches' figures unchanged with limits on"): req/s and
 * p99 of the read routes of bench:reads, the API with its default limits (every request counted
 * in Redis against the key's budget) ÷ the same API with every limit off (RATE_LIMIT_*=off: the
 * guard answers at once). Both are real API processes with production settings, on CPU
 * BENCH_SERVER_CPU (0), autocannon on BENCH_GENERATOR_CPU (1), taking turns in BENCH_SLICES pairs
 * of BENCH_SECONDS slices (comparePaired), so a busy machine slows both alike. Goal: a ratio of
 * about 1 (the spread of the pairs says how much is noise). Each slice must answer only 2xx: a
 * 429 under the default limits fails the bench.
 *
 *   npm run bench:rate-limits   (settings from the environment as for bench:reads; BENCH_CONNECTIONS
 *                                (64), BENCH_SECONDS (2, per slice), BENCH_SLICES (6),
 *                                BENCH_ROUTES=user,order: only those routes)
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
  PRODUCTION_API_ENV,
  PRODUCTION_API_NODE_ARGS,
  runBenchMain,
  type ServerProcess,
  startServer,
  terminateBenchOrders,
} from '../lib/load';
import { recordFigure } from '../lib/results';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const ROUTES = process.env.BENCH_ROUTES ? process.env.BENCH_ROUTES.split(',') : null;

/** Every budget off: what "limits off" means (docs/rate-limits.md: `off` turns a budget off). */
const LIMITS_OFF = Object.fromEntries(
  [
    'RATE_LIMIT_API_KEY',
    'RATE_LIMIT_INVALID_KEYS',
    'RATE_LIMIT_MANAGEMENT_KEY',
    'RATE_LIMIT_PORTAL',
    'RATE_LIMIT_PORTAL_FAILURES',
    'RATE_LIMIT_LINK',
    'RATE_LIMIT_LINK_FAILURES',
    'RATE_LIMIT_PARTNER_WEBHOOKS',
    'RATE_LIMIT_PARTNER_WEBHOOK_FAILURES',
  ].map((name) => [name, 'off']),
);

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-rate-limits-'));
  const tenant = await benchTenant(db, 'rate-limits');
  const taskQueue = `bench-rate-limits-${randomUUID()}`;
  const servers: ServerProcess[] = [];
  const orderIds: string[] = [];
  try {
    // Limits as the settings leave them (the defaults, unless the environment sets RATE_LIMIT_*).
    const defaults = Object.fromEntries(
      Object.keys(LIMITS_OFF)
        .map((name) => [name, process.env[name] ?? ''])
        .filter(([, value]) => value !== ''),
    );
    const start = (name: string, limits: Record<string, string>) =>
      startServer({
        name,
        script: 'dist/src/main.js',
        env: { ...PRODUCTION_API_ENV, TEMPORAL_TASK_QUEUE: taskQueue, ...limits },
        portVariable: 'API_PORT',
        logFile: join(logDir, `${name.replace(/\W+/g, '-')}.log`),
        readyPath: '/health/ready',
        cpu: BENCH_CPUS.server,
        nodeArgs: [...PRODUCTION_API_NODE_ARGS],
      });
    const limited = await start('the API, limits on', defaults);
    servers.push(limited);
    const unlimited = await start('the API, limits off', LIMITS_OFF);
    servers.push(unlimited);

    const userId = (await benchPost(`${limited.url}/v2/user`, tenant.key, { client_user_id: `bench-${randomUUID()}` })).user_id as string;
    orderIds.push(await benchOrder(limited.url, tenant.key, userId));
    await db.query('ANALYZE users, orders, order_events, order_transactions, appointments, lab_tests, phi_access_log');

    const routes = [
      { key: 'user', name: 'GET /v2/user/{id}', path: `/v2/user/${userId}` },
      { key: 'order', name: 'GET /v3/order/{id}', path: `/v3/order/${orderIds[0]}` },
    ].filter((route) => ROUTES === null || ROUTES.includes(route.key));
    const headers = { 'x-service-api-key': tenant.key };
    const limitedAnswer = await fetch(`${limited.url}${routes[0].path}`, { headers });
    const unlimitedAnswer = await fetch(`${unlimited.url}${routes[0].path}`, { headers });
    // The switch works: the limited API counts (its answers carry the budget), the other does not.
    console.log(
      `  limits on: X-RateLimit-Limit ${limitedAnswer.headers.get('x-ratelimit-limit') ?? 'absent'}; limits off: ${unlimitedAnswer.headers.get('x-ratelimit-limit') ?? 'absent'}`,
    );
    if (!limitedAnswer.headers.get('x-ratelimit-limit') || unlimitedAnswer.headers.get('x-ratelimit-limit'))
      throw new Error('the limits are not on and off as asked');

    const cpus = `servers on CPU ${BENCH_CPUS.server ?? 'any'}, load generator on CPU ${BENCH_CPUS.generator ?? 'any'}`;
    console.log(
      `rate-limits bench: the API with its limits on ÷ off, ${CONNECTIONS} connections, ${SLICES} pairs of ${SECONDS} s slices per route, interleaved; ${cpus}`,
    );
    console.log(
      `  (load average at start: ${loadavg()
        .map((load) => fmt(load, 1))
        .join(' ')})`,
    );
    for (const route of routes) {
      for (const server of servers) await autocannon(`${server.url}${route.path}`, headers, 2, CONNECTIONS, undefined, BENCH_CPUS.generator);
      const result = await comparePaired(
        [
          { server: limited, path: route.path, headers },
          { server: unlimited, path: route.path, headers },
        ],
        { slices: SLICES, seconds: SECONDS, connections: CONNECTIONS, db, generatorCpu: BENCH_CPUS.generator },
      );
      const [on, off] = [0, 1].map((index) => ({ perSecond: result.perSecond[index], p99: result.p99[index], cpu: result.cpuMicros[index].server }));
      const cpu = on.cpu !== null && off.cpu !== null ? `   server CPU µs per request ${fmt(on.cpu)} ÷ ${fmt(off.cpu)}` : '';
      console.log(
        `  ${route.name.padEnd(20)} ${fmt(on.perSecond).padStart(6)} ÷ ${fmt(off.perSecond).padStart(6)} req/s = ${fmt(on.perSecond / off.perSecond, 2)}` +
          `   p99 ${fmt(on.p99)} ÷ ${fmt(off.p99)} ms = ${fmt(on.p99 / Math.max(off.p99, 1), 2)}×${cpu}`,
      );
      console.log(
        `      pairs: median ${fmt(median(result.pairRatios), 2)}, middle half ${middleHalf(result.pairRatios)}, all ${fmt(result.pairRatios[0], 2)}–${fmt(result.pairRatios[result.pairRatios.length - 1], 2)}`,
      );
      recordFigure({
        bench: 'rate-limits',
        name: `${route.name} req/s, limits on`,
        value: on.perSecond,
        baseline: off.perSecond,
        baselineName: 'limits off',
        unit: 'req/s',
        goal: { ratio: 0.9, atLeast: true },
      });
    }
  } finally {
    for (const server of servers) await server.stop();
    await terminateBenchOrders(config.temporal, orderIds);
    await tenant.remove();
    await db.destroy();
    rmSync(logDir, { recursive: true, force: true });
  }
}

runBenchMain(main);
