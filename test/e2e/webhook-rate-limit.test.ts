import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { DeliveryJobData } from '../../src/events/delivery-queue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { LIMITER_UNAVAILABLE_HOLD_MS, RedisEndpointRateLimiter } from '../../src/events/rate-limiter';
import { createTenant, startStack, type Tenant, type TestStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * An endpoint's `rate_limit` (deliveries per second) is enforced by the delivery worker: a burst
 * arrives spread out, and a delivery held back for the limit is neither an attempt nor a failure.
 * Timing is asserted only as a lower bound (5 deliveries at 1/s cannot span less than 4 s).
 */
let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;
let api: TeamManagementApi;
let queue: Queue<DeliveryJobData>;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    env: {
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      // The lost-job sweep runs on every pass and takes every pending delivery past its due
      // time — which held-back deliveries are: it must neither duplicate nor lose them.
      EVENTS_SWEEP_INTERVAL: '100ms',
      EVENTS_LOST_JOB_GRACE: '0s',
    },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  api = teamManagementApi(stack, tenant, 'sandbox');
  queue = new Queue<DeliveryJobData>(stack.config.events.queueName, { connection: { url: stack.config.redisUrl } });
});
afterAll(async () => {
  await stack?.close();
  await queue?.close();
  await receiver?.close();
});

/** An endpoint for `path` on the receiver, its secret registered; arrival times are noted. */
async function endpoint(path: string, rateLimit: number | null): Promise<{ id: string; arrivals: number[] }> {
  const created = await api('POST', '/webhook', { url: receiver.url(path), rate_limit: rateLimit });
  expect(created.status).toBe(200);
  expect(created.body.rate_limit).toBe(rateLimit);
  receiver.secret(path, (await api('GET', `/webhook/${created.body.id}/secret`)).body.key);
  const arrivals: number[] = [];
  receiver.respond(path, () => {
    arrivals.push(Date.now());
    return { status: 200 };
  });
  return { id: created.body.id, arrivals };
}

function events(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, seq) => ({
    eventType: 'labtest.order.updated' as const,
    teamId: tenant.teamId,
    environment: 'sandbox' as const,
    userId: randomUUID(),
    clientUserId: `c-${seq}`,
    data: { id: randomUUID(), status: 'collecting_sample', seq },
  }));
}

async function deliveries(endpointId: string): Promise<Array<{ id: string; event_id: string; status: string; attempt_count: number }>> {
  return stack.db.query(`SELECT id, event_id, status, attempt_count FROM event_deliveries WHERE endpoint_id = $1`, [endpointId]);
}

