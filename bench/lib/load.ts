/**
 * What the HTTP benchmarks share: the process under test runs on its own (never in the load
 * generator's event loop), autocannon runs in a process of its own, and each figure is read with
 * the CPU the server process used, so a busy machine shows up as spread, not as a false ratio.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { freeLoopbackPort } from '../../src/common/free-port';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { orderWorkflowId } from '../../workflows/contract';
import { backends, backendTicksBetween, cpuTicks, finishedChildrenTicks, microsPerItem } from './cpu';

export const ROOT = resolve(__dirname, '../..');

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The API process as production runs it, whatever env file the bench's shell sourced
 * (.labflow/test.env turns the request log off): production mode, request log at info, metrics on.
 */
export const PRODUCTION_API_ENV = { NODE_ENV: 'production', API_HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_REQUESTS: 'true', METRICS_ENABLED: 'true' } as const;

/**
 * The node flags production starts the API with (Dockerfile, docker-compose.yml, scripts/up.sh,
 * `npm run start:api`, the Helm chart): V8 semi-spaces of 32 MB, no allocation-site pretenuring
 * (scripts/up.sh says why).
 */
export const PRODUCTION_API_NODE_ARGS = ['--max-semi-space-size=32', '--no-allocation-site-pretenuring'] as const;

/**
 * `command args` run on one CPU (`taskset -c cpu`, which execs it: the pid is the command's), or
 * as it is without a CPU. The HTTP benches that compare a server with its floor put the server on
 * one CPU and the load generator on the other, the same for both sides, so neither steals the
 * other's CPU and a request's cost is the server's alone.
 */
export function onCpu(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [command, args] : ['taskset', ['-c', String(cpu), command, ...args]];
}

/** The CPUs the read benches pin to (BENCH_SERVER_CPU, BENCH_GENERATOR_CPU; `none` for either: not pinned). */
export const BENCH_CPUS = {
  server: cpuSetting(process.env.BENCH_SERVER_CPU, 0),
  generator: cpuSetting(process.env.BENCH_GENERATOR_CPU, 1),
};

