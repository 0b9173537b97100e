/**
 * What observability costs the API: req/s of a cheap authenticated read (`GET /v2/user/{id}`:
 * key check, one scoped row) with request logging at info and Prometheus metrics on ÷ the same
 * with both off, measured in one run on the same machine (goal ≥ 0.9), with p99 latencies.
 *
 * The two APIs run as separate processes (`dist/src/main.js`, as in production; NODE_ENV=production so the logs are the
 * production JSON lines, written to a file as a log shipper would read them), and autocannon
 * drives them from a third process, so the load generator never shares the API's event loop.
 * The variants take turns in BENCH_SLICES pairs of short slices (comparePaired in
 * bench/lib/load.ts says why): req/s are the means over the slices, p99 the medians.
 *
 *   npm run bench:observability   (settings from the environment as for the services: DATABASE_URL
 *                                  of a migrated database, PHI_ENCRYPTION_KEY, REDIS_URL,
 *                                  TEMPORAL_ADDRESS; BENCH_CONNECTIONS (64), BENCH_SECONDS (2,
 *                                  per slice), BENCH_SLICES (16))
 *
 * The bench's org (and so its user and key) is deleted at the end.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config';
import { dataSourceOptions } from '../../src/db/data-source';
import { autocannon, benchTenant, comparePaired, fmt, median, middleHalf, runBenchMain, type ServerProcess, startServer } from '../lib/load';
import { recordFigure } from '../lib/results';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SLICES = Number(process.env.BENCH_SLICES ?? 16);

interface Variant {
  name: string;
  env: Record<string, string>;
}

const VARIANTS: Variant[] = [
  { name: 'logging (info) + metrics on', env: { LOG_LEVEL: 'info', LOG_REQUESTS: 'true', METRICS_ENABLED: 'true' } },
  { name: 'logging + metrics off', env: { LOG_LEVEL: 'fatal', LOG_REQUESTS: 'false', METRICS_ENABLED: 'false' } },
];

/** One API process with the variant's settings; its stdout (the request log) goes to `logFile`. */
function startApi(variant: Variant, logFile: string): Promise<ServerProcess> {
  return startServer({
    name: `the API (${variant.name})`,
    script: 'dist/src/main.js',
    env: { NODE_ENV: 'production', API_HOST: '127.0.0.1', ...variant.env },
    portVariable: 'API_PORT',
    logFile,
    readyPath: '/health/ready',
    // BENCH_API_ARGS: node flags for both API processes (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').
    nodeArgs: (process.env.BENCH_API_ARGS ?? '').split(' ').filter(Boolean),
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const db = new DataSource(dataSourceOptions(config.databaseUrl));
  await db.initialize();
  const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-observability-'));
  const tenant = await benchTenant(db, 'observability');
  const key = tenant.key;
  const apis: ServerProcess[] = [];
  try {
    const logFiles = VARIANTS.map((_, index) => join(logDir, `api-${index}.log`));
    for (const [index, variant] of VARIANTS.entries()) apis.push(await startApi(variant, logFiles[index]));

    const created = await fetch(`${apis[0].url}/v2/user`, {
      method: 'POST',
      headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ client_user_id: `bench-${randomUUID()}` }),
    });
    if (!created.ok) throw new Error(`could not create the bench user: ${created.status} ${await created.text()}`);
    const { user_id: userId } = (await created.json()) as { user_id: string };
    const urls = apis.map((api) => `${api.url}/v2/user/${userId}`);
    for (const url of urls) {
      const check = await fetch(url, { headers: { 'x-service-api-key': key } });
      if (check.status !== 200) throw new Error(`GET ${url} answered ${check.status}`);
    }

    console.log(`observability bench: GET /v2/user/{id}, ${CONNECTIONS} connections, ${SLICES} pairs of ${SECONDS} s slices, variants interleaved`);
    // Other work on the machine weighs on both variants but widens the spread between pairs.
    console.log(
      `  (load average at start: ${loadavg()
        .map((load) => fmt(load, 1))
        .join(' ')})`,
    );
    // Warm both (JIT, key cache, connection pools) before measuring.
    for (const url of urls) await autocannon(url, { 'x-service-api-key': key }, 3, CONNECTIONS);
    const headers = { 'x-service-api-key': key };
    const result = await comparePaired(
      [
        { server: apis[0], path: `/v2/user/${userId}`, headers },
        { server: apis[1], path: `/v2/user/${userId}`, headers },
      ],
      {
        slices: SLICES,
        seconds: SECONDS,
        connections: CONNECTIONS,
      },
    );
    for (const [index, variant] of VARIANTS.entries()) {
      const cpu = result.cpuMicros[index].server;
      const perCpu = cpu === null ? '' : `   ${fmt(1e6 / cpu).padStart(6)} req per CPU-second`;
      console.log(
        `  ${variant.name.padEnd(28)} ${fmt(result.perSecond[index]).padStart(7)} req/s   p99 ${fmt(result.p99[index])} ms${perCpu}   (mean / median of ${SLICES} slices)`,
      );
    }
    const ratio = result.perSecond[0] / result.perSecond[1];
    recordFigure({
      bench: 'observability',
      name: 'GET /v2/user/{id} req/s, request log and metrics on',
      value: result.perSecond[0],
      baseline: result.perSecond[1],
      baselineName: 'both off',
      unit: 'req/s',
      goal: { ratio: 0.9, atLeast: true },
    });
    console.log(
      `  ratio on ÷ off: ${fmt(ratio, 3)} (goal ≥ 0.9); pairs: median ${fmt(median(result.pairRatios), 2)}, middle half ${middleHalf(result.pairRatios)}`,
    );
    // Requests per CPU-second of the API process move less with the machine's speed than req/s.
    const [onCpu, offCpu] = result.cpuMicros.map((cpu) => cpu.server);
    if (onCpu !== null && offCpu !== null)
      console.log(`  requests per API CPU-second, on ÷ off: ${fmt(offCpu / onCpu, 3)} (${fmt(onCpu)} µs ÷ ${fmt(offCpu)} µs a request)`);

    // Proof the "on" variant did log and count: its log has a line per request and /metrics the route.
    const logBytes = statSync(logFiles[0]).size;
    const metrics = await (await fetch(`${apis[0].url}/metrics`)).text();
    const counted = /labflow_http_requests_total\{method="GET",route="\/v2\/user\/:user_id",status_code="200"\} (\d+)/.exec(metrics)?.[1];
    const offMetrics = (await fetch(`${apis[1].url}/metrics`)).status;
    console.log(
      `  (on: ${fmt(logBytes / 1e6, 1)} MB of request log, ${counted ?? 'no'} GETs counted on /metrics; off: /metrics answers ${offMetrics}, ${fmt(statSync(logFiles[1]).size / 1e3, 1)} kB of log)`,
    );
    // (Start-up lines name the routes, never the user id a request carries.)
    if (readFileSync(logFiles[1], 'utf8').includes(userId)) console.log('  warning: the "off" API logged requests');
  } finally {
    for (const api of apis) await api.stop();
    await tenant.remove();
    await db.destroy();
    rmSync(logDir, { recursive: true, force: true });
  }
}

runBenchMain(main);