test('rate_limit 1: five events are spread over seconds, each sent on its first attempt; an unlimited endpoint is unaffected', async () => {
  const limited = await endpoint('/limited', 1);
  const unlimited = await endpoint('/unlimited', null);

  const ids = await stack.api.get(OutboxService).emit(events(5));

  // While the limited endpoint's deliveries wait in `delayed`, simulate Redis losing one of
  // them: the sweep must enqueue it again (and it still arrives once, on its first attempt).
  await waitFor(() => limited.arrivals.length >= 1);
  const held = await waitFor(
    async () => {
      const ours = new Set((await deliveries(limited.id)).filter((d) => d.status === 'pending').map((d) => d.id));
      // Soonest first: the last one waits longest, so it is not running while we remove it.
      const jobs = (await queue.getDelayed()).filter((job) => ours.has(job.data.deliveryId));
      return jobs.length > 0 && jobs;
    },
    { timeoutMs: 2_000 },
  ).catch(() => []);
  const lost = held.at(-1);
  await lost?.remove();

  await waitFor(() => receiver.accepted('/limited').length >= 5 && receiver.accepted('/unlimited').length >= 5, {
    timeoutMs: 15_000,
    describe: () => ({ limited: receiver.forPath('/limited').length, unlimited: receiver.forPath('/unlimited').length }),
  });
  // Let anything duplicated show up before counting.
  await new Promise((resolve) => setTimeout(resolve, 500));
  // Outcomes are written after the receiver answered: wait for them, then assert them exactly.
  for (const id of [limited.id, unlimited.id]) {
    await waitFor(async () => (await deliveries(id)).every((d) => d.status !== 'pending'), {
      timeoutMs: 15_000,
      describe: () => deliveries(id),
    });
  }

  for (const { path, id } of [
    { path: '/limited', id: limited.id },
    { path: '/unlimited', id: unlimited.id },
  ]) {
    const requests = receiver.forPath(path);
    expect(requests.map((r) => r.verifyError)).toEqual([null, null, null, null, null]);
    expect(requests.every((r) => r.verified)).toBe(true);
    expect(requests.map((r) => r.webhookId).sort()).toEqual([...ids].sort());

    // Postgres: one attempt each, succeeded — being held back was not counted.
    const rows = await deliveries(id);
    expect(rows.map((d) => ({ status: d.status, attempts: d.attempt_count }))).toEqual(Array.from({ length: 5 }, () => ({ status: 'succeeded', attempts: 1 })));
    // The management API: exactly five attempts, every one the first, scheduled, succeeded.
    const attempts = (await api('GET', `/webhook/${id}/attempts`)).body.data as Array<Record<string, unknown>>;
    expect(attempts).toHaveLength(5);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ attempt_number: 1, trigger: 'scheduled', status: 'succeeded', response_status_code: 200, error: null });
    }
    const messages = (await api('GET', `/webhook/${id}/messages`)).body.data as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.attempt_count)).toEqual([1, 1, 1, 1, 1]);
  }

  // Lower bound only: 5 deliveries at 1/s need at least 4 one-second windows.
  const span = Math.max(...limited.arrivals) - Math.min(...limited.arrivals);
  expect(span).toBeGreaterThanOrEqual(3000);
  // Deliveries were held in Redis (`delayed`), one of them removed above and recovered.
  expect(lost?.data.deliveryId).toEqual(expect.any(String));

  // A manual retry still works through the limit: sent again, same webhook id, attempt 2.
  const retried = await api('POST', `/webhook/${limited.id}/messages/${ids[0]}/retry`);
  expect(retried.status).toBe(202);
  await waitFor(() => receiver.forPath('/limited').length === 6, { timeoutMs: 5_000 });
  expect(receiver.forPath('/limited')[5]).toMatchObject({ webhookId: ids[0], verified: true });
  const latest = await waitFor(async () => {
    const [attempt] = (await api('GET', `/webhook/${limited.id}/messages/${ids[0]}/attempts?limit=1`)).body.data;
    return attempt?.status === 'succeeded' && attempt;
  });
  expect(latest).toMatchObject({ attempt_number: 2, trigger: 'manual' });
});

describe('the limiter', () => {
  test('spreads refused deliveries over the following windows, one window each at rate 1', async () => {
    const limiter = new RedisEndpointRateLimiter(stack.config.redisUrl);
    try {
      const endpointId = randomUUID();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await limiter.admit(endpointId, 1));
      expect(answers[0]).toEqual({ kind: 'admitted' });
      const times = answers.slice(1).map((answer) => (answer.kind === 'held' ? answer.atMs : NaN));
      expect(times.every(Number.isFinite)).toBe(true);
      // One window (1 s) apart, not the same window: atMs is the local clock plus Redis's
      // msBeforeNext, so the round trip's latency blurs it by a few ms on a loaded machine;
      // half a window separates the two cases without depending on the machine's speed.
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(500);
      // At rate 2, two refusals share each window ahead.
      const other = randomUUID();
      const rate2 = [];
      for (let i = 0; i < 6; i++) rate2.push(await limiter.admit(other, 2));
      expect(rate2.map((answer) => answer.kind)).toEqual(['admitted', 'admitted', 'held', 'held', 'held', 'held']);
    } finally {
      await limiter.close();
    }
  });

  test('fails closed: with Redis unreachable a delivery is held (about a second), not sent', async () => {
    const warnings: string[] = [];
    const limiter = new RedisEndpointRateLimiter('redis://127.0.0.1:1/0', { warn: (message) => warnings.push(message) });
    try {
      const before = Date.now();
      const answer = await limiter.admit(randomUUID(), 1);
      expect(answer.kind).toBe('held');
      expect(answer.kind === 'held' && answer.atMs - before).toBeGreaterThanOrEqual(LIMITER_UNAVAILABLE_HOLD_MS);
      // One warning that the limiter is unavailable; the connection errors behind it are reported
      // too, each distinct one once (not once per reconnect attempt).
      const connectionErrors = warnings.filter((warning) => warning.startsWith('Redis (webhook rate limits): '));
      expect(warnings.length - connectionErrors.length).toBe(1);
      expect(new Set(connectionErrors).size).toBe(connectionErrors.length);
    } finally {
      await limiter.close();
    }
  });
});