function cpuSetting(value: string | undefined, fallback: number): number | undefined {
  if (value === 'none') return undefined;
  return value === undefined || value === '' ? fallback : Number(value);
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `script` with `env` and a free port in `portVariable`, output to `logFile`, and waits
 * until `readyPath` answers 2xx. A `.ts` script runs through ts-node; anything else (labflow's
 * dist/, as in production) runs on plain node: ts-node loads node:domain, whose async hooks tax
 * every promise, so figures taken through it understate a production process.
 */
export async function startServer(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  portVariable: string;
  logFile: string;
  readyPath: string;
  nodeArgs?: string[];
  /** The CPU it runs on (onCpu); any when not given. */
  cpu?: number;
}): Promise<ServerProcess> {
  const port = await freeLoopbackPort();
  const out = openSync(options.logFile, 'a');
  const loader = options.script.endsWith('.ts') ? ['-r', 'ts-node/register/transpile-only'] : [];
  if (!options.script.endsWith('.ts') && !existsSync(join(ROOT, options.script))) throw new Error(`${options.script} is missing: npm run build`);
  const [command, args] = onCpu(options.cpu, process.execPath, [...(options.nodeArgs ?? []), ...loader, options.script]);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env, [options.portVariable]: String(port) },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited during start-up; see ${options.logFile}`);
    if (
      await fetch(`${url}${options.readyPath}`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`${options.name} was not ready within 90 s; see ${options.logFile}`);
    await sleep(250);
  }
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

/**
 * labflow's API (dist/src/main.js) and Temporal worker (dist/src/worker.js, role temporal) with
 * `env`, their logs in `logDir`; each pushed onto `servers` as soon as it is up, so the caller's
 * clean-up stops whichever started.
 */
export async function startApiAndWorker(options: {
  env: Record<string, string>;
  logDir: string;
  servers: ServerProcess[];
  nodeArgs?: string[];
}): Promise<{ api: ServerProcess; worker: ServerProcess }> {
  const { env, logDir, servers, nodeArgs } = options;
  const api = await startServer({
    name: 'the API',
    script: 'dist/src/main.js',
    env: { ...env, API_HOST: '127.0.0.1' },
    portVariable: 'API_PORT',
    logFile: join(logDir, 'api.log'),
    readyPath: '/health/ready',
    nodeArgs,
  });
  servers.push(api);
  const worker = await startServer({
    name: 'the worker',
    script: 'dist/src/worker.js',
    env: { ...env, WORKER_ROLES: 'temporal' },
    portVariable: 'WORKER_HEALTH_PORT',
    logFile: join(logDir, 'worker.log'),
    readyPath: '/health/ready',
    nodeArgs,
  });
  servers.push(worker);
  return { api, worker };
}

export interface LoadRun {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon in a process of its own: `connections` in flight against `url` for `seconds` (GET, or `request`'s method and body). */
export function autocannon(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  request?: { method: string; body: string },
  /** The CPU autocannon runs on (onCpu); any when not given. */
  cpu?: number,
): Promise<LoadRun> {
  const cli = join(ROOT, 'node_modules/autocannon/autocannon.js');
  const args = [
    cli,
    '-c',
    String(connections),
    '-d',
    String(seconds),
    '-j',
    '-n',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    ...(request ? ['-m', request.method, '-b', request.body] : []),
    url,
  ];
  return new Promise((done, fail) => {
    const [command, pinnedArgs] = onCpu(cpu, process.execPath, args);
    execFile(command, pinnedArgs, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) return fail(error);
      const result = JSON.parse(stdout) as {
        requests: { total: number };
        duration: number;
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
        statusCodeStats?: Record<string, { count: number }>;
      };
      if (result.non2xx > 0) console.log(`  ${url}: status codes ${JSON.stringify(result.statusCodeStats ?? {})}`);
      done({
        perSecond: result.requests.total / result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
      });
    });
  });
}

/**
 * autocannon against `server` with the CPU µs a request cost the server, the load generator and
 * (given `db`, on this machine) Postgres — where a request's time goes.
 */
export async function measure(
  server: ServerProcess,
  path: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  db?: DataSource,
  generatorCpu?: number,
) {
  const pid = server.child.pid as number;
  const postgresBefore = db ? await backends(db) : null;
  const serverBefore = cpuTicks(pid);
  const generatorBefore = finishedChildrenTicks();
  const run = await autocannon(`${server.url}${path}`, headers, seconds, connections, undefined, generatorCpu);
  const generatorAfter = finishedChildrenTicks();
  const serverAfter = cpuTicks(pid);
  const postgresAfter = db ? await backends(db) : null;
  const requests = run.perSecond * seconds;
  const postgres = postgresBefore && postgresAfter ? backendTicksBetween(postgresBefore, postgresAfter) : null;
  return {
    ...run,
    cpuMicros: {
      server: microsPerItem(serverBefore, serverAfter, requests),
      postgres: microsPerItem(0, postgres, requests),
      generator: microsPerItem(generatorBefore, generatorAfter, requests),
    },
  };
}

export type Measured = Awaited<ReturnType<typeof measure>>;

/** One side of a paired comparison: a server and what to ask it. */
export interface PairedSide {
  server: ServerProcess;
  path: string;
  headers: Record<string, string>;
}

export interface PairedComparison {
  /** Requests per second over all of a side's slices (the mean of equally long slices). */
  perSecond: [number, number];
  /** The median of a side's slice p99s (ms). */
  p99: [number, number];
  /** first ÷ second req/s of each pair, sorted: the spread behind the ratio of the means. */
  pairRatios: number[];
  /** CPU µs per request of each side (server, Postgres, load generator), weighted by the slices' requests; null where unknown. */
  cpuMicros: [CpuMicros, CpuMicros];
}

type CpuMicros = Record<'server' | 'postgres' | 'generator', number | null>;

/**
 * Two servers compared in `slices` pairs of short runs, the order alternating within pairs
 * (A B, B A, A B, …). This machine's speed moves by ±20% from one second to the next (a bare
 * server's 1 s runs: 25,000 to 44,000 req/s in a row) and by 2× over minutes, so blocks of
 * 10 s per side compared one machine state with another: the same code measured 0.37 to 0.73
 * of its floor. Interleaved short slices see the same machine on average, and the ratios of the
 * pairs show how far one figure can be trusted.
 */
export async function comparePaired(
  sides: [PairedSide, PairedSide],
  options: { slices: number; seconds: number; connections: number; db?: DataSource; generatorCpu?: number },
): Promise<PairedComparison> {
  const slices: [Measured[], Measured[]] = [[], []];
  for (let pair = 0; pair < options.slices; pair += 1) {
    for (const index of pair % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[index];
      const run = await measure(side.server, side.path, side.headers, options.seconds, options.connections, options.db, options.generatorCpu);
      if (run.non2xx > 0 || run.errors > 0) throw new Error(`${side.server.url}${side.path}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
      slices[index].push(run);
    }
  }
  const mean = (runs: Measured[]) => runs.reduce((sum, run) => sum + run.perSecond, 0) / runs.length;
  const cpuOf = (runs: Measured[]): CpuMicros => {
    const weighted = (key: keyof CpuMicros) => {
      // A slice that saw no answer (a slow route on a busy machine) has no CPU per request; its CPU is lost, not a reason to know nothing.
      const answered = runs.filter((run) => run.perSecond > 0);
      if (answered.length === 0 || answered.some((run) => run.cpuMicros[key] === null)) return null;
      const requests = answered.reduce((sum, run) => sum + run.perSecond, 0);
      return Math.round(answered.reduce((sum, run) => sum + (run.cpuMicros[key] as number) * run.perSecond, 0) / requests);
    };
    return { server: weighted('server'), postgres: weighted('postgres'), generator: weighted('generator') };
  };
  return {
    perSecond: [mean(slices[0]), mean(slices[1])],
    p99: [median(slices[0].map((run) => run.p99)), median(slices[1].map((run) => run.p99))],
    pairRatios: slices[0].map((run, pair) => run.perSecond / slices[1][pair].perSecond).sort((a, b) => a - b),
    cpuMicros: [cpuOf(slices[0]), cpuOf(slices[1])],
  };
}

