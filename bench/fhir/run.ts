/**
 * FHIR benchmark (issue #44 item 4), each figure against its goal or a baseline of the same run:
 *
 *   1. `GET /fhir/R4/Observation?patient=…&code=http://loinc.org|8867-4&date=ge…&date=lt…` (one
 *      patient's heart rate over six hours, the first page of 50) with BENCH_ROWS (10 million)
 *      wearable samples stored: p50/p99 against the 50 ms goal. The statement the search runs is
 *      EXPLAINed (ANALYZE) first, and the bench stops if it does not read the samples through
 *      their primary key (series_id, ts).
 *   2. `Group/{team}/$export?_type=Observation` of a team of its own holding BENCH_EXPORT_ROWS
 *      (1 million) samples, kicked off and polled to its manifest (the export workflow on a worker
 *      process of its own: pages read, mapped to FHIR, written as sealed NDJSON parts) ÷ a raw
 *      `COPY (SELECT … the same rows) TO STDOUT` read to the end (the median of three: two before
 *      the export, one after). Goal ≥ 0.3.
 *
 * The rows are generated in SQL (generate_series) straight into the tables, not through the API:
 * a month of minute heart rate samples per user. The API and the worker are dist/ as in
 * production (npm run build first), on a Temporal task queue of their own.
 *
 * Beside each figure, the CPU an item cost (the API's per search request, the worker's per exported
 * resource, Postgres's backends', the machine's: steadier than times on a shared machine), and the
 * export workflow's activities on a timeline from its history. A first, small export (the team's
 * Patients) warms the worker up before the measured one, as a running worker is.
 *
 *   npm run bench:fhir   (settings from the environment as for the services: DATABASE_URL names
 *                         the server (its database is replaced by BENCH_DATABASE, default
 *                         labflow_fhir_bench, recreated); BENCH_ROWS (10,000,000),
 *                         BENCH_EXPORT_ROWS (1,000,000), BENCH_READS (300), BENCH_CPU_PROFILE=<dir>
 *                         for the API's and the worker's --cpu-prof)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { FhirReadModel } from '../../src/fhir/fhir-read-model';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { tsToMs } from '@temporalio/common/lib/time';
import { fhirExportWorkflowId } from '../../workflows/contract';
import { type CpuMark, cpuMark, cpuPerItem } from '../lib/cpu';
import { fmt, runBenchMain, type ServerProcess, startApiAndWorker, terminateTaskQueue } from '../lib/load';
import { recordFigure } from '../lib/results';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const EXPORT_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_READS ?? 300);
const DATABASE = process.env.BENCH_DATABASE ?? 'labflow_fhir_bench';
const DAYS = 30;
const MINUTES = 1440;
const DAY0 = Date.parse('2026-10-01T00:00:00Z');
const HEART_RATE = 'http://loinc.org|8867-4';
/** How often the bench polls an export's status (a client's Retry-After; a coarser poll would show as export time). */
const POLL_MS = 100;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const seconds = (since: number) => (performance.now() - since) / 1000;
const load = () =>
  loadavg()
    .map((n) => fmt(n, 1))
    .join(' ');
const cpu = (micros: number | null) => (micros === null ? '?' : `${fmt(micros)} µs`);

/**
 * Where an export's time went, from its workflow's history: each activity's schedule, start and
 * end after the kick-off (the history's times are the Temporal server's, on this machine's clock).
 */
async function printExportTimeline(temporal: TemporalClient, exportId: string, kickedOff: number, done: number) {
  const origin = Date.now() - (performance.now() - kickedOff);
  const at = (ms: number) => `+${fmt(ms - origin)} ms`;
  const history = await temporal.workflow.getHandle(fhirExportWorkflowId(exportId)).fetchHistory();
  const scheduled = new Map<string, { name: string; at: number; started?: number }>();
  console.log(`\nThe export's workflow (fhir-export:${exportId}), after the kick-off:`);
  for (const event of history.events ?? []) {
    const time = tsToMs(event.eventTime);
    const id = String(event.eventId);
    if (event.workflowExecutionStartedEventAttributes) console.log(`  workflow started            ${at(time)}`);
    if (event.activityTaskScheduledEventAttributes) scheduled.set(id, { name: event.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at: time });
    if (event.activityTaskStartedEventAttributes) scheduled.get(String(event.activityTaskStartedEventAttributes.scheduledEventId))!.started = time;
    const ended = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
    if (ended) {
      const activity = scheduled.get(String(ended.scheduledEventId))!;
      const started = activity.started ?? activity.at;
      console.log(
        `  ${activity.name.padEnd(26)}  scheduled ${at(activity.at)}, started ${at(started)}, ${event.activityTaskFailedEventAttributes ? 'failed' : 'done'} ${at(time)} (${fmt(time - started)} ms)`,
      );
    }
    if (event.workflowExecutionContinuedAsNewEventAttributes) console.log(`  continued as new            ${at(time)}`);
  }
  console.log(`  manifest seen by the bench  ${at(origin + (done - kickedOff))} (polling every ${POLL_MS} ms)`);
}

