/**
 * Order benchmark, every figure against a baseline measured in the same run on the same
 * machine, so the ratios are comparable across machines:
 *
 *   1. orders/s through `POST /v3/order` ÷ raw Temporal workflow starts/s on the same Temporal
 *      server, each start the same as an order's (input, search attributes, id policies: copied
 *      from one the API started), so the ratio is what creating an order costs beyond starting its workflow: validation, catalog,
 *      PHI encryption, one Postgres transaction with events and outbox), each out of process:
 *      the API from dist/ (production settings) loaded by autocannon from a process of its own,
 *      the raw starts from a plain-node process of their own (raw-starts.mjs), both with
 *      BENCH_CONNECTIONS in flight for BENCH_SECONDS, BENCH_ROUNDS rounds alternating (medians);
 *   2. appointment availability (`POST /v3/order/phlebotomy/appointment/availability`, both
 *      sandbox zips, and `POST /v3/order/psc/appointment/availability`) req/s with the Redis
 *      cache warmed (every response checked to be an `x-labflow-cache: hit`) ÷ the same
 *      requests to a second API instance with APPOINTMENT_AVAILABILITY_CACHE_TTL=0s (`off`),
 *   with p50/p99 latencies of each. Reads of an order are bench:reads' (against a floor that
 *   answers the same bytes, server and load generator on CPUs of their own).
 *
 *   npm run bench:orders   (settings from the environment as for the services: DATABASE_URL of
 *                           a migrated database, PHI_ENCRYPTION_KEY, TEMPORAL_ADDRESS,
 *                           TEMPORAL_NAMESPACE; BENCH_CONNECTIONS, BENCH_SECONDS, BENCH_ROUNDS)
 *
 * No worker runs: started workflows wait on a task queue of their own and are terminated at
 * the end (one batch operation), with the bench's org (and so its users and orders) deleted, and the availability
 * cache entries the bench created removed from Redis.
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { API_DOCUMENT, ApiModule } from '../../src/app.module';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { createHttpApp } from '../../src/common/http-app';
import { loadConfig } from '../../src/config/config';
import { REDIS, TEMPORAL_CLIENT } from '../../src/core.tokens';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { orderWorkflowId } from '../../workflows/contract/ids';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import {
  autocannon as autocannonProcess,
  type LoadRun,
  median,
  PRODUCTION_API_ENV,
  PRODUCTION_API_NODE_ARGS,
  ROOT,
  startServer,
  terminateTaskQueue,
} from '../lib/load';
import { recordFigure } from '../lib/results';
import { cpuMark, cpuPerItem, cpuTicks, microsPerItem } from '../lib/cpu';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LIPID_PANEL_KIT = '1ab7e570-0000-4000-8000-000000000001';
/** AppointmentAvailabilityService's Redis key prefix (the bench deletes the entries it created under it). */
const AVAILABILITY_CACHE_PREFIX = 'labflow:appointments:availability';

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Load {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** `amount` requests (or `duration` seconds) with `connections` in flight, via autocannon. */
async function load(options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections: CONNECTIONS, ...options });
  const seconds = result.duration;
  return { perSecond: result.requests.total / seconds, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

/**
 * The pid of the Temporal dev server scripts/stack.sh started (its pid file), to tell the CPU time
 * it spends per start; null when there is none (another Temporal, another machine).
 */
function temporalServerPid(): number | null {
  try {
    const pid = Number(readFileSync(join(process.env.LABFLOW_CACHE_DIR ?? join(homedir(), '.cache/labflow'), 'temporal.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && cpuTicks(pid) !== null ? pid : null;
  } catch {
    return null;
  }
}

/** A Temporal payload as JSON: metadata and data base64. */
interface StoredPayload {
  metadata: Record<string, string>;
  data: string;
}

/**
 * What the API's start of an order's workflow sends, read from the history of one it started:
 * its input as sent (encrypted by labflow's payload codec) and its search attributes (all
 * keywords). The floor starts its no-op workflow with the same, so both sides ask the Temporal
 * server for the same work per start (the search attributes are written to the visibility store
 * with every start).
 */
async function orderStartShape(temporal: Client, db: DataSource, orgId: string): Promise<{ input: StoredPayload; keywords: Record<string, string> }> {
  const [order] = (await db.query(
    `SELECT o.id FROM orders o JOIN teams t ON t.id = o.team_id WHERE t.org_id = $1 AND o.workflow_started_at IS NOT NULL LIMIT 1`,
    [orgId],
  )) as Array<{ id: string }>;
  if (!order) throw new Error('no order of the warm-up has a started workflow to copy the start of');
  const history = await temporal.workflow.getHandle(orderWorkflowId(order.id)).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payloads = started?.input?.payloads ?? [];
  if (!started || payloads.length !== 1 || !payloads[0].data) throw new Error(`order ${order.id}: its workflow's start carries no single input`);
  const base64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');
  const utf8 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
  const keywords: Record<string, string> = {};
  for (const [name, field] of Object.entries(started.searchAttributes?.indexedFields ?? {})) {
    if (utf8(field.metadata?.type) !== 'Keyword')
      throw new Error(`search attribute ${name} is ${utf8(field.metadata?.type)}, not a keyword: teach raw-starts.mjs its type`);
    keywords[name] = JSON.parse(utf8(field.data)) as string;
  }
  const metadata = Object.fromEntries(Object.entries(payloads[0].metadata ?? {}).map(([key, value]) => [key, base64(value)]));
  return { input: { metadata, data: base64(payloads[0].data) }, keywords };
}

/** Raw workflow starts from a plain-node process of its own (raw-starts.mjs), SECONDS long, each shaped as `shape`. */
function rawStartsProcess(
  taskQueue: string,
  shape: { input: StoredPayload; keywords: Record<string, string> },
): Promise<{ perSecond: number; p50: number; p99: number; started: number; warmUpStarts: number; cpuPerStart: number }> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bench/orders/raw-starts.mjs')],
      {
        env: {
          ...process.env,
          BENCH_SECONDS: String(SECONDS),
          BENCH_CONNECTIONS: String(CONNECTIONS),
          BENCH_TASK_QUEUE: taskQueue,
          BENCH_START_SHAPE: JSON.stringify(shape),
        },
      },
      (error, stdout) => (error ? fail(error) : done(JSON.parse(stdout.trim().split('\n').pop() as string))),
    );
  });
}