/** The middle half of sorted values as "low–high" (the interquartile range), for the spread of pair ratios. */
export function middleHalf(sorted: number[], digits = 2): string {
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `${fmt(at(0.25), digits)}–${fmt(at(0.75), digits)}`;
}

/** A Scale-plan org with one team and a sandbox team API key; `remove()` deletes the org and all it holds. */
export async function benchTenant(db: DataSource, name: string): Promise<{ teamId: string; environment: 'sandbox'; key: string; remove(): Promise<void> }> {
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: `bench ${name} ${randomUUID().slice(0, 8)}`, plan: 'scale' });
  const team = await db.getRepository(TeamEntity).save({
    id: randomUUID(),
    orgId: org.id,
    name: 'bench',
    region: 'us',
    integrationTeamId: null,
    partialWebhooksEnabled: false,
  });
  const environment = 'sandbox';
  const { value: key } = await new ApiKeysService(db).issueTeamKey(team, environment, 'bench');
  return { teamId: team.id, environment, key, remove: async () => void (await db.getRepository(OrgEntity).delete({ id: org.id })) };
}

/** A POST to the API as the bench's team; a non-2xx answer throws. */
export async function benchPost(url: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'x-service-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** A lipid panel test-kit order for `userId` through the API (the read benches' order); its id. */
export async function benchOrder(apiUrl: string, key: string, userId: string): Promise<string> {
  const order = await benchPost(`${apiUrl}/v3/order`, key, {
    user_id: userId,
    lab_test_id: '1ab7e570-0000-4000-8000-000000000001',
    patient_details: {
      first_name: 'Bench',
      last_name: 'Reader',
      dob: '1980-01-01',
      gender: 'female',
      phone_number: '+14155550100',
      email: 'bench@example.com',
    },
    patient_address: {
      receiver_name: 'Bench Reader',
      first_line: '1 Market St',
      city: 'San Francisco',
      state: 'CA',
      zip: '94105',
      country: 'US',
      phone_number: '+14155550100',
    },
  });
  return (order.order as { id: string }).id;
}

/** Terminates the workflows of the orders a read bench made (no worker ran them); one already gone is fine. */
export async function terminateBenchOrders(temporal: { address: string; namespace: string }, orderIds: string[]): Promise<void> {
  if (orderIds.length === 0) return;
  const connection = await Connection.connect({ address: temporal.address });
  const workflows = new Client({ connection, namespace: temporal.namespace }).workflow;
  await Promise.all(
    orderIds.map((id) =>
      workflows
        .getHandle(orderWorkflowId(id))
        .terminate('bench done')
        .catch(() => undefined),
    ),
  );
  await connection.close();
}

/**
 * Terminates every running workflow of a bench's own task queue with one server-side batch
 * operation (thousands of orders would take minutes one by one); a failure is printed, not thrown.
 */
export async function terminateTaskQueue(client: Client, namespace: string, taskQueue: string): Promise<void> {
  await client.workflowService
    .startBatchOperation({
      namespace,
      jobId: randomUUID(),
      reason: 'bench finished',
      visibilityQuery: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`,
      terminationOperation: {},
    })
    .catch((error: unknown) => console.error(`could not terminate the bench's workflows (task queue ${taskQueue}): ${String(error)}`));
}

/** Runs a bench's main: an error is printed and sets a failing exit code. */
export function runBenchMain(main: () => Promise<void>): void {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
