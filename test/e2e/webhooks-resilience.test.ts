import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { freePort } from '../helpers/free-port';
import { createTenant, type HttpResult, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Nothing is lost when the delivery worker dies mid-flight or Redis goes away: Postgres holds
 * every delivery, the relay re-enqueues, and a repeated delivery carries the same webhook id.
 */
const ROOT = join(__dirname, '..', '..');

/** Waits for a child's output line matching `pattern`. */
function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in output:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${output}`));
    });
  });
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** A redis-server of our own (never the machine's): stopping it is part of the test. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForOutput(redis, /Ready to accept connections/);
  return redis;
}

function groupBySeq(requests: ReceivedRequest[]): Map<number, ReceivedRequest[]> {
  const groups = new Map<number, ReceivedRequest[]>();
  for (const request of requests) {
    const seq = request.json?.data?.seq as number;
    groups.set(seq, [...(groups.get(seq) ?? []), request]);
  }
  return groups;
}

interface Setup {
  stack: TestStack;
  tenant: Tenant;
  api: (method: string, path: string, body?: unknown) => Promise<HttpResult>;
}

async function setup(stack: TestStack): Promise<Setup> {
  const tenant = await createTenant(stack.db);
  const api = teamManagementApi(stack, tenant, 'sandbox');
  return { stack, tenant, api };
}

async function endpoint({ api }: Setup, receiver: WebhookReceiver, path: string): Promise<string> {
  const created = await api('POST', '/webhook', { url: receiver.url(path) });
  receiver.secret(path, (await api('GET', `/webhook/${created.body.id}/secret`)).body.key);
  return created.body.id;
}

function events({ tenant }: Setup, count: number, from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    eventType: 'labtest.order.updated' as const,
    teamId: tenant.teamId,
    environment: 'sandbox' as const,
    userId: randomUUID(),
    clientUserId: `c-${from + i}`,
    data: { seq: from + i },
  }));
}

describe('the delivery worker killed mid-flight', () => {
  let receiver: WebhookReceiver;
  let context: Setup;
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    // Relay in-process; the delivery worker runs apart so it can be SIGKILLed.
    const stack = await startStack({
      worker: false,
      management: true,
      events: { relay: true, delivery: false },
      env: { EVENTS_RELAY_POLL_INTERVAL: '200ms' },
    });
    context = await setup(stack);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    if (child) await stopChild(child, 'SIGKILL');
    await context?.stack.close();
    await receiver?.close();
  });

  async function startDeliveryWorker(): Promise<ChildProcess> {
    // The built worker (scripts/test.sh builds dist/), as the fault run starts it: compiling
    // src/ through ts-node in the child took over the minute below on a busy CI machine.
    const started = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'worker.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        WORKER_ROLES: 'delivery',
        // The start-up line waited for below is logged at info (tests otherwise run at warn).
        LOG_LEVEL: 'info',
        EVENTS_QUEUE: context.stack.config.events.queueName,
        // A job held by the dead worker is taken up again once its lock lapses. The lock is also
        // the claim's lease, which bounds each request: with 2 s, a loaded CI machine once spread
        // the 20 sends over more than 2 s, the first was cut off (no answer), the endpoint then
        // got one send at a time (TargetSends) and the 20 were never in flight together.
        EVENTS_JOB_LOCK: '15s',
        WEBHOOK_DELIVERY_TIMEOUT: '60s',
        WEBHOOK_RETRY_SCHEDULE: '0s,100ms,200ms,500ms,1s,1s,1s,1s',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      // A worker process's start is seconds of CPU; on a loaded 2-core CI machine, at Jest's nice 10, minutes.
      await waitForOutput(started, /delivery worker on queue/, 150_000);
    } catch (error) {
      // Not yet in `child`, so afterAll would not stop it: a worker that never said it started
      // would outlive the run.
      await stopChild(started, 'SIGKILL');
      throw error;
    }
    return started;
  }

  test('nothing is lost, and the repeats carry the same webhook id', async () => {
    const id = await endpoint(context, receiver, '/kill');
    let hang = true;
    receiver.respond('/kill', () => (hang ? 'hang' : { status: 200 }));
    child = await startDeliveryWorker();

    const ids = await context.stack.api.get(OutboxService).emit(events(context, 20));
    // Every delivery is in flight: the receiver holds all 20 requests open.
    // Generous: the new delivery process starts its consumers while a loaded CI machine runs the
    // fault runs beside Jest (a 60 s wait saw none of the 20 arrive there once).
    await waitFor(() => receiver.hangingCount === 20, { timeoutMs: 120_000, describe: () => receiver.hangingCount });

    await stopChild(child, 'SIGKILL');
    receiver.releaseHanging();
    hang = false;
    child = await startDeliveryWorker();

    // The new worker takes the dead one's jobs up after their 15 s locks lapse (BullMQ's stalled check).
    await waitFor(() => new Set(receiver.accepted('/kill').map((r) => r.webhookId)).size === 20, {
      timeoutMs: 150_000,
      describe: () => receiver.accepted('/kill').length,
    });
    const groups = groupBySeq(receiver.forPath('/kill'));
    expect(groups.size).toBe(20);
    for (const [seq, requests] of groups) {
      expect(requests.length).toBeGreaterThanOrEqual(2);
      expect(new Set(requests.map((r) => r.webhookId))).toEqual(new Set([ids[seq]]));
      expect(requests.every((r) => r.verified)).toBe(true);
    }

    // The cut-off attempt is on record as interrupted, the repeat as succeeded.
    const attempts = await waitFor(async () => {
      const page = (await context.api('GET', `/webhook/${id}/messages/${ids[0]}/attempts`)).body.data;
      return page?.[0]?.status === 'succeeded' && page;
    });
    // Newest first: the repeat succeeded, the cut-off attempt is interrupted. On a loaded machine a
    // repeat may also have run out of its claim while waiting for a connection (failed, "Not
    // sent", retried on the schedule) in between; it never succeeded twice.
    const statuses: string[] = attempts.map((a: { status: string }) => a.status);
    expect(statuses[0]).toBe('succeeded');
    expect(statuses[statuses.length - 1]).toBe('interrupted');
    expect(statuses.slice(1, -1).every((status) => status === 'failed')).toBe(true);
  }, 420_000);
});

describe('Redis stopped while events are emitted', () => {
  let receiver: WebhookReceiver;
  let context: Setup;
  let redis: ChildProcess | null = null;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    const stack = await startStack({
      worker: false,
      management: true,
      events: true,
      env: {
        REDIS_URL: `redis://127.0.0.1:${port}/0`,
        EVENTS_RELAY_POLL_INTERVAL: '200ms',
        EVENTS_SWEEP_INTERVAL: '500ms',
        EVENTS_LOST_JOB_GRACE: '1s',
        WEBHOOK_RETRY_SCHEDULE: '0s,100ms,200ms,500ms,1s,1s,1s,1s',
      },
    });
    context = await setup(stack);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await context?.stack.close();
    if (redis) await stopChild(redis, 'SIGTERM');
    await receiver?.close();
  });

  test('the relay delivers all of them once Redis is back, including retries whose jobs Redis lost', async () => {
    await endpoint(context, receiver, '/redis');
    // Events 0-4 are refused once with Retry-After: 3 s, so their retry waits in Redis as a
    // delayed job — lost when Redis restarts empty. Everything else is accepted.
    const refused = new Set<number>();
    receiver.respond('/redis', (request) => {
      const seq = request.json?.data?.seq as number;
      if (seq < 5 && !refused.has(seq)) {
        refused.add(seq);
        return { status: 503, headers: { 'Retry-After': '3' } };
      }
      return { status: 200 };
    });
    const outbox = context.stack.api.get(OutboxService);
    const before = await outbox.emit(events(context, 5));
    await waitFor(() => refused.size === 5);

    await stopChild(redis!, 'SIGTERM');
    redis = null;
    const during = await outbox.emit(events(context, 20, 5));
    // The relay keeps moving the outbox into deliveries in Postgres; the jobs cannot be enqueued.
    await waitFor(async () => {
      const [{ waiting }] = await context.stack.db.query(
        `SELECT count(*)::int AS waiting FROM event_deliveries WHERE event_id = ANY($1::uuid[]) AND enqueued_at IS NULL`,
        [during],
      );
      return waiting === 20;
    });
    expect(receiver.accepted('/redis')).toHaveLength(0);

    redis = await startRedis(port);
    const all = [...before, ...during];
    await waitFor(() => all.every((id) => receiver.accepted('/redis').some((r) => r.webhookId === id)), {
      timeoutMs: 90_000,
      describe: () => receiver.accepted('/redis').length,
    });
    for (const [seq, requests] of groupBySeq(receiver.forPath('/redis'))) {
      expect(new Set(requests.map((r) => r.webhookId))).toEqual(new Set([all[seq]]));
    }
    expect(receiver.forPath('/redis').every((r) => r.verified)).toBe(true);
  });
});
