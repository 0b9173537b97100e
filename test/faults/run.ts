/**
 * The fault run (issue 17, "No order is ever stranded"): every collection method under process,
 * Temporal and Redis faults, asserting that every order completes, none is stranded, no
 * transition is recorded twice and no webhook event is lost.
 *
 *   npm run test:faults    (scripts/test-faults.sh brings up the fault run's own Temporal dev
 *                           server, database, Redis and build, then runs this file)
 *
 * It runs the real processes (node dist/src/main.js, management.js, worker.js) as children on
 * 127.0.0.1 and supervises them as a process manager would: a process that exits on its own is
 * started again after a second; the faults below kill them on purpose.
 *
 *   1. a demo org/team (sandbox key, management key), partial-results webhooks on, a webhook
 *      endpoint (management API) pointing at a receiver in this process that verifies every
 *      signature (svix + standardwebhooks) and answers 500 to ~20% of attempts, chosen by a hash
 *      of the message id and the attempt number (deterministic);
 *   2. FAULTS_ORDERS_PER_METHOD (20) sandbox orders per collection method through POST /v3/order:
 *      test kit, at-home phlebotomy at zip 85004, walk-in at Quest, on-site at Quest; then every
 *      POST /v3/order/{id}/test?delay=2 at once (t = 0);
 *      Before that, the workflows of FAULTS_LOST_WORKFLOWS (2) test-kit orders are terminated, and
 *      the run waits until a reconciler has started a new run of each (healed once, checked last);
 *   3. faults: worker SIGKILL +3 s (back +10 s), Temporal SIGKILL +18 s (back +24 s, same SQLite
 *      file or PostgreSQL databases), Redis CLIENT PAUSE 12000 +32 s, API SIGKILL +48 s (back
 *      +50 s), worker SIGKILL +55 s (back +60 s);
 *   4. waits (bounded: FAULTS_DEADLINE_SECONDS from t = 0, or FAULTS_QUIET_SECONDS without any
 *      progress) until every order is terminal and every outbox event delivered, then checks;
 *      last, a team key is revoked through the management API and every API replica must refuse
 *      it within 5 s (the key cache's revocation NOTIFY).
 *
 * With FAULTS_REPLICAS=2 (npm run test:replicas, on the Temporal server) two API replicas and two
 * workers run: requests go round the replicas, the first API and worker are the ones killed first
 * (the others carry on), the second worker is the one killed at +55 s. Every worker runs the
 * outbox relay, the retention sweep and the reconciler: the checks show each order completed once,
 * each event delivered under one webhook id, each lost workflow healed once.
 *
 * Prints a table per collection method and ends with `faults: N passed, N failed`.
 */
