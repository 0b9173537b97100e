import type { WebhookReceiver } from './webhook-receiver';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { recordResponses } from './response-recorder';
import { API_DOCUMENT, ApiModule } from '../../src/app.module';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { createHttpApp } from '../../src/common/http-app';
import type { Logger } from '../../src/common/logger';
import { type LabflowConfig, loadConfig } from '../../src/config/config';
import { PhiCipher } from '../../src/common/crypto';
import { startTracing, type Tracing } from '../../src/common/tracing/tracing';
import { TEMPORAL_CLIENT } from '../../src/core.tokens';
import { type EventProcessing, startEventProcessing } from '../../src/events/event-processing';
import { MANAGEMENT_DOCUMENT, ManagementModule } from '../../src/management.module';
import { createLabflowWorker, createLabReportWorker } from '../../src/temporal-worker';
import { type SandboxCallbackProcessor, startSandboxCallbackProcessor } from '../../src/adapters/sandbox-callbacks/sandbox-callback.processor';
import { type ApiEnvironment, type OrgPlan, OrgEntity, type Region, TeamEntity } from '../../src/tenancy/entities';

export interface TestStack {
  config: LabflowConfig;
  /** Base URL of the main API, e.g. http://127.0.0.1:41234 */
  apiUrl: string;
  managementUrl: string;
  api: NestFastifyApplication;
  db: DataSource;
  temporal: Client;
  /** This stack's own task queue: workflows started through `api` run on `worker`. */
  taskQueue: string;
  /** The Temporal worker on that task queue (null with `worker: false`). */
  temporalWorker: Worker | null;
  /** The outbox relay and delivery worker, when started with `events`. */
  events: EventProcessing | null;
  /**
   * The teams this stack's relay works for: every tenant made with `createTenant(stack.db)`;
   * add others (teams created through the API) by hand. Test files share one database, so a
   * relay must not take another file's events.
   */
  eventTeams: Set<string>;
  /** The sandbox partner callback sender, when started with `sandboxCallbacks`. */
  sandboxCallbacks: SandboxCallbackProcessor | null;
  /**
   * This process's tracing, on when the stack's env names OTEL_EXPORTER_OTLP_ENDPOINT (one service,
   * labflow-test, for the API, worker and delivery alike); shut down by close().
   */
  tracing: Tracing | null;
  /** Starts another sandbox callback sender on this stack's queue (a test replacing a stopped one). */
  startSandboxCallbacks(): SandboxCallbackProcessor;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Start a Temporal worker on this stack's task queue (default true). */
  worker?: boolean;
  /**
   * Start the lab report worker on this stack's lab report queue with the Temporal worker (default
   * false): only suites that upload or review lab reports need it, and it costs a stack's boot
   * about 0.6 CPU-seconds (docs/development.md, CI time).
   */
  labReportWorker?: boolean;
  /** Start the management API too (default false). */
  management?: boolean;
  /**
   * Also run the outbox relay and the webhook/destination delivery worker in-process (default
   * false); `{ relay: true, delivery: false }` runs only the relay (a test runs the other apart).
   * Every stack gets a BullMQ queue of its own (EVENTS_QUEUE), so parallel files never share jobs.
   */
  events?: boolean | { relay?: boolean; delivery?: boolean };
  /**
   * Sandbox partners call back (default false): sandbox callbacks are scheduled on a BullMQ queue
   * of this stack's own (SANDBOX_CALLBACKS_QUEUE) and sent in-process to this stack's API, signed
   * with PARTNER_WEBHOOK_SECRET (set it in `env`). Without it, sandbox partners stay silent.
   */
  sandboxCallbacks?: boolean;
  /** Extra environment variables, e.g. { USER_DELETION_GRACE: '2s' }. */
  env?: Record<string, string>;
  /**
   * One logger for the apps, the relay and delivery worker and the sandbox callback sender (a test
   * that reads the logs passes one writing to a buffer). Default: each app its own from the
   * configuration, the background parts quiet.
   */
  logger?: Logger;
}

/**
 * The real stack in-process for one test file: the API (and optionally the management API) on
 * random ports, Postgres, Redis, and a Temporal worker on a task queue of its own.
 */