async function benchTeam(db: DataSource, name: string): Promise<{ teamId: string; key: string }> {
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name, plan: 'scale' });
  const team = await db
    .getRepository(TeamEntity)
    .save({ id: randomUUID(), orgId: org.id, name, region: 'us', integrationTeamId: null, partialWebhooksEnabled: false });
  const { value: key } = await new ApiKeysService(db).issueTeamKey(team, 'sandbox', name);
  return { teamId: team.id, key };
}

/** At least `rows` heart rate samples for the team: users of a month of minute samples each. Answers the users. */
async function seed(pg: Client, teamId: string, rows: number, prefix: string): Promise<string[]> {
  const users = Math.max(1, Math.ceil(rows / (DAYS * MINUTES)));
  await pg.query(`DROP TABLE IF EXISTS bench_users, bench_series`);
  await pg.query(`CREATE TEMP TABLE bench_users AS SELECT gen_random_uuid() AS id, n FROM generate_series(1, ${users}) n`);
  await pg.query(`INSERT INTO users (id, team_id, environment, client_user_id) SELECT id, $1, 'sandbox', $2 || n FROM bench_users`, [teamId, prefix]);
  await pg.query(
    `CREATE TEMP TABLE bench_series AS
     WITH created AS (INSERT INTO health_series (user_id, resource, provider, source_type) SELECT id, 'heartrate', 'oura', 'ring' FROM bench_users RETURNING id, user_id)
     SELECT c.id, u.n FROM created c JOIN bench_users u ON u.id = c.user_id`,
  );
  // Day by day, as ingestion writes them: one statement a day, each sorting one day's rows in memory
  // (one statement sorting the month spilled 10 M rows to disk).
  await pg.query(`SET work_mem = '256MB'`);
  for (let d = 0; d < DAYS; d++) {
    await pg.query(
      `INSERT INTO health_samples (series_id, ts, value, timezone_offset)
       SELECT s.id, timestamptz '2026-10-01 00:00:00+00' + (${d * MINUTES} + m) * interval '1 minute', 50 + (m % 40), 0
         FROM bench_series s, generate_series(0, ${MINUTES - 1}) m
        ORDER BY s.n, m`,
    );
  }
  await pg.query(`RESET work_mem`);
  return (await pg.query(`SELECT id FROM bench_users ORDER BY n`)).rows.map((row: { id: string }) => row.id);
}

/** The SQL FhirReadModel.samples runs for a search, captured rather than run. */
async function searchStatement(scope: { teamId: string; environment: 'sandbox' }, patient: string, from: Date, to: Date) {
  let captured: { sql: string; values: unknown[] } | undefined;
  const capture = { query: async (sql: string, values: unknown[]) => ((captured = { sql, values }), []) } as unknown as DataSource;
  await new FhirReadModel(capture).samples(scope, {
    patient,
    resources: ['heartrate'],
    date: [
      { op: '>=', at: from },
      { op: '<', at: to },
    ],
    lastUpdated: [],
    limit: 50,
  });
  return captured!;
}