import 'reflect-metadata';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { PhiCipher } from '../../src/common/crypto';
import { loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/db/data-source';
import { Hl7Repository } from '../../src/hl7/hl7.repository';
import { hl7InterfaceSettings } from '../../src/hl7/hl7-settings';
import { labflowDataConverter } from '../../src/temporal/payload-codec';
import { OrgEntity, TeamEntity } from '../../src/tenancy/entities';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { finalValue, type LabMarker, ScriptedHl7Lab } from './hl7-lab';

// --- settings ------------------------------------------------------------------------------------

const ROOT = join(__dirname, '..', '..');
const env = process.env;
const config = loadConfig(env);
/** API replicas and workers (FAULTS_REPLICAS, 1; 2 for the replicas run): API i listens on API_PORT + 10·(i−1). */
const REPLICAS = Number(env.FAULTS_REPLICAS ?? 1);
const APIS = Array.from({ length: REPLICAS }, (_, index) => `http://127.0.0.1:${config.api.port + 10 * index}`);
const API = APIS[0];
const MANAGEMENT = `http://127.0.0.1:${config.management.port}`;
const LOG_DIR = required('FAULTS_LOG_DIR');
const TEMPORAL_ARGV = required('FAULTS_TEMPORAL_ARGV').split('\n').filter(Boolean);
const TEMPORAL_PIDFILE = required('FAULTS_TEMPORAL_PIDFILE');
const TEMPORAL_LOG = required('FAULTS_TEMPORAL_LOG');
/** The Temporal CLI (health checks, listings): the dev server's own binary, or beside the Temporal server. */
const TEMPORAL_CLI = env.FAULTS_TEMPORAL_CLI ?? TEMPORAL_ARGV[0];
/** What runs Temporal: 'dev server' (the CLI's, SQLite) or 'server' (the Temporal server on PostgreSQL). */
const TEMPORAL_KIND = env.LABFLOW_TEMPORAL === 'server' ? 'Temporal server' : 'Temporal dev server';
const PER_METHOD = Number(env.FAULTS_ORDERS_PER_METHOD ?? 20);
/**
 * A bound on the wait, not the test of stranding (QUIET_S is: an order that cannot move stops all
 * progress): quiet, the run ends at ~190 s; beside CI's Jest it ran at ~0.7 of that pace and
 * missed 270 s with orders still completing every few seconds.
 */
const DEADLINE_S = Number(env.FAULTS_DEADLINE_SECONDS ?? 450);
const QUIET_S = Number(env.FAULTS_QUIET_SECONDS ?? 60);
const SIMULATION_DELAY_S = 2;
/** Orders whose workflow is terminated before their simulation, for the reconcilers to heal (once). */
const LOST_WORKFLOWS = Number(env.FAULTS_LOST_WORKFLOWS ?? 2);
/** Users whose Oura connections are imported (Link Migration) before the faults and whose history is pulled again under them. */
const MIGRATED_USERS = Number(env.FAULTS_MIGRATED_USERS ?? 16);
/** How long a revoked key may still open a request on a replica (the key cache is invalidated by NOTIFY). */
const REVOCATION_BOUND_MS = 5_000;
/** Share of webhook attempts the receiver answers with a 500 (by hash, so a rerun fails the same ones). */
const RECEIVER_FAILURE_SHARE = 0.2;
const WEBHOOK_PATH = '/labflow-faults';
/** What src/worker.ts logs once its Temporal worker polls. */
const WORKER_POLLING = /worker polling task queue/;

/** Seeded global lab tests (src/db/migrations/1763790002001-lab-catalog-seed.ts; test/helpers/orders.ts). */
const VITAMIN_D_KIT = '1ab7e570-0000-4000-8000-000000000002';
const THYROID_AT_HOME_QUEST = '1ab7e570-0000-4000-8000-000000000007';
const CMP_WALK_IN_QUEST = '1ab7e570-0000-4000-8000-000000000003';
/** src/db/migrations/1763790260000-on-site-collection-test.ts */
const CMP_ON_SITE_QUEST = '1ab7e570-0000-4000-8000-00000000000c';

const METHODS = ['testkit', 'at_home_phlebotomy', 'walk_in_test', 'on_site_collection'] as const;
type Method = (typeof METHODS)[number];
/** On-site orders at an HL7 lab: the runner's scripted lab, and the sandbox HL7 lab (worker role sandbox-hl7-lab). */
const HL7_GROUPS = ['hl7_lab', 'sandbox_hl7_lab'] as const;
type Group = Method | (typeof HL7_GROUPS)[number];
/** FAULTS_HL7=0 leaves the HL7 labs out. */
const HL7 = env.FAULTS_HL7 !== '0';
const GROUPS: readonly Group[] = HL7 ? [...METHODS, ...HL7_GROUPS] : METHODS;
/** Orders per HL7 lab. */
const HL7_ORDERS = Number(env.FAULTS_HL7_ORDERS ?? 8);
/** How long the HL7 labs are down from the moment their orders are placed (minutes in life, short here). */
const HL7_LAB_DOWN_S = Number(env.FAULTS_HL7_LAB_DOWN_SECONDS ?? 30);
/** How long labflow's HL7 listener stays dead once killed while the lab sends. */
const HL7_LISTENER_DOWN_S = Number(env.FAULTS_HL7_LISTENER_DOWN_SECONDS ?? 5);
/** Results the scripted lab sends for orders labflow does not have. */
const HL7_STRAYS = 2;
const HL7_LISTENER_PORT = Number(env.FAULTS_HL7_LISTENER_PORT ?? config.api.port + 4);
const SANDBOX_HL7_LAB_PORT = Number(env.FAULTS_SANDBOX_HL7_LAB_PORT ?? config.api.port + 5);
const HL7_LAB_PORT = Number(env.FAULTS_HL7_LAB_PORT ?? config.api.port + 6);
const TERMINAL = new Set(['completed', 'cancelled', 'failed']);

function required(name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: run this through npm run test:faults (scripts/test-faults.sh)`);
  return value;
}

const started = Date.now();
let t0 = 0;
const stamp = () => (t0 ? `+${((Date.now() - t0) / 1000).toFixed(1)}s` : `${((Date.now() - started) / 1000).toFixed(1)}s`);
const log = (message: string) => console.log(`[faults ${stamp()}] ${message}`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// --- checks --------------------------------------------------------------------------------------

let passed = 0;
let failed = 0;
function check(name: string, ok: boolean, detail = ''): boolean {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
  return ok;
}

// --- processes -----------------------------------------------------------------------------------

let shuttingDown = false;

/** A node process of the stack, supervised: an exit nobody asked for is followed by a restart. */
class Supervised {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private intentional = false;
  private logOffset = 0;
  unexpectedExits = 0;

  constructor(
    readonly name: string,
    private readonly argv: string[],
    private readonly childEnv: NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Waits until the log, from where it stood at the last start, matches `pattern`. */
  async waitForLog(pattern: RegExp, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        if (pattern.test(readFileSync(this.logFile, 'utf8').slice(this.logOffset))) return true;
      } catch {
        // not written yet
      }
      await sleep(250);
    }
    return false;
  }

  start(): void {
    if (shuttingDown) return;
    this.intentional = false;
    const fd = openSync(this.logFile, 'a');
    this.logOffset = fstatSync(fd).size;
    const child = spawn(this.argv[0], this.argv.slice(1), {
      cwd: ROOT,
      env: this.childEnv,
      // Its own process group: a Ctrl-C reaches this runner, which stops the children in order.
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        resolve();
        if (shuttingDown || this.intentional) return;
        this.unexpectedExits += 1;
        log(`${this.name} exited on its own (${signal ?? `code ${code}`}); restarting it in 1 s (log ${this.logFile})`);
        setTimeout(() => {
          if (!shuttingDown && !this.child && !this.intentional) this.start();
        }, 1000);
      });
    });
    child.once('error', (error) => log(`${this.name} could not start: ${error.message}`));
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.intentional = true;
    const child = this.child;
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.intentional = true;
    if (!this.child) return;
    const done = this.exited;
    // Armed before the SIGTERM is awaited: a process that does not exit on it is killed.
    const timer = setTimeout(() => void this.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM').catch(() => undefined);
    await done;
    clearTimeout(timer);
  }
}

/** The environment of the Temporal CLI: the app's TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE would be read as CLI flags. */
const cliEnv: NodeJS.ProcessEnv = { ...env };
delete cliEnv.TEMPORAL_ADDRESS;
delete cliEnv.TEMPORAL_NAMESPACE;

/**
 * The fault run's Temporal dev server: first started by scripts/test-faults.sh (pid in the pid
 * file), killed and started again here with the same command line and SQLite file.
 */
class TemporalServer {
  private own: Supervised | null = null;
  readonly address = config.temporal.address;

  private pidFromFile(): number | null {
    try {
      const pid = Number(readFileSync(TEMPORAL_PIDFILE, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  async kill(): Promise<void> {
    if (this.own) {
      await this.own.kill('SIGKILL');
    } else {
      const pid = this.pidFromFile();
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    // Gone when its gRPC port no longer accepts connections.
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await portOpen(config.temporal.address))) await sleep(100);
  }

  start(): void {
    if (shuttingDown) return;
    this.own ??= new Supervised('temporal', TEMPORAL_ARGV, cliEnv, TEMPORAL_LOG);
    this.own.start();
    if (this.own.pid) writeFileSync(TEMPORAL_PIDFILE, `${this.own.pid}\n`);
  }

  async stop(): Promise<void> {
    await this.own?.stop(10_000);
  }

  healthy(): Promise<boolean> {
    return new Promise((resolve) => {
      execFile(TEMPORAL_CLI, ['operator', 'cluster', 'health', '--address', this.address, '--command-timeout', '3s'], { env: cliEnv }, (error) =>
        resolve(!error),
      );
    });
  }

  async waitHealthy(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.healthy()) return true;
      await sleep(500);
    }
    return false;
  }
}

function portOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const nodeEnv = { ...env };
delete nodeEnv.FAULTS_TEMPORAL_ARGV;
const nodeProcess = (name: string, script: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  new Supervised(name, [process.execPath, '--enable-source-maps', script], { ...nodeEnv, ...extraEnv }, join(LOG_DIR, `${name}.log`));
/** `api` and `worker` alone; `api-1`, `api-2`... with replicas. */
const replicaName = (role: string, index: number) => (REPLICAS === 1 ? role : `${role}-${index + 1}`);
const apiProcesses = APIS.map((_, index) => nodeProcess(replicaName('api', index), 'dist/src/main.js', { API_PORT: String(config.api.port + 10 * index) }));
const managementProcess = nodeProcess('management', 'dist/src/management.js');
const workerProcesses = Array.from({ length: REPLICAS }, (_, index) => nodeProcess(replicaName('worker', index), 'dist/src/worker.js'));
// labflow's HL7 listener (worker role hl7) and the sandbox HL7 lab (worker role sandbox-hl7-lab), each a
// worker process of its own so the run can kill it alone; small pools (Postgres's 100 connections).
const hl7ListenerProcess = nodeProcess('hl7-listener', 'dist/src/worker.js', {
  WORKER_ROLES: 'hl7',
  HL7_LISTENER_HOST: '127.0.0.1',
  HL7_LISTENER_PORT: String(HL7_LISTENER_PORT),
  // What it ACKed and had not handed over when killed is handed over again this soon after.
  HL7_REDELIVER_AFTER: '2s',
  DATABASE_POOL_MAX: '2',
});
const sandboxHl7LabProcess = nodeProcess('sandbox-hl7-lab', 'dist/src/worker.js', {
  WORKER_ROLES: 'sandbox-hl7-lab',
  HL7_LISTENER_HOST: '127.0.0.1',
  SANDBOX_HL7_LAB_PORT: String(SANDBOX_HL7_LAB_PORT),
  SANDBOX_HL7_LAB_RESULTS_TO: `127.0.0.1:${HL7_LISTENER_PORT}`,
  SANDBOX_LAB_RESULT_DELAY: '2s',
  DATABASE_POOL_MAX: '2',
});
const hl7Processes = HL7 ? [hl7ListenerProcess, sandboxHl7LabProcess] : [];
const allProcesses = [...apiProcesses, managementProcess, ...workerProcesses, ...hl7Processes];
/** The API replica for the `index`th request of a batch: requests go round the replicas. */
const apiFor = (index: number) => APIS[index % APIS.length];
const temporalServer = new TemporalServer();

/** Resolves when the run is being stopped (Ctrl-C): the fault schedule and the wait end early. */
let abortRun: () => void = () => undefined;
const runAborted = new Promise<void>((resolve) => {
  abortRun = resolve;
});
const sleepUnlessAborted = (ms: number) => Promise.race([sleep(ms), runAborted]);

async function shutdown(): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  abortRun();
  await Promise.allSettled([
    ...workerProcesses.map((worker) => worker.stop(20_000)),
    ...apiProcesses.map((api) => api.stop()),
    managementProcess.stop(),
    ...hl7Processes.map((proc) => proc.stop()),
    scriptedLab?.close(),
  ]);
  await temporalServer.stop();
}

// --- HTTP ------------------------------------------------------------------------------------------

interface Reply {
  status: number;
  body: any;
}

/**
 * How long the runner waits for one answer. Generous: with both fault runs, or a fault run and
 * Jest, on two loaded cores a setup request took over 15 s; a wait this long still ends a hung run.
 */
const REQUEST_TIMEOUT_MS = 60_000;

async function http(
  base: string,
  method: string,
  path: string,
  options: { key?: string; managementKey?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-service-api-key'] = options.key;
  if (options.managementKey) headers['x-management-key'] = options.managementKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}

async function waitHealthy(base: string, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await http(base, 'GET', '/health')).status === 200) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`${what} did not answer ${base}/health within ${timeoutMs / 1000} s (log: ${LOG_DIR})`);
}

/** Runs `task` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index], index);
      }
    }),
  );
  return results;
}

// --- the demo team, its webhook endpoint and the orders --------------------------------------------

interface Tenant {
  orgId: string;
  teamId: string;
  apiKey: string;
  managementKey: string;
}

/** An org, a us team, a sandbox team API key and an org_admin management key (as createTenant does). */
async function createTenant(db: DataSource): Promise<Tenant> {
  const org = await db.getRepository(OrgEntity).save({ id: randomUUID(), name: 'Fault run org', plan: 'scale' });
  const team = await db.getRepository(TeamEntity).save({
    id: randomUUID(),
    orgId: org.id,
    name: 'Fault run team',
    region: 'us',
    integrationTeamId: null,
    partialWebhooksEnabled: false,
  });
  const keys = new ApiKeysService(db);
  const teamKey = await keys.issueTeamKey(team, 'sandbox', 'fault run');
  const managementKey = await keys.issueManagementKey(org.id, 'org_admin', 'fault run');
  return { orgId: org.id, teamId: team.id, apiKey: teamKey.value, managementKey: managementKey.value };
}

const PATIENT = {
  first_name: 'Marguerite',
  last_name: 'Okonkwo',
  dob: '1986-04-12',
  gender: 'female',
  phone_number: '+14155550123',
  email: 'marguerite@example.com',
};
const PHOENIX_ADDRESS = {
  receiver_name: 'Marguerite Okonkwo',
  first_line: '200 W Washington St',
  second_line: 'Suite 5',
  city: 'Phoenix',
  state: 'AZ',
  zip: '85004',
  country: 'US',
  phone_number: '+14155550123',
};
const PHYSICIAN = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };

function orderBody(method: Method, userId: string): Record<string, unknown> {
  switch (method) {
    case 'testkit':
      return { user_id: userId, lab_test_id: VITAMIN_D_KIT, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS };
    case 'at_home_phlebotomy':
      return { user_id: userId, lab_test_id: THYROID_AT_HOME_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
    case 'walk_in_test':
      return { user_id: userId, lab_test_id: CMP_WALK_IN_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
    case 'on_site_collection':
      return { user_id: userId, lab_test_id: CMP_ON_SITE_QUEST, patient_details: PATIENT, patient_address: PHOENIX_ADDRESS, physician: PHYSICIAN };
  }
}

interface OrderEvent {
  id: number;
  created_at: string;
  status: string;
  status_detail: string | null;
}

interface RunOrder {
  id: string;
  method: Group;
  view: any;
  error: string | null;
}

const low = (status: string) => status.split('.')[2] ?? status;
const isTerminal = (order: RunOrder) => TERMINAL.has(order.view?.status);

// --- faults ------------------------------------------------------------------------------------------

interface Fault {
  at: number;
  what: string;
  run(): Promise<void>;
}

// With replicas, the first worker and API die while the others carry on, and the last worker later.
const firstWorker = workerProcesses[0];
const lastWorker = workerProcesses[workerProcesses.length - 1];
const firstApi = apiProcesses[0];
const FAULTS: Fault[] = [
  { at: 3, what: `${firstWorker.name} SIGKILL`, run: () => firstWorker.kill('SIGKILL') },
  { at: 10, what: `${firstWorker.name} back`, run: async () => firstWorker.start() },
  { at: 18, what: `${TEMPORAL_KIND} SIGKILL`, run: () => temporalServer.kill() },
  {
    at: 24,
    what: `${TEMPORAL_KIND} back (${env.LABFLOW_TEMPORAL === 'server' ? 'same PostgreSQL databases' : 'same SQLite file'})`,
    run: async () => {
      temporalServer.start();
      const healthy = await temporalServer.waitHealthy(60_000);
      log(healthy ? `${TEMPORAL_KIND} healthy again` : `${TEMPORAL_KIND} NOT healthy 60 s after its restart`);
    },
  },
  {
    at: 32,
    what: 'Redis CLIENT PAUSE 12000',
    run: async () => {
      const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
      try {
        await redis.connect();
        const answer = await redis.call('CLIENT', 'PAUSE', '12000');
        if (answer !== 'OK') throw new Error(`CLIENT PAUSE answered ${String(answer)}`);
      } finally {
        redis.disconnect();
      }
    },
  },
  { at: 48, what: `${firstApi.name} SIGKILL`, run: () => firstApi.kill('SIGKILL') },
  { at: 50, what: `${firstApi.name} back`, run: async () => firstApi.start() },
  { at: 55, what: `${lastWorker.name} SIGKILL`, run: () => lastWorker.kill('SIGKILL') },
  { at: 60, what: `${lastWorker.name} back`, run: async () => lastWorker.start() },
];

/** Runs the schedule relative to t0; each fault in the background so a slow one delays no other. */
async function runFaults(): Promise<Array<{ fault: Fault; ok: boolean; atActual: number; error?: string }>> {
  const outcomes: Array<Promise<{ fault: Fault; ok: boolean; atActual: number; error?: string }>> = [];
  for (const fault of FAULTS) {
    const wait = t0 + fault.at * 1000 - Date.now();
    if (wait > 0) await sleepUnlessAborted(wait);
    if (shuttingDown) break;
    const atActual = (Date.now() - t0) / 1000;
    log(`fault: ${fault.what}`);
    outcomes.push(
      fault.run().then(
        () => ({ fault, ok: true, atActual }),
        (error: unknown) => {
          log(`fault "${fault.what}" failed: ${String(error)}`);
          return { fault, ok: false, atActual, error: String(error) };
        },
      ),
    );
  }
  return Promise.all(outcomes);
}

// --- the HL7 labs ----------------------------------------------------------------------------------------

/** What the log of each HL7 process says once it serves. */
const HL7_LISTENING = /HL7 MLLP listener on/;
const SANDBOX_HL7_LAB_LISTENING = /sandbox HL7 lab on port/;
/** The runner's scripted lab (test/faults/hl7-lab.ts); null until the HL7 labs are set up. */
let scriptedLab: ScriptedHl7Lab | null = null;

interface Hl7Setup {
  orders: RunOrder[];
  scripted: ScriptedHl7Lab;
  /** The scripted lab's facility (MSH-4 of what it sends). */
  scriptedFacility: string;
  components: LabMarker[];
  placedAt: number;
}

interface Hl7FaultOutcome {
  what: string;
  ok: boolean;
  atActual: number;
  error?: string;
}

/** Progress of the HL7 fault schedule: the wait does not give up while it still has steps to take. */
const hl7Schedule = { done: !HL7, listenerKilledWithPending: 0, failuresBeforeKill: 0, failuresAfterBack: 0, sandboxKilledOwing: 0 };

/**
 * Two HL7 lab accounts at the on-site CMP's lab: one pointing at the runner's scripted lab, one at
 * the sandbox HL7 lab. Both labs are down when their orders are placed: the scripted lab does not
 * listen yet, the sandbox lab's process is SIGKILLed first. The orders' sends then wait (retried).
 */
async function setUpHl7(db: DataSource, tenant: Tenant): Promise<Hl7Setup> {
  const [test]: Array<{ lab_id: string }> = await db.query(`SELECT lab_id FROM lab_tests WHERE id = $1`, [CMP_ON_SITE_QUEST]);
  const [{ marker_id: panelId }]: Array<{ marker_id: number }> = await db.query(
    `SELECT marker_id FROM lab_test_markers WHERE lab_test_id = $1 ORDER BY position LIMIT 1`,
    [CMP_ON_SITE_QUEST],
  );
  const components: LabMarker[] = await db.query(
    `SELECT m.name, m.slug, l.code AS loinc FROM lab_panel_members p JOIN lab_markers m ON m.id = p.member_id JOIN loinc_codes l ON l.id = m.loinc_id
      WHERE p.panel_id = $1 ORDER BY p.position`,
    [panelId],
  );
  const repository = new Hl7Repository(db);
  const accounts = new Map<(typeof HL7_GROUPS)[number], { id: string; facility: string }>();
  for (const group of HL7_GROUPS) {
    const id = randomUUID();
    const scripted = group === 'hl7_lab';
    const facility = `${scripted ? 'SCR' : 'SBX'}-${id.slice(0, 8)}`;
    await db.query(
      `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
       VALUES ($1, $2, NULL, $3, 'active', 'not_delegated', $4, $5, '{client_bill}', '{}')`,
      [id, tenant.teamId, test.lab_id, `${facility}-ACCT`, scripted ? 'Scripted lab over HL7' : 'Sandbox lab over HL7'],
    );
    await repository.saveInterface(
      id,
      hl7InterfaceSettings.parse({
        host: '127.0.0.1',
        port: scripted ? HL7_LAB_PORT : SANDBOX_HL7_LAB_PORT,
        sendingApplication: 'LABFLOW',
        sendingFacility: 'LABFLOW-FAULTS',
        receivingApplication: scripted ? 'SCRIPTED' : 'SANDBOX',
        receivingFacility: facility,
        version: scripted ? '2.3' : '2.5.1',
        orderMessageType: scripted ? 'ORM^O01' : 'OML^O21',
        testCodes: {},
      }),
    );
    accounts.set(group, { id, facility });
  }
  scriptedLab = new ScriptedHl7Lab({
    port: HL7_LAB_PORT,
    listener: { host: '127.0.0.1', port: HL7_LISTENER_PORT },
    facility: accounts.get('hl7_lab')!.facility,
    markers: components,
    strays: HL7_STRAYS,
    log,
  });
  await sandboxHl7LabProcess.kill('SIGKILL');
  log(`HL7 labs down: the scripted lab does not listen on :${HL7_LAB_PORT}, the sandbox HL7 lab process is killed`);

  const plan = HL7_GROUPS.flatMap((group) => Array.from({ length: HL7_ORDERS }, () => group));
  const placedAt = Date.now();
  const orders = await pool(plan, 10, async (group, index): Promise<RunOrder> => {
    const API = apiFor(index);
    try {
      const user = await http(API, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-hl7-${randomUUID()}` } });
      if (user.status !== 200) throw new Error(`POST /v2/user: ${user.status} ${JSON.stringify(user.body)}`);
      const body = { ...orderBody('on_site_collection', user.body.user_id as string), lab_account_id: accounts.get(group)!.id };
      const created = await http(API, 'POST', '/v3/order', { key: tenant.apiKey, body });
      if (created.status !== 200) throw new Error(`POST /v3/order: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.order.id as string, method: group, view: created.body.order, error: null };
    } catch (error) {
      return { id: '', method: group, view: null, error: String(error) };
    }
  });
  scriptedLab.expect(orders.filter((order) => order.method === 'hl7_lab').map((order) => order.id));
  return { orders, scripted: scriptedLab, scriptedFacility: accounts.get('hl7_lab')!.facility, components, placedAt };
}

/**
 * The staff of the on-site collection report each HL7 order's draw once it waits for it (a draw
 * reported earlier is refused with 400, and asked again), bounded by the run's deadline.
 */
async function reportDraws(orders: RunOrder[], tenant: Tenant, deadline: number): Promise<void> {
  await Promise.all(
    orders.map(async (order, index) => {
      while (!shuttingDown && Date.now() < deadline && !isTerminal(order)) {
        const reply = await http(apiFor(index), 'PATCH', `/v3/order/${order.id}/draw_completed`, { key: tenant.apiKey }).catch(() => null);
        if (reply?.status === 200) return;
        await sleepUnlessAborted(2000);
      }
    }),
  );
}

/** Waits until `ready()` or `timeoutMs`; false on the timeout. */
async function until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline || shuttingDown) return false;
    await sleepUnlessAborted(200);
  }
  return true;
}

/**
 * The HL7 faults, beside the main schedule: the scripted lab comes back HL7_LAB_DOWN_S after its
 * orders were placed; labflow's listener is SIGKILLed while the scripted lab sends results (a
 * quarter of them ACKed, more queued) and restarted HL7_LISTENER_DOWN_S later; the sandbox lab's
 * process comes back once the scripted lab has sent everything and Temporal is up again, and is
 * SIGKILLed again once it took orders whose results it still owes (held in its outbox,
 * sandbox_hl7_lab_outbox), then restarted HL7_LISTENER_DOWN_S later: it sends what it owed.
 */
async function runHl7Faults(setup: Hl7Setup, db: DataSource): Promise<Hl7FaultOutcome[]> {
  const outcomes: Hl7FaultOutcome[] = [];
  const step = async (what: string, run: () => Promise<void>) => {
    const atActual = (Date.now() - t0) / 1000;
    log(`fault: ${what}`);
    try {
      await run();
      outcomes.push({ what, ok: true, atActual });
    } catch (error) {
      log(`fault "${what}" failed: ${String(error)}`);
      outcomes.push({ what, ok: false, atActual, error: String(error) });
    }
  };
  const { scripted } = setup;
  try {
    await sleepUnlessAborted(setup.placedAt + HL7_LAB_DOWN_S * 1000 - Date.now());
    if (shuttingDown) return outcomes;
    await step(`scripted HL7 lab back (down ${HL7_LAB_DOWN_S} s from its orders' placement)`, () => scripted.comeBack());

    const expected = HL7_STRAYS + 3 * HL7_ORDERS;
    const sending = await until(() => scripted.sends.filter((send) => send.acked).length >= Math.ceil(expected / 4) && scripted.pending >= 3, 240_000);
    await step(`hl7-listener SIGKILL (the scripted lab sending: ${scripted.pending} results to go)`, async () => {
      if (!sending) throw new Error(`the scripted lab never had results in flight (${scripted.sends.length} queued, ${scripted.pending} pending)`);
      hl7Schedule.listenerKilledWithPending = scripted.pending;
      hl7Schedule.failuresBeforeKill = scripted.sends.reduce((n, send) => n + send.failures.length, 0);
      await hl7ListenerProcess.kill('SIGKILL');
    });
    await sleepUnlessAborted(HL7_LISTENER_DOWN_S * 1000);
    await step('hl7-listener back', async () => {
      hl7Schedule.failuresAfterBack = scripted.sends.reduce((n, send) => n + send.failures.length, 0);
      hl7ListenerProcess.start();
      if (!(await hl7ListenerProcess.waitForLog(HL7_LISTENING, 120_000))) throw new Error('the HL7 listener did not listen within 120 s');
    });

    const drained = await until(() => scripted.pending === 0 && t0 > 0 && Date.now() > t0 + 40_000, 240_000);
    await step('sandbox-hl7-lab back', async () => {
      if (!drained) throw new Error(`the scripted lab still has ${scripted.pending} results to send`);
      sandboxHl7LabProcess.start();
      if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000))) throw new Error('the sandbox HL7 lab did not listen within 120 s');
    });

    // labflow's view of what the sandbox lab owes: its orders it ACKed AA whose two reports are not all in.
    const sandboxIds = setup.orders.filter((order) => order.method === 'sandbox_hl7_lab').map((order) => order.id);
    const owing = async () => {
      const [row]: Array<{ n: number }> = await db.query(
        `SELECT count(*)::int AS n FROM (SELECT order_id FROM hl7_messages WHERE order_id = ANY($1) GROUP BY order_id
           HAVING count(*) FILTER (WHERE direction = 'out' AND ack_code = 'AA') > 0 AND count(*) FILTER (WHERE direction = 'in') < 2) owed`,
        [sandboxIds],
      );
      return row.n;
    };
    const deadline = Date.now() + 240_000;
    while (!shuttingDown && Date.now() < deadline && (hl7Schedule.sandboxKilledOwing = await owing()) === 0) await sleepUnlessAborted(100);
    await step(`sandbox-hl7-lab SIGKILL (owing the results of ${hl7Schedule.sandboxKilledOwing} order(s) it took)`, async () => {
      if (hl7Schedule.sandboxKilledOwing === 0) throw new Error('the sandbox HL7 lab never owed results it had taken orders for');
      await sandboxHl7LabProcess.kill('SIGKILL');
    });
    await sleepUnlessAborted(HL7_LISTENER_DOWN_S * 1000);
    await step('sandbox-hl7-lab back again (sends what its outbox holds)', async () => {
      sandboxHl7LabProcess.start();
      if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000))) throw new Error('the sandbox HL7 lab did not listen within 120 s');
    });
  } finally {
    hl7Schedule.done = true;
  }
  return outcomes;
}