export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  // A stack's own queue, unless the test continues another stack's workflows (a restart) on its queue.
  const taskQueue = options.env?.TEMPORAL_TASK_QUEUE ?? `test-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    API_PORT: '0',
    MANAGEMENT_PORT: '0',
    TEMPORAL_TASK_QUEUE: taskQueue,
    EVENTS_QUEUE: `events-${taskQueue}`,
    LAB_REPORT_TASK_QUEUE: `lab-reports-${taskQueue}`,
    SANDBOX_CALLBACKS: options.sandboxCallbacks ? 'true' : 'false',
    SANDBOX_CALLBACKS_QUEUE: `sandbox-callbacks-${taskQueue}`,
    // Test files share a Redis and one client address (127.0.0.1): each stack counts its own
    // rate limits, unless a test gives two stacks one prefix (replicas sharing a budget).
    RATE_LIMIT_REDIS_PREFIX: `rate-limits-${taskQueue}`,
    LOG_REQUESTS: 'false',
    ...options.env,
  });
  const closers: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    // Worker first (drains), then the apps (close Postgres, Redis, Temporal client).
    for (const close of closers.reverse()) await close();
  };
  try {
    // Before anything connects: the apps and Temporal connections trace only if it is on.
    const tracing = startTracing('labflow-test', config.tracing);
    // Closed last, so it exports the spans of everything closing before it.
    if (tracing) closers.push(() => tracing.shutdown());
    const api = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT, { logger: options.logger });
    recordResponses(api, 'api');
    await api.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => api.close());
    // The sandbox partners (the worker's activities) call this API's partner webhooks here.
    const apiUrl = await urlOf(api);

    let managementUrl = '';
    if (options.management) {
      const management = await createHttpApp(ManagementModule.forRoot(config), config, MANAGEMENT_DOCUMENT, { logger: options.logger });
      recordResponses(management, 'management');
      await management.listen({ port: 0, host: '127.0.0.1' });
      managementUrl = await urlOf(management);
      closers.push(() => management.close());
    }

    let temporalWorker: Worker | null = null;
    if (options.worker !== false) {
      const started = await startWorker(api, config, taskQueue, options.labReportWorker === true, apiUrl);
      temporalWorker = started.worker;
      closers.push(started.stop);
    }

    let events: EventProcessing | null = null;
    const eventTeams = new Set<string>();
    EVENT_TEAMS.set(api.get(DataSource), eventTeams);
    if (options.events) {
      const roles = options.events === true ? {} : options.events;
      // Quiet: expected warnings (exhausted deliveries, disabled endpoints) would flood test output.
      events = startEventProcessing(
        { db: api.get(DataSource), cipher: api.get(PhiCipher), config },
        { logger: options.logger ?? { warn: () => undefined }, teams: eventTeams, ...roles },
      );
      const started = events;
      // Closed before the apps (they own the Postgres pool the relay uses).
      closers.push(() => started.stop());
    }

    const startSandboxCallbacks = () => {
      if (!config.orders.partnerWebhookSecret) throw new Error('sandboxCallbacks needs PARTNER_WEBHOOK_SECRET in the stack env');
      const processor = startSandboxCallbackProcessor({
        redisUrl: config.redisUrl,
        queueName: config.sandboxCallbacks.queueName,
        baseUrl: apiUrl,
        secret: config.orders.partnerWebhookSecret,
        logger: options.logger ?? { warn: () => undefined },
      });
      // Closed before the apps; stopping twice is harmless.
      closers.push(() => processor.stop());
      return processor;
    };
    if (options.sandboxCallbacks) {
      // Runs after the senders stopped: this stack's callback jobs leave Redis with it.
      closers.push(async () => {
        const { Queue } = await import('bullmq');
        const queue = new Queue(config.sandboxCallbacks.queueName, { connection: { url: config.redisUrl } });
        await queue.obliterate({ force: true }).catch(() => undefined);
        await queue.close();
      });
    }
    const sandboxCallbacks = options.sandboxCallbacks ? startSandboxCallbacks() : null;

    return {
      config,
      apiUrl,
      managementUrl,
      api,
      db: api.get(DataSource),
      temporal: api.get<Client>(TEMPORAL_CLIENT),
      taskQueue,
      temporalWorker,
      events,
      eventTeams,
      sandboxCallbacks,
      tracing,
      startSandboxCallbacks,
      close: closeAll,
    };
  } catch (error) {
    // A partial start must not leave servers running (Jest would never exit).
    await closeAll().catch(() => undefined);
    throw error;
  }
}

/** Per stack (by its DataSource): the teams its relay serves; createTenant adds to it. */
const EVENT_TEAMS = new WeakMap<DataSource, Set<string>>();

async function startWorker(app: INestApplication, config: LabflowConfig, taskQueue: string, withLabReports: boolean, apiUrl: string) {
  const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run tests through jest (global setup).');
  const { worker, connection }: { worker: Worker; connection: NativeConnection } = await createLabflowWorker(app, config, {
    taskQueue,
    workflowBundle: { codePath },
    partnersApiUrl: apiUrl,
  });
  const running = worker.run();
  // The lab report worker on this stack's own lab report queue (LAB_REPORT_TASK_QUEUE above).
  const labReports = withLabReports ? await startLabReportWorker(app, config) : null;
  return {
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.all([running, labReports?.stop()]);
      await connection.close();
    },
  };
}

/**
 * The built worker (scripts/test.sh builds dist/) in a process of its own, for a test to SIGKILL:
 * this process's environment with `env` over it (its roles and queues); its output appended to
 * `logFile` when one is named. It loads the run's workflow bundle (WORKFLOW_BUNDLE) rather than
 * bundling workflows/ again at its start.
 */
export function spawnBuiltWorker(env: Record<string, string>, logFile?: string): ChildProcess {
  const output = logFile ? openSync(logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, [join(__dirname, '../../dist/src/worker.js')], {
    env: { ...process.env, NODE_ENV: 'test', ...(process.env.LABFLOW_WORKFLOW_BUNDLE ? { WORKFLOW_BUNDLE: process.env.LABFLOW_WORKFLOW_BUNDLE } : {}), ...env },
    stdio: ['ignore', output, output],
  });
  if (typeof output === 'number') closeSync(output);
  return child;
}

/** A Temporal worker in this process on the stack's task queue (a stack started with `worker: false`, or replacing a killed one). */
export async function startTemporalWorker(stack: TestStack): Promise<{ worker: Worker; stop(): Promise<void> }> {
  return startWorker(stack.api, stack.config, stack.taskQueue, false, stack.apiUrl);
}

/** A lab report worker in this process on the stack's lab report queue (a test may start another). */
export async function startLabReportWorker(app: INestApplicationContext, config: LabflowConfig): Promise<{ worker: Worker; stop(): Promise<void> }> {
  const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run tests through jest (global setup).');
  const { worker, connection } = await createLabReportWorker(app, config, { workflowBundle: { codePath } });
  return { worker, stop: runUntilStopped(worker, connection) };
}

/**
 * Runs `worker` and returns how to stop it: shut down, wait for the run to end, close its
 * connection. Idempotent: a test may stop it and then its cleanup stops it again.
 */
export function runUntilStopped(worker: Worker, connection: NativeConnection): () => Promise<void> {
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    })();
    return stopped;
  };
}

async function urlOf(app: INestApplication): Promise<string> {
  const address = (app as NestFastifyApplication).getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('app is not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

export interface Tenant {
  orgId: string;
  teamId: string;
  /** A team API key for `environment` (default sandbox). */
  apiKey: string;
  apiKeyId: string;
  /** An org_admin management key. */
  managementKey: string;
  managementKeyId: string;
}

/** A fresh org + team with a team API key and an org management key, straight through the DB. */
export async function createTenant(
  db: DataSource,
  options: { plan?: OrgPlan; region?: Region; environment?: ApiEnvironment; teamName?: string } = {},
): Promise<Tenant> {
  const org = await db.getRepository(OrgEntity).save({
    id: randomUUID(),
    name: `Org ${randomUUID().slice(0, 8)}`,
    plan: options.plan ?? 'scale',
  });
  const team = await db.getRepository(TeamEntity).save({
    id: randomUUID(),
    orgId: org.id,
    name: options.teamName ?? `Team ${randomUUID().slice(0, 8)}`,
    region: options.region ?? 'us',
    integrationTeamId: null,
    partialWebhooksEnabled: false,
  });
  EVENT_TEAMS.get(db)?.add(team.id);
  const keys = new ApiKeysService(db);
  const teamKey = await keys.issueTeamKey(team, options.environment ?? 'sandbox', 'test key');
  const managementKey = await keys.issueManagementKey(org.id, 'org_admin', 'test org key');
  return {
    orgId: org.id,
    teamId: team.id,
    apiKey: teamKey.value,
    apiKeyId: teamKey.record.id,
    managementKey: managementKey.value,
    managementKeyId: managementKey.record.id,
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small JSON client over fetch for tests: `call(url, 'POST', '/v2/user', {key, body})`. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-service-api-key'] = options.key;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text so the assertion shows it
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export type TeamManagementApi = (method: string, path: string, body?: unknown) => Promise<HttpResult>;

/**
 * Calls the management API under `/v1/org/{org}/team/{team}` (plus `/sandbox` with
 * `environment`) with the tenant's org management key: `api('POST', '/webhook', {...})`.
 */
export function teamManagementApi(stack: TestStack, tenant: Tenant, environment?: 'sandbox' | 'production'): TeamManagementApi {
  const base = `/v1/org/${tenant.orgId}/team/${tenant.teamId}${environment ? `/${environment}` : ''}`;
  return (method, path, body) => call(stack.managementUrl, method, `${base}${path}`, { headers: { 'X-Management-Key': tenant.managementKey }, body });
}

/**
 * A webhook endpoint of the tenant (management API) for `filterTypes`, delivering to `receiver`
 * at `path`, whose signing secret the receiver then checks signatures with.
 */
export async function subscribeWebhooks(
  stack: TestStack,
  tenant: Tenant,
  environment: 'sandbox' | 'production',
  receiver: WebhookReceiver,
  path: string,
  filterTypes: string[],
): Promise<void> {
  const management = teamManagementApi(stack, tenant, environment);
  const created = await management('POST', '/webhook', { url: receiver.url(path), filter_types: filterTypes });
  if (created.status !== 200) throw new Error(`creating the webhook endpoint answered ${created.status}: ${JSON.stringify(created.body)}`);
  receiver.secret(path, (await management('GET', `/webhook/${created.body.id}/secret`)).body.key);
}
