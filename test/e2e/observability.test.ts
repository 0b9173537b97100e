import { HealthCheckService } from '@nestjs/terminus';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { freeLoopbackPort } from '../../src/common/free-port';
import { MetricsRegistry } from '../../src/common/metrics/registry';
import { DependencyHealth, type Dependency, Readiness } from '../../src/probes/readiness';
import { installTemporalRuntime } from '../../src/temporal/runtime';
import { startWorkerObservability, type WorkerObservability } from '../../src/worker-observability';
import { createUser, eventually, ORDER_TEST_ENV, orderBody, orderPassed } from '../helpers/orders';
import { call, createTenant, startLabReportWorker, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * What an operator scrapes and probes: /metrics on the API, the management API and the worker's
 * own port after real traffic, and readiness that follows Redis while liveness does not.
 */

/** The value of the first sample of `name` whose labels include `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

const scrape = async (baseUrl: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
};

/** A worker's probe and metrics port for a stack's app, with the worker's readiness needs. */
function workerEndpoints(stack: TestStack, needs: Dependency[], temporalMetricsUrl: string | null): Promise<WorkerObservability> {
  const readiness = new Readiness(stack.api.get(HealthCheckService), stack.api.get(DependencyHealth), needs);
  return startWorkerObservability(stack.api, stack.config, {
    roles: stack.temporalWorker ? ['temporal', 'relay', 'delivery'] : ['relay', 'delivery'],
    readiness,
    metrics: new MetricsRegistry(),
    temporalMetricsUrl,
    port: 0,
  });
}

describe('/metrics after traffic', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let worker: WorkerObservability;

  beforeAll(async () => {
    // Before the stack's worker connects: the SDK's exporter is part of the process's runtime.
    const runtime = await installTemporalRuntime({ prometheusPort: 0 });
    stack = await startStack({
      labReportWorker: true,
      management: true,
      events: true,
      env: { ...ORDER_TEST_ENV, EVENTS_RELAY_POLL_INTERVAL: '200ms' },
    });
    tenant = await createTenant(stack.db);
    receiver = await WebhookReceiver.start();
    worker = await workerEndpoints(stack, ['postgres', 'redis'], runtime.prometheusUrl);
    worker.watchTemporalWorker(stack.temporalWorker!);
  });
  afterAll(async () => {
    await worker?.close();
    await stack?.close();
    await receiver?.close();
  });

  it('counts API requests by route pattern, never by raw URL', async () => {
    const users = [await createUser(stack, tenant), await createUser(stack, tenant)];
    for (const userId of users) expect((await call(stack.apiUrl, 'GET', `/v2/user/${userId}`, { key: tenant.apiKey })).status).toBe(200);
    expect((await call(stack.apiUrl, 'GET', `/v2/user/${users[0]}`)).status).toBe(401);
    // A path no number can contain: a numeric one (4711 before) also matched sample values such as 0.0047112.
    expect((await call(stack.apiUrl, 'GET', '/no/such/route/unrouted-path-segment')).status).toBe(404);

    const { status, contentType, text } = await scrape(stack.apiUrl);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'labflow_http_requests_total', { method: 'GET', route: '/v2/user/:user_id', status_code: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'labflow_http_requests_total', { method: 'GET', route: '/v2/user/:user_id', status_code: '401' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'labflow_http_requests_total', { method: 'POST', route: '/v2/user', status_code: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'labflow_http_requests_total', { route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'labflow_http_request_duration_seconds_count', { method: 'GET', route: '/v2/user/:user_id' })).toBeGreaterThanOrEqual(3);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    for (const id of users) expect(text).not.toContain(id);
    expect(text).not.toContain('unrouted-path-segment');
  });

  it('shows a delivery outcome, a queue depth, an order transition and the Temporal SDK on the worker; stranded orders on management', async () => {
    const path = '/orders';
    const created = await teamManagementApi(stack, tenant, 'sandbox')('POST', '/webhook', { url: receiver.url(path) });
    expect(created.status).toBe(200);
    const userId = await createUser(stack, tenant);
    const order = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(order.status).toBe(200);
    // A kit order leaves requisition_created at once (the kit ships): a poll may never see it last.
    await orderPassed(stack, tenant, order.body.order.id, 'requisition_created');
    await eventually(() => (receiver.forPath(path).length > 0 ? true : undefined), 'a webhook delivery');

    const url = `http://127.0.0.1:${worker.port}`;
    const text = await eventually(async () => {
      const { text } = await scrape(url);
      return (sample(text, 'labflow_deliveries_finished_total', { target: 'webhook', status: 'succeeded' }) ?? 0) >= 1 ? text : undefined;
    }, 'a finished delivery on the worker /metrics');
    expect(sample(text, 'labflow_delivery_attempts_total', { target: 'webhook', result: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'labflow_delivery_attempts_per_delivery_count', { target: 'webhook', status: 'succeeded' })).toBeGreaterThanOrEqual(1);
    // The outbox insert fans the order's events out; the relay starts their deliveries.
    expect(sample(text, 'labflow_deliveries_created_total')).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'labflow_order_transitions_total', { status: 'received', detailed_status: 'requisition_created', collection_method: 'testkit' }),
    ).toBeGreaterThanOrEqual(1);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(sample(text, 'labflow_queue_jobs', { queue: stack.config.events.queueName, state })).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'labflow_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'labflow_temporal_metrics_up')).toBe(1);
    expect(sample(text, 'temporal_worker_task_slots_available', { task_queue: stack.taskQueue, worker_type: 'WorkflowWorker' })).toBeGreaterThan(0);
    // The series the schedule-to-start alert of docs/operations.md uses.
    expect(sample(text, 'temporal_workflow_task_schedule_to_start_latency_seconds_count', { task_queue: stack.taskQueue })).toBeGreaterThanOrEqual(1);

    const management = await scrape(stack.managementUrl);
    expect(management.status).toBe(200);
    expect(sample(management.text, 'labflow_stranded_orders', { kind: 'stalled', state: 'raised' })).toBeGreaterThanOrEqual(0);
    expect(
      sample(management.text, 'labflow_http_requests_total', { method: 'POST', route: '/v1/org/:org_id/team/:team_id/:environment/webhook' }),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('/metrics access', () => {
  it('asks for the bearer token when METRICS_TOKEN is set, on the API and the worker port', async () => {
    const token = 'scrape-token-0123456789';
    const stack = await startStack({ worker: false, env: { METRICS_TOKEN: token } });
    const worker = await workerEndpoints(stack, ['postgres'], null);
    try {
      for (const url of [stack.apiUrl, `http://127.0.0.1:${worker.port}`]) {
        expect((await scrape(url)).status).toBe(401);
        expect((await scrape(url, { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
        expect((await scrape(url, { authorization: `Bearer ${token}` })).status).toBe(200);
      }
    } finally {
      await worker.close();
      await stack.close();
    }
  });

  it('has no /metrics and counts nothing with METRICS_ENABLED=false', async () => {
    const stack = await startStack({ worker: false, env: { METRICS_ENABLED: 'false' } });
    const worker = await workerEndpoints(stack, ['postgres'], null);
    try {
      expect((await scrape(stack.apiUrl)).status).toBe(404);
      expect((await scrape(`http://127.0.0.1:${worker.port}`)).status).toBe(404);
      expect((await call(stack.apiUrl, 'GET', '/health/live')).status).toBe(200);
    } finally {
      await worker.close();
      await stack.close();
    }
  });
});

describe('readiness follows Redis, liveness does not', () => {
  let redis: ChildProcess;
  let redisPort: number;
  let stack: TestStack;
  let worker: WorkerObservability;

  beforeAll(async () => {
    // A Redis of this test's own: pausing it (SIGSTOP) must not touch the machine's Redis.
    redisPort = await freeLoopbackPort();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await eventually(() => (redisCli(redisPort, 'PING') === 'PONG' ? true : undefined), 'the throwaway redis-server');
    stack = await startStack({ worker: false, management: true, env: { REDIS_URL: `redis://127.0.0.1:${redisPort}/0` } });
    worker = await workerEndpoints(stack, ['postgres', 'redis'], null);
  });
  afterAll(async () => {
    redis?.kill('SIGCONT');
    await worker?.close();
    await stack?.close();
    redis?.kill('SIGKILL');
  });

  it('answers 503 naming Redis while it is paused, 200 again after; /health/live stays 200', async () => {
    const workerUrl = `http://127.0.0.1:${worker.port}`;
    const probe = async (url: string, path: string) => (await call(url, 'GET', path)).status;

    for (const url of [stack.apiUrl, workerUrl]) {
      const ready = await call(url, 'GET', '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ok', checks: { postgres: { status: 'up' }, redis: { status: 'up' } } });
      expect(await probe(url, '/health/live')).toBe(200);
    }

    redis.kill('SIGSTOP');
    try {
      for (const url of [stack.apiUrl, workerUrl]) {
        const notReady = await eventually(async () => {
          const response = await call(url, 'GET', '/health/ready');
          return response.status === 503 ? response : undefined;
        }, `${url}/health/ready to answer 503`);
        expect(notReady.body).toMatchObject({
          detail: expect.stringMatching(/redis/),
          status: 'error',
          checks: { postgres: { status: 'up' }, redis: { status: 'down' } },
        });
        expect(await probe(url, '/health')).toBe(503);
        expect(await probe(url, '/health/live')).toBe(200);
      }
      // The management API does not use Redis: it stays ready.
      expect(await probe(stack.managementUrl, '/health/ready')).toBe(200);
    } finally {
      redis.kill('SIGCONT');
    }

    for (const url of [stack.apiUrl, workerUrl]) {
      await eventually(async () => ((await probe(url, '/health/ready')) === 200 ? true : undefined), `${url}/health/ready to answer 200 again`);
      expect(await probe(url, '/health/live')).toBe(200);
    }
  });
});

describe('a worker running lab reports', () => {
  it('is ready only while its lab report worker runs', async () => {
    const stack = await startStack({ worker: false });
    const labReports = await startLabReportWorker(stack.api, stack.config);
    const observability = await startWorkerObservability(stack.api, stack.config, {
      roles: ['lab-reports'],
      readiness: new Readiness(stack.api.get(HealthCheckService), stack.api.get(DependencyHealth), ['postgres']),
      metrics: new MetricsRegistry(),
      temporalMetricsUrl: null,
      port: 0,
    });
    const url = `http://127.0.0.1:${observability.port}`;
    try {
      // Not yet handed the worker (the process is still starting it): not ready.
      const starting = await call(url, 'GET', '/health/ready');
      expect(starting.status).toBe(503);
      expect(starting.body).toMatchObject({ checks: { lab_report_worker: { status: 'down' }, postgres: { status: 'up' } } });
      expect(starting.body.checks.temporal_worker).toBeUndefined();

      observability.watchTemporalWorker(labReports.worker, 'lab_report_worker');
      const ready = await eventually(async () => {
        const response = await call(url, 'GET', '/health/ready');
        return response.status === 200 ? response : undefined;
      }, 'the lab report worker to be ready');
      expect(ready.body).toMatchObject({ checks: { lab_report_worker: { status: 'up', state: 'RUNNING', taskQueue: stack.config.labReports.taskQueue } } });

      await labReports.stop();
      const stopped = await call(url, 'GET', '/health/ready');
      expect(stopped.status).toBe(503);
      expect(stopped.body.detail).toMatch(/lab_report_worker/);
    } finally {
      await labReports.stop();
      await observability.close();
      await stack.close();
    }
  });
});

function redisCli(port: number, ...args: string[]): string {
  try {
    return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 2000 }).trim();
  } catch {
    return '';
  }
}