/** The HL7 checks: each order message out once, every result in once, none lost, the lab's final values kept. */
async function checkHl7(db: DataSource, tenant: Tenant, setup: Hl7Setup, outcomes: Hl7FaultOutcome[]): Promise<void> {
  const { scripted } = setup;
  const scriptedOrders = setup.orders.filter((order) => order.method === 'hl7_lab');
  const sandboxOrders = setup.orders.filter((order) => order.method === 'sandbox_hl7_lab');
  const ids = setup.orders.map((order) => order.id);
  console.log('');
  console.log('HL7 labs');
  for (const outcome of outcomes) console.log(`  +${outcome.atActual.toFixed(1)}s ${outcome.what}${outcome.ok ? '' : ` (FAILED: ${outcome.error})`}`);
  const attempts = scripted.sends.reduce((n, send) => n + send.attempts, 0);
  console.log(
    `  scripted lab: ${scripted.received.length} order message(s) received (${scripted.received.filter((row) => row.answer !== 'AA').length} dropped or left unACKed on purpose); ` +
      `${scripted.sends.length} result message(s) sent in ${attempts} attempts`,
  );
  check(
    'HL7 faults applied',
    outcomes.length === 6 && outcomes.every((outcome) => outcome.ok),
    outcomes
      .filter((o) => !o.ok)
      .map((o) => `${o.what}: ${o.error}`)
      .join('; '),
  );

  // Orders out: one message per order (one control id), accepted with AA, though the labs were down,
  // a connection dropped, an ACK never came and workers were killed.
  const outbound: Array<{ order_id: string; n: number; accepted: number }> = await db.query(
    `SELECT order_id, count(*)::int AS n, count(*) FILTER (WHERE state = 'accepted' AND ack_code = 'AA')::int AS accepted
       FROM hl7_messages WHERE direction = 'out' AND order_id = ANY($1) GROUP BY order_id`,
    [ids],
  );
  const outProblems = setup.orders.flatMap((order) => {
    const row = outbound.find((r) => r.order_id === order.id);
    return row?.n === 1 && row.accepted === 1 ? [] : [`${order.method} ${order.id}: ${row?.n ?? 0} order message(s), ${row?.accepted ?? 0} accepted`];
  });
  check(
    `HL7: every order's message went out once when its lab was back (one control id, ACKed AA; ${setup.orders.length} orders)`,
    outProblems.length === 0,
    outProblems.slice(0, 5).join('; '),
  );
  const labProblems: string[] = [];
  scriptedOrders.forEach((order, k) => {
    const rows = scripted.received.filter((row) => row.placer === order.id);
    const controlIds = new Set(rows.map((row) => row.controlId));
    const answers = rows.map((row) => row.answer);
    if (controlIds.size !== 1) labProblems.push(`${order.id}: ${controlIds.size} control ids`);
    if (!answers.includes('AA')) labProblems.push(`${order.id}: never ACKed`);
    if (k % 4 === 1 && answers[0] !== 'dropped') labProblems.push(`${order.id}: first connection not dropped (${answers.join(',')})`);
    if (k % 4 === 2 && answers[0] !== 'no ack') labProblems.push(`${order.id}: first attempt ACKed (${answers.join(',')})`);
  });
  check(
    'scripted lab: each order arrived under one control id; a connection dropped mid-message and an ACK that never came were sent again under the same id',
    labProblems.length === 0,
    labProblems.slice(0, 5).join('; '),
  );

  // Results in: every message the lab sent ACKed AA and stored once; the listener kill cost resends only.
  const unacked = scripted.sends.filter((send) => !send.acked);
  check(
    `scripted lab: all ${scripted.sends.length} result messages ACKed AA`,
    unacked.length === 0,
    unacked
      .map((send) => `${send.controlId} (${send.failures.slice(-1)[0]})`)
      .slice(0, 5)
      .join('; '),
  );
  const duringKill = hl7Schedule.failuresAfterBack - hl7Schedule.failuresBeforeKill;
  check(
    `labflow's listener killed while the lab sent (${hl7Schedule.listenerKilledWithPending} results to go): ${duringKill} attempt(s) failed meanwhile and were sent again`,
    hl7Schedule.listenerKilledWithPending > 0 && duringKill > 0,
    `${hl7Schedule.listenerKilledWithPending} pending at the kill, ${duringKill} failed attempts while it was down`,
  );
  const inbound: Array<{ control_id: string; order_id: string | null; state: string }> = await db.query(
    `SELECT control_id, order_id, state FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1`,
    [setup.scriptedFacility],
  );
  const inProblems: string[] = [];
  const sentIds = new Set(scripted.sends.map((send) => send.controlId));
  for (const controlId of sentIds) {
    const send = scripted.sends.find((row) => row.controlId === controlId)!;
    const rows = inbound.filter((row) => row.control_id === controlId);
    const want = send.kind === 'stray' ? { order: null, state: 'held' } : { order: send.placer, state: 'processed' };
    if (rows.length !== 1) inProblems.push(`${controlId}: stored ${rows.length} times`);
    else if (rows[0].order_id !== want.order || rows[0].state !== want.state)
      inProblems.push(`${controlId}: ${rows[0].state} for ${rows[0].order_id}, want ${want.state} for ${want.order}`);
  }
  const extra = inbound.filter((row) => !sentIds.has(row.control_id));
  if (extra.length) inProblems.push(`${extra.length} stored message(s) the lab never sent`);
  const duplicates = scripted.sends.filter((send) => send.kind === 'F-again').length;
  check(
    `HL7 result messages stored once each (${sentIds.size} distinct; ${duplicates} duplicate ORU(s) ACKed again, not stored again), all processed; ${HL7_STRAYS} results for unknown orders held`,
    inProblems.length === 0,
    inProblems.slice(0, 5).join('; '),
  );
  const held = await db.query(`SELECT count(*)::int AS n FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1 AND state = 'held'`, [
    setup.scriptedFacility,
  ]);
  console.log(`  held for review (unknown orders): ${held[0].n}`);

  // The sandbox lab, killed while it owed results (hl7Schedule.sandboxKilledOwing orders): each of
  // its orders got its preliminary and final report, each stored once and processed, and one
  // partial_results.
  const sandboxInbound: Array<{ order_id: string; control_id: string; n: number; processed: number }> = await db.query(
    `SELECT order_id, control_id, count(*)::int AS n, count(*) FILTER (WHERE state = 'processed')::int AS processed
       FROM hl7_messages WHERE direction = 'in' AND order_id = ANY($1) GROUP BY order_id, control_id`,
    [sandboxOrders.map((order) => order.id)],
  );
  const sandboxProblems = sandboxOrders.flatMap((order) => {
    const rows = sandboxInbound.filter((row) => row.order_id === order.id);
    const reports = rows.map((row) => row.control_id.slice(-2)).sort();
    const partials = ((order.view?.events ?? []) as OrderEvent[]).filter((event) => low(event.status) === 'partial_results').length;
    const problems = [];
    if (JSON.stringify(reports) !== JSON.stringify(['-F', '-P'])) problems.push(`${order.id}: reports ${reports.join(',') || 'none'}`);
    if (rows.some((row) => row.n !== 1 || row.processed !== 1)) problems.push(`${order.id}: a report stored or processed other than once`);
    if (partials !== 1) problems.push(`${order.id}: ${partials} partial_results events`);
    return problems;
  });
  check(
    `sandbox HL7 lab killed owing the results of ${hl7Schedule.sandboxKilledOwing} order(s): every one of its ${sandboxOrders.length} orders got its preliminary and final report, each stored and processed once, one partial_results`,
    hl7Schedule.sandboxKilledOwing > 0 && sandboxProblems.length === 0,
    sandboxProblems.slice(0, 5).join('; '),
  );

  // The orders' results: the scripted lab's final values (no preliminary one, even one sent after
  // the final), the sandbox lab's every component.
  const resultProblems: string[] = [];
  await pool(setup.orders, 10, async (order) => {
    const reply = await http(API, 'GET', `/v3/order/${order.id}/result`, { key: tenant.apiKey }).catch(
      (error: unknown) => ({ status: 0, body: String(error) }) as Reply,
    );
    if (reply.status !== 200) {
      resultProblems.push(`${order.method} ${order.id}: GET result ${reply.status}`);
      return;
    }
    const rows: Array<{ slug: string; result: string }> = reply.body.results ?? [];
    const slugs = rows.map((row) => row.slug).sort();
    if (JSON.stringify(slugs) !== JSON.stringify(setup.components.map((marker) => marker.slug).sort()))
      resultProblems.push(`${order.method} ${order.id}: results ${slugs.join(',')}`);
    if (order.method !== 'hl7_lab') return;
    const k = scriptedOrders.indexOf(order);
    // One partial_results per preliminary report sent before the final (P1, and P2 out of order);
    // a repeated final and a preliminary report after it add none.
    const partials = ((order.view?.events ?? []) as OrderEvent[]).filter((event) => low(event.status) === 'partial_results').length;
    if (partials !== (k % 3 === 0 ? 2 : 1)) resultProblems.push(`${order.id} (k ${k}): ${partials} partial_results events, want ${k % 3 === 0 ? 2 : 1}`);
    if (reply.body.metadata?.status !== 'final') resultProblems.push(`${order.id}: metadata.status ${reply.body.metadata?.status}`);
    setup.components.forEach((marker, index) => {
      const got = rows.find((row) => row.slug === marker.slug)?.result;
      if (got !== finalValue(k, index)) resultProblems.push(`${order.id} (k ${k}): ${marker.slug} ${got}, the final report said ${finalValue(k, index)}`);
    });
  });
  check(
    `HL7 results: every scripted-lab order has the final report's values (none of a partial sent out of order or after the final) and one partial_results per preliminary report before the final, every sandbox-lab order all ${setup.components.length} components (${scriptedOrders.length} + ${sandboxOrders.length} orders)`,
    resultProblems.length === 0,
    `${resultProblems.length}: ${resultProblems.slice(0, 5).join('; ')}`,
  );
}

