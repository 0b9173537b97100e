/**
 * What Nest's per-request pipeline costs a read (docs/performance.md, "Nest's request pipeline"):
 * req/s and the API's CPU per request of `GET /v2/user/{id}` and `GET /v3/order/{id}` through
 * their Nest controllers ÷ the same service method called from a plain Fastify route in the same
 * API process, behind the same hooks and the same key guard (bench/framework/api-with-plain-routes.mjs).
 * No goal: it measures how much of the reads goal (bench:reads) the framework's router holds.
 * The routes take turns in BENCH_SLICES pairs of BENCH_SECONDS slices (comparePaired in
 * bench/lib/load.ts says why), loaded by autocannon from a process of its own.
 *
 *   npm run bench:framework   (settings from the environment as for the services, as bench:reads;
 *                              BENCH_CONNECTIONS (64), BENCH_SECONDS (2), BENCH_SLICES (10))
 *
 * No worker runs: the order's workflow waits on a task queue of its own and is terminated at the
 * end; the bench's org is deleted.
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
  startServer,
  terminateBenchOrders,
} from '../lib/load';
import { recordFigure } from '../lib/results';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 10);

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-framework-'));
  const tenant = await benchTenant(db, 'framework');
  let orderId: string | null = null;
  const api = await startServer({
    name: 'the API with plain routes',
    script: 'bench/framework/api-with-plain-routes.mjs',
    env: { ...PRODUCTION_API_ENV, TEMPORAL_TASK_QUEUE: `bench-framework-${randomUUID()}` },
    portVariable: 'API_PORT',
    logFile: join(logDir, 'api.log'),
    readyPath: '/health/ready',
    nodeArgs: [...PRODUCTION_API_NODE_ARGS],
  });
  try {
    const userId = (await benchPost(`${api.url}/v2/user`, tenant.key, { client_user_id: `bench-${randomUUID()}` })).user_id as string;
    orderId = await benchOrder(api.url, tenant.key, userId);
    await db.query('ANALYZE users, orders, order_events, order_transactions, appointments, lab_tests, phi_access_log');
    const headers = { 'x-service-api-key': tenant.key };
    const routes = [
      { name: 'GET /v2/user/{id}', nest: `/v2/user/${userId}`, plain: `/plain/v2/user/${userId}` },
      { name: 'GET /v3/order/{id}', nest: `/v3/order/${orderId}`, plain: `/plain/v3/order/${orderId}` },
    ];
    // Both answer the same body: the comparison is of the same work.
    for (const route of routes) {
      const [nest, plain] = await Promise.all([route.nest, route.plain].map(async (path) => (await fetch(`${api.url}${path}`, { headers })).text()));
      if (nest !== plain) throw new Error(`${route.name}: the plain route answered differently:\n${nest}\n${plain}`);
    }

    console.log(`framework bench: Nest route ÷ plain Fastify route, one API process, ${CONNECTIONS} connections, ${SLICES} pairs of ${SECONDS} s slices`);
    console.log(
      `  (load average at start: ${loadavg()
        .map((load) => fmt(load, 1))
        .join(' ')})`,
    );
    for (const route of routes) {
      for (const path of [route.nest, route.plain]) await autocannon(`${api.url}${path}`, headers, 3, CONNECTIONS);
      const result = await comparePaired(
        [
          { server: api, path: route.nest, headers },
          { server: api, path: route.plain, headers },
        ],
        { slices: SLICES, seconds: SECONDS, connections: CONNECTIONS, db },
      );
      const [nestCpu, plainCpu] = result.cpuMicros.map((cpu) => cpu.server);
      console.log(
        `  ${route.name.padEnd(20)} ${fmt(result.perSecond[0]).padStart(6)} ÷ ${fmt(result.perSecond[1]).padStart(6)} req/s = ${fmt(result.perSecond[0] / result.perSecond[1], 2)}` +
          `   API CPU µs per request ${nestCpu ?? '?'} through Nest, ${plainCpu ?? '?'} plain` +
          (nestCpu !== null && plainCpu !== null ? ` (Nest's pipeline: ${nestCpu - plainCpu} µs, ${fmt((100 * (nestCpu - plainCpu)) / nestCpu, 0)}%)` : ''),
      );
      console.log(`      pairs: median ${fmt(median(result.pairRatios), 2)}, middle half ${middleHalf(result.pairRatios)}`);
      recordFigure({
        bench: 'framework',
        name: `${route.name} req/s through Nest`,
        value: result.perSecond[0],
        baseline: result.perSecond[1],
        baselineName: 'a plain Fastify route, same process and service',
        unit: 'req/s',
      });
    }
  } finally {
    await api.stop();
    await terminateBenchOrders(config.temporal, orderId ? [orderId] : []);
    await tenant.remove();
    await db.destroy();
    rmSync(logDir, { recursive: true, force: true });
  }
}

runBenchMain(main);