async function main() {
  const benchStarted = performance.now();
  const config = loadConfig();
  const serverUrl = new URL(config.databaseUrl);
  const adminUrl = new URL(serverUrl);
  adminUrl.pathname = '/postgres';
  const benchUrl = new URL(serverUrl);
  benchUrl.pathname = `/${DATABASE}`;
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const db = createDataSource(benchUrl.toString());
  await db.initialize();
  await db.runMigrations();
  const pg = new Client({ connectionString: benchUrl.toString() });
  await pg.connect();
  const servers: ServerProcess[] = [];
  const taskQueue = `bench-fhir-${randomUUID().slice(0, 8)}`;
  const connection = await Connection.connect(config.temporal.connection);
  const temporal = new TemporalClient({ connection, namespace: config.temporal.namespace });
  console.log(`load average at start: ${load()}  (other work shares the machine: absolute times mean little)`);
  try {
    const searchTeam = await benchTeam(db, 'bench-fhir-search');
    const exportTeam = await benchTeam(db, 'bench-fhir-export');
    await pg.query(
      `SELECT labflow_health_samples_partition(d::date) FROM generate_series(timestamp '2026-10-01', timestamp '2026-11-01', interval '1 month') d`,
    );
    let started = performance.now();
    const users = await seed(pg, searchTeam.teamId, ROWS, 'search-');
    const exportUsers = await seed(pg, exportTeam.teamId, EXPORT_ROWS, 'export-');
    await pg.query(`VACUUM ANALYZE health_samples`);
    await pg.query(`VACUUM ANALYZE health_series`);
    await pg.query(`VACUUM ANALYZE users`);
    await pg.query(`CHECKPOINT`);
    const stored = Number((await pg.query(`SELECT count(*) FROM health_samples`)).rows[0].count);
    console.log(`seeded ${fmt(stored)} samples (${users.length} + ${exportUsers.length} users) in ${fmt(seconds(started), 1)} s`);

    // ---- The search's statement, EXPLAINed: the samples through their primary key.
    const from = new Date(DAY0 + 12 * 86_400_000 + 6 * 3_600_000);
    const statement = await searchStatement(
      { teamId: searchTeam.teamId, environment: 'sandbox' },
      users[Math.floor(users.length / 2)],
      from,
      new Date(from.getTime() + 6 * 3_600_000),
    );
    const plan = (await pg.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.values)).rows.map(
      (row: { 'QUERY PLAN': string }) => row['QUERY PLAN'],
    );
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the Observation search's statement:\n  ${plan.join('\n  ')}`);
    if (
      !plan.some((line) => /Index (Only )?Scan (using|on) health_samples_p\d+_pkey/.test(line)) ||
      plan.some((line) => /Seq Scan on health_samples/.test(line))
    ) {
      throw new Error('the search does not read health_samples through its primary key');
    }

    const env = { NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_URL: benchUrl.toString(), TEMPORAL_TASK_QUEUE: taskQueue, RECONCILER_INTERVAL: '1h' };
    const logDir = mkdtempSync(join(tmpdir(), 'labflow-bench-fhir-'));
    // BENCH_CPU_PROFILE=<dir>: the API and the worker write their V8 CPU profiles there when they stop
    // (node bench/lib/cpu-profile-summary.mjs <file> summarises one).
    const profiles = process.env.BENCH_CPU_PROFILE;
    const nodeArgs = profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [];
    const { api, worker } = await startApiAndWorker({ env, logDir, servers, nodeArgs });

    // ---- 1. Observation search by patient, code and date range
    const headers = { 'x-service-api-key': searchTeam.key };
    const latencies: number[] = [];
    let searchMark: CpuMark | undefined;
    for (let i = 0; i < READS + 20; i++) {
      // The first 20 warm up (JIT, connections); the CPU a request costs is read over the rest.
      if (i === 20) searchMark = await cpuMark(db, api.child.pid!);
      const start = new Date(DAY0 + ((i * 7) % DAYS) * 86_400_000 + ((i * 5) % 18) * 3_600_000);
      const end = new Date(start.getTime() + 6 * 3_600_000);
      const query = new URLSearchParams([
        ['patient', users[(i * 13) % users.length]],
        ['code', HEART_RATE],
        ['date', `ge${start.toISOString()}`],
        ['date', `lt${end.toISOString()}`],
      ]);
      const t0 = performance.now();
      const response = await fetch(`${api.url}/fhir/R4/Observation?${query}`, { headers });
      const body = (await response.json()) as { entry?: unknown[] };
      if (i >= 20) latencies.push(performance.now() - t0);
      if (response.status !== 200 || body.entry?.length !== 50) throw new Error(`search answered ${response.status} with ${body.entry?.length} entries`);
    }
    const searchCpu = await cpuPerItem(db, searchMark!, READS);
    latencies.sort((a, b) => a - b);
    console.log(`\nObservation search (patient, code, 6 h date range; first page of 50) with ${fmt(stored)} samples stored, ${READS} requests one at a time:`);
    console.log(`  p50 ${fmt(pct(latencies, 50), 1)} ms   p99 ${fmt(pct(latencies, 99), 1)} ms   (goal p99 <= 50 ms)   load ${load()}`);
    console.log(
      `  CPU a request: API ${cpu(searchCpu.child)}, Postgres ${cpu(searchCpu.postgres)}, machine ${cpu(searchCpu.machine)} (all of it, others' work included)`,
    );
    recordFigure({
      bench: 'fhir',
      name: `Observation search by patient, code and date p99 (${fmt(stored / 1e6, 1)} M stored)`,
      value: pct(latencies, 99),
      baseline: 50,
      baselineName: 'the 50 ms goal',
      unit: 'ms',
      goal: { ratio: 1, atLeast: false },
    });

    // ---- 2. Bulk export of the export team's Observations ÷ COPY of the same rows
    const exportHeaders = { 'x-service-api-key': exportTeam.key, prefer: 'respond-async', accept: 'application/fhir+json' };
    /** Kicks an export off and polls its status every POLL_MS until the manifest; answers it, its id and when it was kicked off. */
    const runExport = async (type: string) => {
      const kickedOff = performance.now();
      const kickOff = await fetch(`${api.url}/fhir/R4/Group/${exportTeam.teamId}/$export?_type=${type}`, { headers: exportHeaders });
      if (kickOff.status !== 202) throw new Error(`kick-off answered ${kickOff.status}: ${await kickOff.text()}`);
      const location = kickOff.headers.get('content-location')!;
      for (;;) {
        const status = await fetch(location, { headers: exportHeaders });
        if (status.status === 200) {
          const manifest = (await status.json()) as { output: Array<{ type: string; count: number }> };
          return { manifest, id: location.slice(location.lastIndexOf('/') + 1), kickedOff, done: performance.now() };
        }
        if (status.status !== 202) throw new Error(`status answered ${status.status}: ${await status.text()}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };
    /** COPY of the rows the export writes, read to the end: their count and rows/s. */
    const copyRows = async () => {
      const copyStarted = performance.now();
      let rows = 0;
      await pipeline(
        pg.query(
          copyTo(`COPY (SELECT t.* FROM health_samples t JOIN health_series s ON s.id = t.series_id JOIN users u ON u.id = s.user_id
                 WHERE u.team_id = '${exportTeam.teamId}' AND u.environment = 'sandbox' AND s.resource = 'heartrate') TO STDOUT`),
        ),
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            for (const byte of chunk) if (byte === 10) rows++;
            done();
          },
        }),
      );
      return { rows, rate: rows / seconds(copyStarted) };
    };
    const copyRuns = [await copyRows(), await copyRows()];
    // A first export (the team's Patients) warms the worker up as a running one is: its workflow code
    // loaded, the export's code compiled.
    await runExport('Patient');
    const exportMark = await cpuMark(db, worker.child.pid!, api.child.pid!);
    started = performance.now();
    const { manifest, id: exportId, kickedOff, done } = await runExport('Observation');
    const exportSeconds = seconds(started);
    const exportCpu = await cpuPerItem(db, exportMark, 1);
    const perResource = (micros: number | null) =>
      micros === null ? '?' : `${fmt(micros / (manifest.output.find((output) => output.type === 'Observation')?.count ?? 1), 2)} µs`;
    await printExportTimeline(temporal, exportId, kickedOff, done);
    const exported = manifest.output.find((output) => output.type === 'Observation')?.count ?? 0;
    copyRuns.push(await copyRows());
    // The floor: the median of three COPYs around the export (two before, one after), since a
    // single COPY's rate swung 423 k – 895 k rows/s between runs with what the cache held.
    const floor = [...copyRuns].sort((a, b) => a.rate - b.rate)[1];
    const copied = floor.rows;
    const copyRate = floor.rate;
    const copySeconds = copied / copyRate;
    if (exported !== copied) throw new Error(`the export wrote ${exported} Observations, COPY read ${copied} rows`);
    const exportRate = exported / exportSeconds;
    console.log(`\nBulk export of ${fmt(exported)} Observations (kick-off to manifest; pages of FHIR_EXPORT_PAGE_SIZE):`);
    console.log(`  $export       ${fmt(exportRate)} resources/s  (${fmt(exportSeconds, 2)} s)`);
    console.log(`  raw COPY TO   ${fmt(copyRate)} rows/s  (${fmt(copySeconds, 2)} s; the median of ${copyRuns.map((run) => fmt(run.rate)).join(', ')} rows/s)`);
    console.log(`  ratio         ${fmt(exportRate / copyRate, 3)}  (goal >= 0.3)   load ${load()}`);
    console.log(
      `  CPU a resource (kick-off to manifest): worker ${perResource(exportCpu.child)}, API ${perResource(exportCpu.server)}, Postgres ${perResource(exportCpu.postgres)}, machine ${perResource(exportCpu.machine)}`,
    );
    console.log(`\nbench:fhir took ${fmt(seconds(benchStarted), 0)} s in all (seeding included)`);
    recordFigure({
      bench: 'fhir',
      name: `$export of ${fmt(exported / 1e6, 1)} M Observations, resources/s`,
      value: exportRate,
      baseline: copyRate,
      baselineName: 'raw COPY TO of the same rows',
      unit: 'rows/s',
      goal: { ratio: 0.3, atLeast: true },
    });
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await terminateTaskQueue(temporal, config.temporal.namespace, taskQueue).catch(() => undefined);
    await connection.close();
    await pg.end();
    await db.destroy();
  }
}

runBenchMain(main);