// --- main ------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  log(
    `fault run: ${PER_METHOD} orders per collection method; ${REPLICAS} API replica(s) ${APIS.join(' ')} and ${REPLICAS} worker(s); management ${MANAGEMENT}, Temporal ${config.temporal.address} (${config.temporal.namespace}), logs ${LOG_DIR}`,
  );
  const receiver = await WebhookReceiver.start();
  const attempts = new Map<string, number>();
  receiver.respond(WEBHOOK_PATH, (request) => {
    if (!request.verified) return { status: 400, body: `bad signature: ${request.verifyError}` };
    const attempt = (attempts.get(request.webhookId) ?? 0) + 1;
    attempts.set(request.webhookId, attempt);
    const hash = createHash('sha256').update(`${request.webhookId}:${attempt}`).digest();
    return hash.readUInt32BE(0) / 2 ** 32 < RECEIVER_FAILURE_SHARE ? { status: 500, body: 'simulated receiver failure' } : { status: 200, body: 'ok' };
  });

  const db = createDataSource(config.databaseUrl, 3);
  await db.initialize();
  const temporalConnection: { client: Client | null; connection: Connection | null } = { client: null, connection: null };
  try {
    for (const proc of allProcesses) proc.start();
    await Promise.all([...APIS.map((api, index) => waitHealthy(api, `API ${apiProcesses[index].name}`)), waitHealthy(MANAGEMENT, 'the management API')]);
    log(`API (${REPLICAS}) and management API are up`);
    // A worker bundles the workflow code before it polls: the run starts with every one polling.
    for (const worker of workerProcesses) {
      if (!(await worker.waitForLog(WORKER_POLLING, 180_000)))
        throw new Error(`${worker.name} did not start polling within 180 s (log ${LOG_DIR}/${worker.name}.log)`);
    }
    log(`worker(s) polling: ${workerProcesses.map((worker) => worker.name).join(', ')}`);
    if (HL7) {
      if (!(await hl7ListenerProcess.waitForLog(HL7_LISTENING, 120_000)))
        throw new Error(`the HL7 listener did not listen within 120 s (log ${LOG_DIR}/hl7-listener.log)`);
      if (!(await sandboxHl7LabProcess.waitForLog(SANDBOX_HL7_LAB_LISTENING, 120_000)))
        throw new Error(`the sandbox HL7 lab did not listen within 120 s (log ${LOG_DIR}/sandbox-hl7-lab.log)`);
      log(`HL7 listener :${HL7_LISTENER_PORT} and sandbox HL7 lab :${SANDBOX_HL7_LAB_PORT} up`);
    }

    const tenant = await createTenant(db);
    const teamApi = (method: string, path: string, body?: unknown) =>
      http(MANAGEMENT, method, `/v1/org/${tenant.orgId}/team/${tenant.teamId}${path}`, { managementKey: tenant.managementKey, body });
    const partial = await teamApi('PATCH', '', { partial_webhooks_enabled: true });
    const endpoint = await teamApi('POST', '/sandbox/webhook', { url: receiver.url(WEBHOOK_PATH) });
    const secret = endpoint.status === 200 ? await teamApi('GET', `/sandbox/webhook/${endpoint.body.id}/secret`) : null;
    if (secret?.body?.key) receiver.secret(WEBHOOK_PATH, secret.body.key as string);
    console.log('setup');
    check('team partial-results webhooks enabled through the management API', partial.status === 200, `${partial.status} ${JSON.stringify(partial.body)}`);
    if (
      !check(
        'webhook endpoint registered through the management API',
        endpoint.status === 200 && Boolean(secret?.body?.key),
        `${endpoint.status} ${JSON.stringify(endpoint.body)}`,
      )
    ) {
      throw new Error('no webhook endpoint');
    }

    // Link Migration: Oura connections imported as a team moving from another system would
    // (the sandbox's Oura; its tokens are the other system's), before the faults; their history is
    // pulled again under the faults (t = 0), paced (LINK_BULK_PULL_BATCH, LINK_BULK_PULL_INTERVAL).
    const migration = await teamApi('PATCH', '', { link_migration_enabled: true });
    check(
      'team Link Migration enabled through the management API',
      migration.status === 200 && migration.body.link_migration_enabled === true,
      `${migration.status} ${JSON.stringify(migration.body)}`,
    );
    const migrated: string[] = await pool(
      Array.from({ length: MIGRATED_USERS }, (_, index) => index),
      5,
      async (index) => {
        const user = await http(apiFor(index), 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-migrated-${randomUUID()}` } });
        return user.body.user_id as string;
      },
    );
    const recipes = migrated.map((userId) => ({
      user_id: userId,
      access_token: `other-system-access-${userId}`,
      refresh_token: `other-system-refresh-${userId}`,
      provider_id: `oura-${userId.slice(0, 8)}`,
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
    }));
    // The API waits LINK_BULK_WAIT (20 s) for the import, then answers 202 and carries on; on a
    // loaded machine it can take longer, so the same request (one idempotency key: the same
    // operation) is asked again until the operation answers 200, bounded.
    const importKey = randomUUID();
    const importBounded = Date.now() + 180_000;
    let imported: Reply;
    do {
      imported = await http(API, 'POST', '/v2/link/bulk_import', {
        key: tenant.apiKey,
        headers: { 'x-idempotency-key': importKey },
        body: { provider: 'oura', connections: recipes, wait_for_completion: true },
      });
    } while (imported.status === 202 && Date.now() < importBounded && !shuttingDown);
    check(
      `${MIGRATED_USERS} Oura connections imported through POST /v2/link/bulk_import (200, none failed)`,
      imported.status === 200 && imported.body.user_ids_imported?.length === MIGRATED_USERS && imported.body.user_ids_failed?.length === 0,
      `${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`,
    );

    // Users and orders, 10 requests in flight.
    const plan = METHODS.flatMap((method) => Array.from({ length: PER_METHOD }, () => method));
    const orders: RunOrder[] = await pool(plan, 10, async (method, index) => {
      const API = apiFor(index);
      try {
        const user = await http(API, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `faults-${randomUUID()}` } });
        if (user.status !== 200) throw new Error(`POST /v2/user: ${user.status} ${JSON.stringify(user.body)}`);
        const created = await http(API, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(method, user.body.user_id as string) });
        if (created.status !== 200) throw new Error(`POST /v3/order: ${created.status} ${JSON.stringify(created.body)}`);
        return { id: created.body.order.id as string, method, view: created.body.order, error: null };
      } catch (error) {
        return { id: '', method, view: null, error: String(error) };
      }
    });
    const notCreated = orders.filter((order) => order.error);
    if (
      !check(
        `${plan.length} orders created through POST /v3/order`,
        notCreated.length === 0,
        notCreated
          .map((order) => order.error)
          .slice(0, 3)
          .join('; '),
      )
    ) {
      throw new Error('orders not created');
    }
    const wrongMethod = orders.filter((order) => order.view?.details?.type !== order.method);
    check(
      'each order has the collection method asked for',
      wrongMethod.length === 0,
      wrongMethod.map((order) => `${order.id}: ${order.view?.details?.type}`).join(', '),
    );
    // The simulated orders; the HL7 labs' orders are played by the labs.
    const simulated = [...orders];
    const hl7 = HL7 ? await setUpHl7(db, tenant) : null;
    if (hl7) {
      const failedHl7 = hl7.orders.filter((order) => order.error);
      if (
        !check(
          `${hl7.orders.length} HL7 lab orders created through POST /v3/order (on-site CMP, lab_account_id of an HL7 lab)`,
          failedHl7.length === 0,
          failedHl7
            .map((order) => order.error)
            .slice(0, 3)
            .join('; '),
        )
      ) {
        throw new Error('HL7 orders not created');
      }
      orders.push(...hl7.orders);
    }

    temporalConnection.connection = await Connection.connect(config.temporal.connection);
    const client = new Client({ connection: temporalConnection.connection, namespace: config.temporal.namespace, dataConverter: labflowDataConverter(config) });
    temporalConnection.client = client;

    // Lost workflows: terminated as a bug or an operator would; every worker's reconciler sees them
    // closed, one of them heals each (a new run resuming from the order's row), once.
    const lost = orders.filter((order) => order.method === 'testkit').slice(0, LOST_WORKFLOWS);
    const firstRuns = new Map<string, string>();
    for (const order of lost) {
      const handle = client.workflow.getHandle(`order:${order.id}`);
      firstRuns.set(order.id, (await handle.describe()).runId);
      await handle.terminate('fault run: workflow lost');
    }
    log(`terminated the workflows of ${lost.length} order(s); waiting for a reconciler to heal them`);
    const unhealed = new Set(lost.map((order) => order.id));
    const healDeadline = Date.now() + 90_000;
    while (unhealed.size > 0 && Date.now() < healDeadline && !shuttingDown) {
      for (const orderId of [...unhealed]) {
        const description = await client.workflow
          .getHandle(`order:${orderId}`)
          .describe()
          .catch(() => null);
        if (description && description.runId !== firstRuns.get(orderId) && description.status.name === 'RUNNING') unhealed.delete(orderId);
      }
      if (unhealed.size > 0) await sleepUnlessAborted(500);
    }
    check(`every lost workflow healed by a reconciler (${lost.length} terminated)`, unhealed.size === 0, `not healed within 90 s: ${[...unhealed].join(', ')}`);

    // The simulations, all at once: t = 0.
    t0 = Date.now();
    const hl7Faults = hl7 ? runHl7Faults(hl7, db) : Promise.resolve([]);
    const draws = hl7 ? reportDraws(hl7.orders, tenant, t0 + DEADLINE_S * 1000) : Promise.resolve();
    log(`POST /v3/order/{id}/test?delay=${SIMULATION_DELAY_S} for ${simulated.length} orders at once`);
    const simulations = await Promise.all(
      simulated.map((order, index) =>
        http(apiFor(index), 'POST', `/v3/order/${order.id}/test?delay=${SIMULATION_DELAY_S}`, { key: tenant.apiKey, body: {} }).then(
          (reply) => ({ order, reply }),
          (error: unknown) => ({ order, reply: { status: 0, body: String(error) } as Reply }),
        ),
      ),
    );
    const pull = await http(API, 'POST', '/v2/link/bulk_trigger_historical_pull', { key: tenant.apiKey, body: { provider: 'oura', user_ids: migrated } }).catch(
      (error: unknown) => ({ status: 0, body: String(error) }) as Reply,
    );
    log(`bulk historical pull of ${migrated.length} Oura connections: ${pull.status}`);
    const refused = simulations.filter(({ reply }) => reply.status !== 200);
    log(`simulations accepted: ${simulations.length - refused.length}/${simulations.length}`);

    const faultOutcomes = await runFaults();
    if (shuttingDown) return;

    // Wait, bounded, until every order is terminal and every outbox event is delivered.
    const deadline = t0 + DEADLINE_S * 1000;
    let lastChange = Date.now();
    let lastSignature = '';
    let lastReport = 0;
    let stopReason = '';
    // Besides the events: the Link Migration operations ended, and each migrated connection's two
    // backfills (its first, and the bulk pull's) sent their historical.data.sleep.created.
    const pendingEvents = async (): Promise<{ unrelayed: number; pending: number; migrating: number }> => {
      const [row] = await db.query(
        `SELECT (SELECT count(*) FROM event_outbox WHERE team_id = $1 AND relayed_at IS NULL)::int AS unrelayed,
                (SELECT count(*) FROM event_deliveries WHERE team_id = $1 AND status = 'pending')::int AS pending,
                ((SELECT count(*) FROM link_bulk_ops WHERE team_id = $1 AND status = 'in_progress')
                  + greatest(0, $2 - (SELECT count(*) FROM event_outbox WHERE team_id = $1 AND event_type = 'historical.data.sleep.created')))::int AS migrating`,
        [tenant.teamId, 2 * MIGRATED_USERS],
      );
      return row;
    };
    for (;;) {
      await pool(
        orders.filter((order) => !isTerminal(order)),
        10,
        async (order, index) => {
          try {
            const reply = await http(apiFor(index), 'GET', `/v3/order/${order.id}`, { key: tenant.apiKey });
            if (reply.status === 200) order.view = reply.body;
          } catch {
            // the API may be restarting; the next round reads it again
          }
        },
      );
      const events = await pendingEvents().catch(() => ({ unrelayed: -1, pending: -1, migrating: -1 }));
      const terminal = orders.filter(isTerminal).length;
      const hl7Progress = hl7
        ? [hl7.scripted.received.length, hl7.scripted.sends.filter((send) => send.acked).length, hl7.scripted.sends.length, hl7Schedule.done]
        : [];
      const signature = JSON.stringify([orders.map((order) => order.view?.last_event?.id), receiver.requests.length, events, hl7Progress]);
      if (signature !== lastSignature) {
        lastSignature = signature;
        lastChange = Date.now();
      }
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(
          `terminal ${terminal}/${orders.length} (completed ${orders.filter((order) => order.view?.status === 'completed').length}); ` +
            `webhook requests ${receiver.requests.length}; outbox unrelayed ${events.unrelayed}, deliveries pending ${events.pending}; Link Migration still to go ${events.migrating}`,
        );
      }
      const hl7Busy = hl7 !== null && (!hl7Schedule.done || hl7.scripted.pending > 0);
      if (terminal === orders.length && events.unrelayed === 0 && events.pending === 0 && events.migrating === 0 && !hl7Busy) {
        stopReason = 'every order terminal and every event delivered';
        break;
      }
      if (Date.now() > deadline) {
        stopReason = `deadline (${DEADLINE_S} s after the simulations started)`;
        break;
      }
      // A lab still down is a fault still scheduled, not a standstill.
      if (Date.now() - lastChange > QUIET_S * 1000 && hl7Schedule.done) {
        stopReason = `no progress for ${QUIET_S} s`;
        break;
      }
      if (shuttingDown) break;
      await sleepUnlessAborted(3000);
    }
    // Interrupted (Ctrl-C): no checks on a run cut short; finish() stops the processes.
    if (shuttingDown) return;
    log(`stopped waiting: ${stopReason}`);

    // Final reads of every order.
    await pool(orders, 10, async (order) => {
      const reply = await http(API, 'GET', `/v3/order/${order.id}`, { key: tenant.apiKey }).catch(() => null);
      if (reply?.status === 200) order.view = reply.body;
    });

    // The workflows, as Temporal sees them.
    const workflowStatus = new Map<string, string>();
    await pool(orders, 10, async (order) => {
      try {
        const description = await client.workflow.getHandle(`order:${order.id}`).describe();
        workflowStatus.set(order.id, description.status.name);
      } catch (error) {
        workflowStatus.set(order.id, error instanceof Error && /not found/i.test(error.message) ? 'MISSING' : `UNKNOWN (${String(error)})`);
      }
    });

    // Outbox and deliveries of this team.
    const cipher = new PhiCipher(config.phiEncryptionKey);
    const outbox: Array<{ id: string; event_type: string; subject_id: string | null; user_id: string | null; data: any }> = (
      await db.query(`SELECT id, event_type, subject_id, user_id, data_enc FROM event_outbox WHERE team_id = $1 ORDER BY created_at, id`, [tenant.teamId])
    ).map((row: { id: string; event_type: string; subject_id: string | null; user_id: string | null; data_enc: string }) => ({
      id: row.id,
      event_type: row.event_type,
      subject_id: row.subject_id,
      user_id: row.user_id,
      data: cipher.decryptJson<any>(row.data_enc),
    }));
    const deliveries: Array<{ event_id: string; status: string; attempt_count: number }> = await db.query(
      `SELECT event_id, status, attempt_count FROM event_deliveries WHERE team_id = $1`,
      [tenant.teamId],
    );

    // Webhooks the receiver got, deduplicated by webhook id.
    const requests = receiver.forPath(WEBHOOK_PATH);
    const firstById = new Map<string, (typeof requests)[number]>();
    for (const request of requests) if (!firstById.has(request.webhookId)) firstById.set(request.webhookId, request);
    const accepted = new Set(requests.filter((request) => request.answeredStatus !== null && request.answeredStatus < 300).map((request) => request.webhookId));
    const failedAttempts = requests.filter((request) => request.answeredStatus === 500).length;

    // --- per collection method -----------------------------------------------------------------------
    const rows: string[] = [];
    const stranded: RunOrder[] = [];
    for (const method of GROUPS) {
      const ofMethod = orders.filter((order) => order.method === method);
      const completed = ofMethod.filter((order) => order.view?.status === 'completed');
      // Stranded: not terminal when the wait ended (whether its workflow still runs or has closed).
      const strandedHere = ofMethod.filter((order) => !isTerminal(order));
      stranded.push(...strandedHere);
      const otherTerminal = ofMethod.filter((order) => isTerminal(order) && order.view?.status !== 'completed');
      const closedNotTerminal = strandedHere.filter((order) => workflowStatus.get(order.id) !== 'RUNNING').length;
      rows.push(
        `${method.padEnd(20)} ${String(ofMethod.length).padStart(6)} ${String(completed.length).padStart(10)} ${String(strandedHere.length).padStart(9)} ` +
          `${String(closedNotTerminal).padStart(15)} ${String(otherTerminal.length).padStart(15)}`,
      );
    }
    console.log('');
    console.log(
      `${'collection method'.padEnd(20)} ${'orders'.padStart(6)} ${'completed'.padStart(10)} ${'stranded'.padStart(9)} ${'(wf closed)'.padStart(15)} ${'other terminal'.padStart(15)}`,
    );
    for (const row of rows) console.log(row);
    console.log(
      `${'all'.padEnd(20)} ${String(orders.length).padStart(6)} ${String(orders.filter((order) => order.view?.status === 'completed').length).padStart(10)} ${String(stranded.length).padStart(9)}`,
    );
    console.log('');
    console.log(
      `webhooks: ${requests.length} requests, ${firstById.size} distinct webhook ids, ${failedAttempts} answered 500 on purpose; ` +
        `outbox ${outbox.length} events; deliveries ${deliveries.length} (${deliveries.filter((d) => d.status === 'succeeded').length} succeeded, ` +
        `${deliveries.filter((d) => d.status === 'pending').length} pending, ${deliveries.filter((d) => d.status === 'exhausted').length} exhausted)`,
    );
    const paths = new Map<string, number>();
    for (const order of orders) {
      const key = `${order.method}: ${((order.view?.events ?? []) as OrderEvent[]).map((event) => low(event.status)).join(' > ')}`;
      paths.set(key, (paths.get(key) ?? 0) + 1);
    }
    console.log('order paths (low-level statuses):');
    for (const [path, count] of [...paths].sort()) console.log(`  ${String(count).padStart(3)} x ${path}`);
    console.log('faults:');
    for (const outcome of faultOutcomes)
      console.log(`  +${outcome.atActual.toFixed(1)}s ${outcome.fault.what}${outcome.ok ? '' : ` (FAILED: ${outcome.error})`}`);
    for (const proc of allProcesses) {
      if (proc.unexpectedExits) console.log(`  ${proc.name} also exited on its own ${proc.unexpectedExits} time(s) and was restarted`);
    }

    // --- the stranded ones, explained from their workflow histories --------------------------------------
    if (stranded.length) {
      console.log('');
      console.log(`stranded orders (${stranded.length}):`);
      for (const order of stranded) console.log(await explain(client, order, workflowStatus.get(order.id) ?? '?'));
      // What the reconciler recorded about them (the stranded_orders table, where it exists).
      const [{ present }] = await db.query(`SELECT to_regclass('stranded_orders') IS NOT NULL AS present`);
      if (present) {
        const raised: Array<{ order_id: string; kind: string; state: string; heal_attempts: number; detail: string }> = await db.query(
          `SELECT order_id, kind, state, heal_attempts, detail FROM stranded_orders WHERE team_id = $1 ORDER BY created_at`,
          [tenant.teamId],
        );
        const strandedIds = new Set(stranded.map((order) => order.id));
        console.log('');
        console.log(
          `reconciler (stranded_orders): ${raised.length} row(s) for this team; ${stranded.filter((order) => !raised.some((row) => row.order_id === order.id)).length} stranded order(s) without one`,
        );
        for (const row of raised) {
          console.log(
            `  ${row.order_id}${strandedIds.has(row.order_id) ? ' (stranded)' : ''}: ${row.kind}/${row.state}, heal attempts ${row.heal_attempts}: ${row.detail.slice(0, 200)}`,
          );
        }
      }
      // The same, as the Temporal CLI shows it (what ops would run).
      const cliArgs = ['--address', config.temporal.address, '--namespace', config.temporal.namespace];
      console.log('');
      console.log(`$ temporal workflow count ${cliArgs.join(' ')} --query "GROUP BY ExecutionStatus"`);
      console.log(await temporalCli(['workflow', 'count', ...cliArgs, '--query', 'GROUP BY ExecutionStatus']));
      console.log(`$ temporal workflow list ${cliArgs.join(' ')} --query "ExecutionStatus != 'Completed'" --limit 30`);
      console.log(await temporalCli(['workflow', 'list', ...cliArgs, '--query', "ExecutionStatus != 'Completed'", '--limit', '30']));
    }

    // --- checks -------------------------------------------------------------------------------------------
    console.log('');
    console.log('checks');
    check(
      `every simulation accepted (POST /v3/order/{id}/test?delay=${SIMULATION_DELAY_S} answered 200)`,
      refused.length === 0,
      refused
        .slice(0, 3)
        .map(({ order, reply }) => `${order.id}: ${reply.status} ${JSON.stringify(reply.body)}`)
        .join('; '),
    );
    check(
      'every fault applied on schedule',
      faultOutcomes.every((outcome) => outcome.ok),
      faultOutcomes
        .filter((o) => !o.ok)
        .map((o) => `${o.fault.what}: ${o.error}`)
        .join('; '),
    );
    const unverified = requests.filter((request) => !request.verified);
    check(
      'every webhook request carries a valid signature (svix and standardwebhooks)',
      unverified.length === 0,
      `${unverified.length} not verified, e.g. ${unverified[0]?.verifyError}`,
    );

    const outboxByOrder = new Map<string, typeof outbox>();
    for (const row of outbox) {
      const orderId = row.event_type.startsWith('labtest.order.') ? (row.data?.id as string) : ((row.data?.order_id as string) ?? row.subject_id ?? '');
      outboxByOrder.set(orderId, [...(outboxByOrder.get(orderId) ?? []), row]);
    }
    const webhooksByOrder = new Map<string, any[]>();
    for (const request of firstById.values()) {
      const json = request.json;
      if (!json?.event_type?.startsWith('labtest.order.')) continue;
      const orderId = json.data?.id as string;
      webhooksByOrder.set(orderId, [...(webhooksByOrder.get(orderId) ?? []), json]);
    }

    for (const method of GROUPS) {
      const ofMethod = orders.filter((order) => order.method === method);
      const strandedHere = stranded.filter((order) => order.method === method);
      check(
        `${method}: stranded = 0`,
        strandedHere.length === 0,
        `${strandedHere.length} stranded: ${strandedHere.map((order) => `${order.id} (${order.view?.last_event?.status ?? '?'}, workflow ${workflowStatus.get(order.id)})`).join(', ')}`,
      );
      const notCompleted = ofMethod.filter((order) => order.view?.status !== 'completed');
      check(
        `${method}: every order completed`,
        notCompleted.length === 0,
        `${ofMethod.length - notCompleted.length}/${ofMethod.length} completed; not: ${notCompleted.map((order) => `${order.id} ${order.view?.last_event?.status ?? '?'}`).join(', ')}`,
      );

      // No transition twice: event ids unique; the order.updated webhooks and outbox rows are the
      // order's events after the first, each once.
      const problems: string[] = [];
      const outboxProblems: string[] = [];
      const lostHere: string[] = [];
      for (const order of ofMethod) {
        const events: OrderEvent[] = order.view?.events ?? [];
        const ids = events.map((event) => event.id);
        if (new Set(ids).size !== ids.length) problems.push(`${order.id}: event ids repeat (${ids.join(',')})`);
        const expected = events.slice(1).map((event) => `${event.id}:${event.status}`);
        const hooks = webhooksByOrder.get(order.id) ?? [];
        const created = hooks.filter((hook) => hook.event_type === 'labtest.order.created');
        const updated = hooks
          .filter((hook) => hook.event_type === 'labtest.order.updated')
          .map((hook) => hook.data?.last_event as OrderEvent)
          .sort((a, b) => a.id - b.id)
          .map((event) => `${event.id}:${event.status}`);
        if (created.length !== 1) problems.push(`${order.id}: ${created.length} labtest.order.created webhooks`);
        if (JSON.stringify(updated) !== JSON.stringify(expected)) {
          problems.push(
            `${order.id}: labtest.order.updated webhooks [${updated.map(low).join(' ')}] vs events after the first [${expected.map(low).join(' ')}]`,
          );
        }
        const rowsOfOrder = outboxByOrder.get(order.id) ?? [];
        const outboxUpdated = rowsOfOrder
          .filter((row) => row.event_type === 'labtest.order.updated')
          .map((row) => row.data?.last_event as OrderEvent)
          .sort((a, b) => a.id - b.id)
          .map((event) => `${event.id}:${event.status}`);
        if (JSON.stringify(outboxUpdated) !== JSON.stringify(expected)) {
          outboxProblems.push(`${order.id}: outbox [${outboxUpdated.map(low).join(' ')}] vs events after the first [${expected.map(low).join(' ')}]`);
        }
        for (const row of rowsOfOrder) if (!accepted.has(row.id)) lostHere.push(`${order.id}: ${row.event_type} ${row.id}`);
      }
      check(
        `${method}: no transition twice (event ids unique; order webhooks = events after the first, each once, in order)`,
        problems.length === 0,
        `${problems.length} order(s): ${problems.slice(0, 5).join('; ')}`,
      );
      check(
        `${method}: outbox labtest.order.updated rows = events after the first, each once`,
        outboxProblems.length === 0,
        `${outboxProblems.length} order(s): ${outboxProblems.slice(0, 5).join('; ')}`,
      );
      check(
        `${method}: no event lost (every outbox event of its orders answered 2xx by the receiver)`,
        lostHere.length === 0,
        `${lostHere.length} lost: ${lostHere.slice(0, 5).join('; ')}`,
      );
    }
    // Link Migration under the faults: both operations ended, every user processed once; each
    // migrated user has one connection, announced once, and its history sent twice (first backfill,
    // bulk pull), each delivered under one webhook id.
    check(
      `bulk historical pull accepted (POST /v2/link/bulk_trigger_historical_pull answered 202)`,
      pull.status === 202,
      `${pull.status} ${JSON.stringify(pull.body)}`,
    );
    const ops: Array<{ type: string; status: string; done: number; failed: number; pending: number }> = await db.query(
      `SELECT o.type, o.status,
              count(*) FILTER (WHERE i.outcome = 'done')::int AS done, count(*) FILTER (WHERE i.outcome = 'failed')::int AS failed,
              count(*) FILTER (WHERE i.outcome IS NULL)::int AS pending
         FROM link_bulk_ops o JOIN link_bulk_op_items i ON i.op_id = o.id WHERE o.team_id = $1 GROUP BY o.id ORDER BY o.started_at`,
      [tenant.teamId],
    );
    check(
      `Link Migration: the import and the historical pull each ended success with all ${MIGRATED_USERS} users done, none failed or left`,
      ops.length === 2 && ops.every((op) => op.status === 'success' && op.done === MIGRATED_USERS && op.failed === 0 && op.pending === 0),
      JSON.stringify(ops),
    );
    const connections: Array<{ user_id: string; n: number }> = await db.query(
      `SELECT user_id, count(*)::int AS n FROM provider_connections WHERE team_id = $1 AND provider = 'oura' GROUP BY user_id`,
      [tenant.teamId],
    );
    const migrationProblems: string[] = [];
    for (const userId of migrated) {
      const n = connections.find((row) => row.user_id === userId)?.n ?? 0;
      if (n !== 1) migrationProblems.push(`${userId}: ${n} connections`);
      const hooks = (type: string) => [...firstById.values()].filter((request) => request.json?.event_type === type && request.json?.user_id === userId);
      const created = hooks('provider.connection.created');
      const historical = hooks('historical.data.sleep.created');
      if (created.length !== 1) migrationProblems.push(`${userId}: ${created.length} provider.connection.created`);
      if (historical.length !== 2) migrationProblems.push(`${userId}: ${historical.length} historical.data.sleep.created`);
      const lostHooks = outbox.filter((row) => row.user_id === userId && !accepted.has(row.id));
      if (lostHooks.length > 0) migrationProblems.push(`${userId}: ${lostHooks.length} events not delivered (${lostHooks[0].event_type})`);
    }
    check(
      'each migrated user: one Oura connection, one provider.connection.created, historical.data.sleep.created once per backfill (2), every event delivered',
      migrationProblems.length === 0,
      `${migrationProblems.length} problem(s): ${migrationProblems.slice(0, 5).join('; ')}`,
    );

    // The lost workflows: healed once each, though every worker runs a reconciler.
    const healProblems: string[] = [];
    for (const order of lost) {
      const runs: string[] = [];
      for await (const run of client.workflow.list({ query: `WorkflowId = 'order:${order.id}'` })) runs.push(run.runId);
      const [row]: Array<{ heal_attempts: number } | undefined> = await db.query(
        `SELECT heal_attempts FROM stranded_orders WHERE order_id = $1 AND kind = 'closed'`,
        [order.id],
      );
      if (runs.length !== 2 || row?.heal_attempts !== 1) healProblems.push(`${order.id}: ${runs.length} runs, heal_attempts ${row?.heal_attempts ?? 'no row'}`);
    }
    check(
      `each lost workflow healed exactly once by the ${REPLICAS} worker(s)' reconcilers (2 runs, heal_attempts 1)`,
      healProblems.length === 0,
      healProblems.join('; '),
    );

    // A key revoked through the management API is refused by every API replica at once.
    const revocation = await revokedKeyRefusals(tenant);
    check(
      `a revoked key is refused by all ${REPLICAS} API replica(s) within ${REVOCATION_BOUND_MS} ms of the revocation (${revocation.map((r) => `${r.api}: ${r.ms === null ? 'still accepted' : `${r.ms} ms`}`).join(', ')})`,
      revocation.every((r) => r.ms !== null && r.accepted),
      revocation.map((r) => `${r.api}: ${r.detail}`).join('; '),
    );

    if (hl7) {
      await draws;
      await checkHl7(db, tenant, hl7, await hl7Faults);
    }

    const lostAny = outbox.filter((row) => !accepted.has(row.id));
    const orderEventCount = outbox.filter((row) => row.event_type.startsWith('labtest.order.')).length;
    check(
      `no event of the team lost (all ${outbox.length} outbox events: ${orderEventCount} order, ${outbox.length - orderEventCount} appointment/other; each answered 2xx at least once)`,
      lostAny.length === 0,
      `${lostAny.length} never accepted: ${lostAny
        .slice(0, 5)
        .map((row) => `${row.event_type} ${row.id}`)
        .join('; ')}`,
    );
  } finally {
    await temporalConnection.connection?.close().catch(() => undefined);
    await db.destroy().catch(() => undefined);
    await receiver.close().catch(() => undefined);
  }
}

/**
 * A second team key, used on every API replica (each caches it as verified), revoked through the
 * management API; then each replica is asked until it refuses the key (bounded). `ms`: how long
 * after the revocation answered that replica first refused it (null: not within the bound).
 */
async function revokedKeyRefusals(tenant: Tenant): Promise<Array<{ api: string; accepted: boolean; ms: number | null; detail: string }>> {
  const path = `/v1/org/${tenant.orgId}/team_api_keys/sandbox/us`;
  const issued = await http(MANAGEMENT, 'POST', path, {
    managementKey: tenant.managementKey,
    body: { team_id: tenant.teamId, label: 'revoked by the fault run' },
  });
  if (issued.status !== 200)
    return APIS.map((api) => ({ api, accepted: false, ms: null, detail: `key not issued: ${issued.status} ${JSON.stringify(issued.body)}` }));
  const key = issued.body.value as string;
  const before = await Promise.all(APIS.map((api) => http(api, 'GET', '/v2/user?limit=1', { key })));
  const revoked = await http(MANAGEMENT, 'DELETE', `${path}?api_key_id=${issued.body.id}`, { managementKey: tenant.managementKey });
  const revokedAt = Date.now();
  if (revoked.status !== 200)
    return APIS.map((api) => ({ api, accepted: false, ms: null, detail: `not revoked: ${revoked.status} ${JSON.stringify(revoked.body)}` }));
  return Promise.all(
    APIS.map(async (api, index) => {
      const accepted = before[index].status === 200;
      for (;;) {
        const reply = await http(api, 'GET', '/v2/user?limit=1', { key }).catch(() => null);
        const ms = Date.now() - revokedAt;
        if (reply?.status === 401) return { api, accepted, ms, detail: `before ${before[index].status}, refused after ${ms} ms` };
        if (ms > REVOCATION_BOUND_MS)
          return { api, accepted, ms: null, detail: `before ${before[index].status}, still ${reply?.status ?? 'no answer'} after ${ms} ms` };
        await sleep(20);
      }
    }),
  );
}

/** Runs the Temporal CLI of the fault run; its output (or error) as text. */
function temporalCli(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(TEMPORAL_CLI, args, { env: cliEnv, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve(`${stdout}${stderr}${error && !stdout ? `(${error.message})` : ''}`.trimEnd()),
    );
  });
}

/** One stranded order: what the API says, what Temporal says, and the tail of its history. */
async function explain(client: Client, order: RunOrder, status: string): Promise<string> {
  const lines = [`  ${order.method} ${order.id}: order ${order.view?.status} / ${order.view?.last_event?.status}; workflow order:${order.id} ${status}`];
  const handle = client.workflow.getHandle(`order:${order.id}`);
  if (status === 'FAILED' || status === 'TERMINATED' || status === 'TIMED_OUT' || status === 'CANCELED') {
    try {
      await handle.result();
    } catch (error) {
      const cause = error instanceof WorkflowFailedError ? error.cause : error;
      lines.push(`    failure: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`);
    }
  }
  try {
    const description = await handle.describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      lines.push(`    pending activity ${activity.activityType?.name} (attempt ${activity.attempt}, state ${activity.state})`);
    }
    for (const child of description.raw.pendingChildren ?? []) lines.push(`    pending child ${child.workflowId} (${child.workflowTypeName})`);
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const tail = events.slice(-14).map((event) => {
      const type = temporal.api.enums.v1.EventType[event.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(event.eventType);
      const detail =
        event.workflowExecutionSignaledEventAttributes?.signalName ??
        event.activityTaskScheduledEventAttributes?.activityType?.name ??
        event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ??
        event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
        event.timerStartedEventAttributes?.timerId ??
        '';
      return `${event.eventId} ${type}${detail ? `(${detail})` : ''}`;
    });
    lines.push(`    history (${events.length} events), last: ${tail.join(', ')}`);
  } catch (error) {
    lines.push(`    history unavailable: ${String(error)}`);
  }
  return lines.join('\n');
}

let exiting = false;
async function finish(code: number): Promise<never> {
  if (exiting) return new Promise<never>(() => undefined);
  exiting = true;
  await shutdown().catch((error: unknown) => console.error(`[faults] shutdown: ${String(error)}`));
  console.log(`[faults] took ${((Date.now() - started) / 1000).toFixed(0)} s; logs in ${LOG_DIR}`);
  console.log(`faults: ${passed} passed, ${failed} failed`);
  process.exit(code);
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => {
    console.log(`\n[faults] ${signal}: stopping the fault run's processes`);
    check('run not interrupted', false, signal);
    void finish(code);
  });
}

main().then(
  () => finish(failed === 0 ? 0 : 1),
  (error: unknown) => {
    check('the fault run ran to its end', false, error instanceof Error ? (error.stack ?? error.message) : String(error));
    return finish(1);
  },
);