async function listen(app: NestFastifyApplication): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('API is not listening');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Deletes the availability cache entries this bench created: under the prefix (SCAN, never
 * KEYS), stored since the bench started, for the bench's own start_date. Returns how many.
 */
async function deleteAvailabilityCacheEntries(redis: Redis, startDate: string, since: number): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${AVAILABILITY_CACHE_PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if (key.endsWith(':refreshing')) continue;
      const raw = await redis.get(key);
      if (!raw) continue;
      let entry: { stored_at?: number; value?: { days?: Array<{ date?: string }> } | null };
      try {
        entry = JSON.parse(raw) as typeof entry;
      } catch {
        continue;
      }
      if ((entry.stored_at ?? 0) >= since && entry.value?.days?.[0]?.date === startDate) deleted += await redis.del(key, `${key}:refreshing`);
    }
  } while (cursor !== '0');
  return deleted;
}

interface AvailabilityRequest {
  path: string;
  body?: string;
}

interface AvailabilityLoad extends Load {
  /** x-labflow-cache of every response, counted. */
  outcomes: Record<string, number>;
}

/** `requests` in turn on every connection for `duration` seconds, counting x-labflow-cache. */
async function availabilityLoad(url: string, headers: Record<string, string>, requests: AvailabilityRequest[], duration: number): Promise<AvailabilityLoad> {
  const outcomes: Record<string, number> = {};
  // autocannon passes the raw header names, so look the header up case-insensitively.
  const onResponse = (_status: number, _body: string, _context: object, responseHeaders?: IncomingHttpHeaders) => {
    const value = Object.entries(responseHeaders ?? {}).find(([name]) => name.toLowerCase() === 'x-labflow-cache')?.[1];
    const outcome = value === undefined ? '(none)' : String(value);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  };
  const result = await load({
    url,
    duration,
    requests: requests.map((request) => ({ method: 'POST' as const, path: request.path, headers, body: request.body ?? '{}', onResponse })),
  });
  return { ...result, outcomes };
}

function describe(outcomes: Record<string, number>): string {
  return (
    Object.entries(outcomes)
      .map(([outcome, count]) => `${outcome} ${count}`)
      .join(', ') || 'no responses'
  );
}

async function main(): Promise<void> {
  const taskQueue = `bench-orders-${randomUUID().slice(0, 8)}`;
  const env = { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_REQUESTS: 'false', RECONCILER_INTERVAL: '1h' };
  // The appointment availability cache is on in this instance (fresh for longer than the
  // bench runs, so warmed entries stay hits) and off in the second one, the uncached baseline.
  const config = loadConfig({ ...env, APPOINTMENT_AVAILABILITY_CACHE_TTL: '10m', APPOINTMENT_AVAILABILITY_STALE_TTL: '10m' });
  const uncachedConfig = loadConfig({ ...env, APPOINTMENT_AVAILABILITY_CACHE_TTL: '0s' });
  const app = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT);
  // (Nest's TypeORM module warns that a second default data source is registered: harmless
  // here, each instance injects its own DataSource.)
  const uncachedApp = await createHttpApp(ApiModule.forRoot(uncachedConfig), uncachedConfig, API_DOCUMENT);
  const apiUrl = await listen(app);
  const uncachedUrl = await listen(uncachedApp);
  const db = app.get(DataSource);
  const temporal = app.get<Client>(TEMPORAL_CLIENT);
  const redis = app.get<Redis>(REDIS);
  const benchStarted = Date.now();
  // A start_date of the bench's own, 30–300 days out: every slot of the 14 days is in the future
  // (same work on every request) and no other client shares the cache entries it creates.
  const startDate = new Date(benchStarted + (30 + Math.floor(Math.random() * 270)) * 86_400_000).toISOString().slice(0, 10);

  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `bench ${taskQueue}`, plan: 'scale' });
  try {
    const team = await db.getRepository(TeamEntity).save({
      id: randomUUID(),
      orgId: org.id,
      name: 'bench',
      region: 'us',
      integrationTeamId: null,
      partialWebhooksEnabled: false,
    });
    const { value: key } = await new ApiKeysService(db).issueTeamKey(team, 'sandbox', 'bench');
    const headers = { 'x-service-api-key': key, 'content-type': 'application/json' };
    const user = (await (
      await fetch(`${apiUrl}/v2/user`, { method: 'POST', headers, body: JSON.stringify({ client_user_id: `bench-${taskQueue}` }) })
    ).json()) as { user_id: string };
    const body = JSON.stringify({
      user_id: user.user_id,
      lab_test_id: LIPID_PANEL_KIT,
      patient_details: {
        first_name: 'Bench',
        last_name: 'Mark',
        dob: '1980-01-01',
        gender: 'female',
        phone_number: '+14155550123',
        email: 'bench@example.com',
      },
      patient_address: {
        receiver_name: 'Bench Mark',
        first_line: '1 Market St',
        city: 'San Francisco',
        state: 'CA',
        zip: '94105',
        country: 'US',
        phone_number: '+14155550123',
      },
    });
    // 1. Creation, out of process, rounds alternating; the API process warmed first.
    const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-orders-'));
    const apiProcess = await startServer({
      name: 'the API',
      script: 'dist/src/main.js',
      // Production's settings (request log, metrics; the sourced test env turns the request log off).
      env: { ...PRODUCTION_API_ENV, TEMPORAL_TASK_QUEUE: taskQueue, RECONCILER_INTERVAL: '1h' },
      portVariable: 'API_PORT',
      logFile: join(logDir, 'api.log'),
      readyPath: '/health/ready',
      // Production's node flags (as bench:reads), then BENCH_API_ARGS: more node flags for the API
      // process (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').
      nodeArgs: [...PRODUCTION_API_NODE_ARGS, ...(process.env.BENCH_API_ARGS ?? '').split(' ').filter(Boolean)],
    });
    const rawRuns: Array<{ perSecond: number; p50: number; p99: number }> = [];
    const createdRuns: LoadRun[] = [];
    // CPU µs per start / per order (medians of the rounds): the Temporal server's, the API
    // process's and its Postgres backends'. Steadier than the rates on a shared machine.
    const temporalPid = temporalServerPid();
    const cpu: {
      rawClient: Array<number | null>;
      temporalPerRawStart: Array<number | null>;
      temporalPerOrder: Array<number | null>;
      api: Array<number | null>;
      postgres: Array<number | null>;
    } = {
      rawClient: [],
      temporalPerRawStart: [],
      temporalPerOrder: [],
      api: [],
      postgres: [],
    };
    try {
      await autocannonProcess(`${apiProcess.url}/v3/order`, headers, 2, CONNECTIONS, { method: 'POST', body });
      const shape = await orderStartShape(temporal, db, org.id);
      for (let round = 0; round < ROUNDS; round += 1) {
        // (Its Temporal CPU counts the process's one-second warm-up, so its starts do too.)
        const rawTemporal = temporalPid === null ? null : cpuTicks(temporalPid);
        const rawRun = await rawStartsProcess(taskQueue, shape);
        cpu.temporalPerRawStart.push(microsPerItem(rawTemporal, temporalPid === null ? null : cpuTicks(temporalPid), rawRun.started + rawRun.warmUpStarts));
        cpu.rawClient.push(rawRun.cpuPerStart);
        rawRuns.push(rawRun);
        const mark = await cpuMark(db, apiProcess.child.pid as number);
        const orderTemporal = temporalPid === null ? null : cpuTicks(temporalPid);
        const run = await autocannonProcess(`${apiProcess.url}/v3/order`, headers, SECONDS, CONNECTIONS, { method: 'POST', body });
        const orders = Math.round(run.perSecond * SECONDS);
        cpu.temporalPerOrder.push(microsPerItem(orderTemporal, temporalPid === null ? null : cpuTicks(temporalPid), orders));
        const perOrder = await cpuPerItem(db, mark, orders);
        cpu.api.push(perOrder.child);
        cpu.postgres.push(perOrder.postgres);
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${run.non2xx} order creations failed, ${run.errors} errors (log ${logDir}/api.log)`);
        createdRuns.push(run);
      }
    } finally {
      await apiProcess.stop();
    }
    rmSync(logDir, { recursive: true, force: true });
    const medianOf = (runs: Array<{ perSecond: number; p50: number; p99: number }>) => ({
      perSecond: median(runs.map((run) => run.perSecond)),
      p50: median(runs.map((run) => run.p50)),
      p99: median(runs.map((run) => run.p99)),
    });
    const raw = medianOf(rawRuns);
    const created = medianOf(createdRuns);

    // 2. Appointment availability, cached ÷ uncached. Both sandbox phlebotomy zips in turn, and
    // Quest PSCs within 25 miles of 10001. A cache hit saves only the provider's slot grid (here
    // computed in-process by the sandbox providers, not fetched from a real provider's API): every
    // response, cached or not, still signs a fresh HMAC booking key for each of its slots, so the
    // cached path keeps that per-slot cost.
    const phlebotomyRequests: AvailabilityRequest[] = [
      { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
      { first_line: '100 Main St', city: 'Onalaska', state: 'WI', zip_code: '54650' },
    ].map((address) => ({ path: `/v3/order/phlebotomy/appointment/availability?start_date=${startDate}`, body: JSON.stringify(address) }));
    const pscRequests: AvailabilityRequest[] = [{ path: `/v3/order/psc/appointment/availability?lab=quest&zip_code=10001&radius=25&start_date=${startDate}` }];
    const availability: Array<{ name: string; slots: string; uncached: AvailabilityLoad; cached: AvailabilityLoad }> = [];
    for (const [name, requests] of [
      ['phlebotomy', phlebotomyRequests],
      ['PSC', pscRequests],
    ] as const) {
      const slots: number[] = [];
      for (const request of requests) {
        const init = { method: 'POST', headers, body: request.body ?? '{}' };
        const off = await fetch(`${uncachedUrl}${request.path}`, init);
        const answer = (await off.json()) as { slots?: Array<{ location?: unknown; slots: unknown[] }> };
        if (off.status !== 200 || off.headers.get('x-labflow-cache') !== 'off') {
          throw new Error(`uncached ${name} availability: ${off.status}, x-labflow-cache ${off.headers.get('x-labflow-cache')}: ${JSON.stringify(answer)}`);
        }
        slots.push(answer.slots?.reduce((sum, day) => sum + day.slots.length, 0) ?? 0);
        // Warms the cache entry (a miss unless it is there already).
        const warm = await fetch(`${apiUrl}${request.path}`, init);
        await warm.arrayBuffer();
        if (warm.status !== 200 || !['miss', 'hit'].includes(warm.headers.get('x-labflow-cache') ?? '')) {
          throw new Error(`warming ${name} availability: ${warm.status}, x-labflow-cache ${warm.headers.get('x-labflow-cache')}`);
        }
      }
      // Warm both paths (JIT, connections), then measure.
      await availabilityLoad(uncachedUrl, headers, requests, 1);
      const warmed = await availabilityLoad(apiUrl, headers, requests, 1);
      const uncached = await availabilityLoad(uncachedUrl, headers, requests, SECONDS);
      const cached = await availabilityLoad(apiUrl, headers, requests, SECONDS);
      if (uncached.non2xx > 0 || cached.non2xx > 0) {
        throw new Error(`${name} availability: ${uncached.non2xx} uncached and ${cached.non2xx} cached requests failed`);
      }
      if (Object.keys(uncached.outcomes).some((outcome) => outcome !== 'off')) {
        throw new Error(`uncached ${name} availability: expected x-labflow-cache off on every response, got ${describe(uncached.outcomes)}`);
      }
      for (const [phase, run] of [
        ['warm-up', warmed],
        ['measured run', cached],
      ] as const) {
        if (Object.keys(run.outcomes).some((outcome) => outcome !== 'hit')) {
          throw new Error(`cached ${name} availability (${phase}): expected x-labflow-cache hit on every response, got ${describe(run.outcomes)}`);
        }
      }
      availability.push({ name, slots: slots.join(' + '), uncached, cached });
    }

    console.log(`bench/orders — ${CONNECTIONS} connections, ${SECONDS} s per run; creation: ${ROUNDS} rounds alternating, out of process (medians)`);
    const latencies = (run: { p50: number; p99: number }) => `p50 ${fmt(run.p50, 1)} ms   p99 ${fmt(run.p99, 1)} ms`;
    console.log(`  raw workflow starts      ${fmt(raw.perSecond, 1)}/s   ${latencies(raw)}`);
    console.log(`  POST /v3/order           ${fmt(created.perSecond, 1)}/s   ${latencies(created)}`);
    console.log(`  ratio orders ÷ starts    ${fmt(created.perSecond / raw.perSecond, 2)}`);
    const cpuMedian = (values: Array<number | null>) => (values.some((value) => value === null) ? 'n/a' : `${fmt(median(values as number[]))} µs`);
    console.log(
      `  CPU per order: API ${cpuMedian(cpu.api)}, its Postgres backends ${cpuMedian(cpu.postgres)}, Temporal server ${cpuMedian(cpu.temporalPerOrder)}` +
        `; per raw start: its client ${cpuMedian(cpu.rawClient)}, Temporal server ${cpuMedian(cpu.temporalPerRawStart)}`,
    );
    recordFigure({
      bench: 'orders',
      name: 'POST /v3/order orders/s',
      value: created.perSecond,
      baseline: raw.perSecond,
      baselineName: "raw workflow starts/s, each as an order's",
      unit: '/s',
      goal: { ratio: 0.8, atLeast: true },
    });
    console.log(`  appointment availability, start_date ${startDate}, ${SECONDS} s each: uncached = a second API instance with`);
    console.log(`  APPOINTMENT_AVAILABILITY_CACHE_TTL=0s (every response x-labflow-cache: off); cached = warmed, every response`);
    console.log(`  checked to be a hit; both sign a fresh booking key per slot`);
    for (const { name, slots, uncached, cached } of availability) {
      console.log(`  ${`${name} uncached`.padEnd(25)}${fmt(uncached.perSecond, 0)} req/s   ${latencies(uncached)}   (${slots} slots/response)`);
      console.log(`  ${`${name} cached`.padEnd(25)}${fmt(cached.perSecond, 0)} req/s   ${latencies(cached)}`);
      console.log(`  ${'ratio cached ÷ uncached'.padEnd(25)}${fmt(cached.perSecond / uncached.perSecond, 2)}`);
      recordFigure({
        bench: 'orders',
        name: `${name} availability req/s, cached`,
        value: cached.perSecond,
        baseline: uncached.perSecond,
        baselineName: 'uncached',
        unit: 'req/s',
      });
    }
  } finally {
    await terminateTaskQueue(temporal, config.temporal.namespace, taskQueue);
    await db.getRepository(OrgEntity).delete({ id: org.id });
    const deleted = await deleteAvailabilityCacheEntries(redis, startDate, benchStarted).catch((error: unknown) => {
      console.error("could not delete the bench's availability cache entries:", error);
      return 0;
    });
    console.log(`  (cleanup: ${deleted} availability cache entries deleted from Redis)`);
    await uncachedApp.close();
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
