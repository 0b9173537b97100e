import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PhiCipher } from '../../src/common/crypto';
import type { EventsConfig } from '../../src/config/config';
import type { Claim, DeliveryContext, FinishedAttempt } from '../../src/events/delivery-attempts.types';
import { claimLeaseMs, type DeliveryStore } from '../../src/events/delivery-batches';
import { DeliveryProcessor } from '../../src/events/delivery.processor';
import type { RabbitMqPublisher } from '../../src/events/rabbitmq.publisher';
import type { EndpointRateLimiter } from '../../src/events/rate-limiter';
import { WebhookSender } from '../../src/events/webhook-sender';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';

/**
 * A claimed delivery is reserved for its attempt until the claim's lease ends; after that another
 * worker may claim and send it. So no request of an attempt may still be open at the receiver when
 * the lease ends — even for an attempt that first waited for a free connection behind a receiver
 * that never answers (twice as many attempts as connections are claimed at once).
 */

const TIMEOUT_MS = 1_500;
const cipher = new PhiCipher(randomBytes(32));
const secretEnc = cipher.encrypt(generateWebhookSecret());

/** A receiver that never answers: each request stays open until the sender gives up on it. */
async function silentReceiver(): Promise<{ server: Server; url: string; closedAt: Map<string, number> }> {
  const closedAt = new Map<string, number>();
  const server = createServer((req: IncomingMessage) => {
    req.resume();
    // The sender gave up: the request is over for the receiver (the client closes its socket).
    req.once('close', () => closedAt.set(String(req.headers['webhook-id']), performance.now()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, closedAt };
}

function contextOf(url: string): DeliveryContext {
  return {
    id: randomUUID(),
    event_id: randomUUID(),
    target: 'webhook',
    endpoint_id: randomUUID(),
    pipeline_id: null,
    attempt_number: 1,
    trigger: 'scheduled',
    claimed_at: new Date().toISOString(),
    event_type: 'labtest.order.created',
    team_id: randomUUID(),
    environment: 'sandbox',
    user_id: randomUUID(),
    client_user_id: 'lease-test',
    data_enc: cipher.encryptJson({ id: randomUUID() }),
    event_created_at: new Date(),
    url,
    secret_enc: secretEnc,
    previous_secret_enc: null,
    previous_secret_expires_at: null,
    headers_enc: null,
    failing_since: null,
    destinations_enc: null,
    request_id: null,
  };
}

/**
 * Deliveries claimed in memory, as Postgres would: the claim's time is when the lease starts. A
 * claim may take a while to be answered (`answerAfterMs`), as one waiting for its batch does.
 */
class MemoryStore implements DeliveryStore {
  readonly claimedAt = new Map<string, number>();
  readonly finished = new Map<string, FinishedAttempt>();
  constructor(
    private readonly contexts: Map<string, DeliveryContext>,
    readonly leaseMs: number,
    private readonly answerAfterMs = new Map<string, number>(),
  ) {}
  async claim(deliveryId: string): Promise<Claim> {
    this.claimedAt.set(deliveryId, performance.now());
    const answerAfterMs = this.answerAfterMs.get(deliveryId);
    if (answerAfterMs) await sleep(answerAfterMs);
    return { kind: 'claimed', context: this.contexts.get(deliveryId) as DeliveryContext };
  }
  async finishAttempt(finished: FinishedAttempt): Promise<boolean> {
    this.finished.set(finished.claimed.id, finished);
    return false;
  }
  async endpointRecovered(): Promise<void> {}
  async endpointFailed(): Promise<boolean> {
    return false;
  }
  async disableEndpoint(): Promise<boolean> {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How the two attempts start. `in_turn`: both are claimed at once and the first takes the only
 * connection. `second_claimed_earlier`: the second's lease starts 200 ms before the first's, but
 * its claim is answered only after the first has taken the connection, which the first then holds
 * to the end of its own lease: by then the second's lease has run out (by those 200 ms, far more
 * than a timer's jitter). Whether an attempt claimed at once with another still has a moment
 * left when the other gives up the connection is up to a millisecond's jitter, so the case of
 * nothing left is made this way.
 */
type Start = 'in_turn' | 'second_claimed_earlier';

async function processBoth(processor: DeliveryProcessor, first: DeliveryContext, second: DeliveryContext, start: Start): Promise<void> {
  if (start === 'in_turn') {
    await Promise.all([processor.process(first.id), processor.process(second.id)]);
    return;
  }
  const secondDone = processor.process(second.id);
  await sleep(200);
  await Promise.all([processor.process(first.id), secondDone]);
}

function claimAnswerDelays(second: DeliveryContext, start: Start): Map<string, number> {
  return new Map(start === 'second_claimed_earlier' ? [[second.id, 300]] : []);
}

async function deliverTwoBehindOneConnection(jobLockMs: number, start: Start = 'in_turn') {
  const receiver = await silentReceiver();
  const config = { concurrency: 1, deliveryTimeoutMs: TIMEOUT_MS, jobLockMs, retryScheduleMs: [0, 5_000], disableAfterMs: 86_400_000 } as EventsConfig;
  const first = contextOf(receiver.url);
  const second = contextOf(receiver.url);
  const store = new MemoryStore(new Map([first, second].map((context) => [context.id, context])), claimLeaseMs(config), claimAnswerDelays(second, start));
  const sender = new WebhookSender({ timeoutMs: TIMEOUT_MS, allowPrivate: true, maxSockets: 1 });
  const processor = new DeliveryProcessor(store, cipher, sender, {} as RabbitMqPublisher, {} as EndpointRateLimiter, config, { warn: () => undefined });
  try {
    await processBoth(processor, first, second, start);
    // The receiver learns of a socket's close a little after the sender gave up on it.
    const sent = [...store.finished.values()].filter((finished) => !finished.error?.startsWith('Not sent')).length;
    for (let waited = 0; receiver.closedAt.size < sent && waited < 5_000; waited += 20) await sleep(20);
  } finally {
    sender.close();
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
  return { store, receiver, first, second, leaseMs: store.leaseMs };
}

test('an attempt that waited for a connection is cut off before its lease ends, not a full timeout later', async () => {
  // Lease 3.5 s, so each request must end by sendBy = claim + lease - 1 s margin = claim + 2.5 s.
  // The first attempt holds the only connection for its whole 1.5 s timeout, so the second gets it
  // with about 1 s left: less than a timeout, with room for a late timer.
  const { store, receiver, first, second, leaseMs } = await deliverTwoBehindOneConnection(3_500);
  expect(leaseMs).toBe(3_500);
  for (const context of [first, second]) {
    const closed = receiver.closedAt.get(context.event_id);
    expect(closed).toBeDefined();
    expect(closed as number).toBeLessThanOrEqual((store.claimedAt.get(context.id) as number) + leaseMs);
  }
  expect(store.finished.get(first.id)).toMatchObject({ status: 'failed', error: `Timed out after ${TIMEOUT_MS} ms` });
  // What was left of the second's lease bounded its request (about 1 s, never the full 1.5 s).
  const secondError = store.finished.get(second.id)?.error ?? '';
  expect(secondError).toMatch(/^Timed out after \d+ ms$/);
  expect(Number(/\d+/.exec(secondError)?.[0])).toBeLessThan(TIMEOUT_MS);
  expect(store.finished.get(second.id)?.delivery).toMatchObject({ status: 'pending' });
}, 20_000);

test('an attempt whose lease ran out while it waited is not sent, and is retried on the schedule', async () => {
  // Lease 2 s, so each request must end 1 s after its claim (the 1 s margin): the first holds the
  // connection until 1 s after its claim, 200 ms after the second's lease had no time left.
  const { store, receiver, first, second } = await deliverTwoBehindOneConnection(2_000, 'second_claimed_earlier');
  expect(receiver.closedAt.has(first.event_id)).toBe(true);
  expect(receiver.closedAt.has(second.event_id)).toBe(false);
  expect(store.finished.get(second.id)).toMatchObject({
    status: 'failed',
    statusCode: null,
    error: 'Not sent: the attempt waited for a free connection until its claim ran out',
    delivery: { status: 'pending' },
  });
}, 20_000);

/**
 * A RabbitMQ destination's publish is bounded the same way: a broker that never confirms holds
 * the only publish slot for a whole timeout, and the publish that waited behind it gets only what
 * is left of its own lease (or, with nothing left, is not published at all).
 */
class NeverConfirmingBroker {
  readonly publishes: Array<{ messageId: string; startedAt: number; timeoutMs: number }> = [];
  async publish(_uri: string, message: { messageId: string }, options: { timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = Math.min(options.timeoutMs ?? TIMEOUT_MS, TIMEOUT_MS);
    this.publishes.push({ messageId: message.messageId, startedAt: performance.now(), timeoutMs });
    await sleep(timeoutMs);
    throw new Error(`No publisher confirm within ${timeoutMs} ms`);
  }
}

function rabbitContextOf(): DeliveryContext {
  return {
    ...contextOf('http://unused.invalid/'),
    target: 'rabbitmq',
    endpoint_id: null,
    pipeline_id: randomUUID(),
    destinations_enc: cipher.encrypt(JSON.stringify({ rabbitmq: { uri: 'amqp://guest:guest@127.0.0.1:5672', exchange: 'labflow' } })),
  };
}

async function publishTwoBehindOneSlot(jobLockMs: number, start: Start = 'in_turn') {
  const config = { concurrency: 1, deliveryTimeoutMs: TIMEOUT_MS, jobLockMs, retryScheduleMs: [0, 5_000], disableAfterMs: 86_400_000 } as EventsConfig;
  const first = rabbitContextOf();
  const second = rabbitContextOf();
  const store = new MemoryStore(new Map([first, second].map((context) => [context.id, context])), claimLeaseMs(config), claimAnswerDelays(second, start));
  const broker = new NeverConfirmingBroker();
  const sender = new WebhookSender({ timeoutMs: TIMEOUT_MS, allowPrivate: true });
  const processor = new DeliveryProcessor(store, cipher, sender, broker as unknown as RabbitMqPublisher, {} as EndpointRateLimiter, config, {
    warn: () => undefined,
  });
  try {
    await processBoth(processor, first, second, start);
  } finally {
    sender.close();
  }
  return { store, broker, first, second };
}

test('a RabbitMQ publish that waited for the slot is bounded by what is left of its lease', async () => {
  // Lease 3.5 s: sendBy = claim + 2.5 s (1 s margin); the first holds the slot for its 1.5 s
  // timeout, so the second publishes with about 1 s left.
  const { store, broker, first, second } = await publishTwoBehindOneSlot(3_500);
  for (const context of [first, second]) {
    const publish = broker.publishes.find((entry) => entry.messageId === context.event_id);
    expect(publish).toBeDefined();
    expect((publish?.startedAt as number) + (publish?.timeoutMs as number)).toBeLessThanOrEqual((store.claimedAt.get(context.id) as number) + store.leaseMs);
  }
  expect(store.finished.get(first.id)).toMatchObject({ status: 'failed', error: `No publisher confirm within ${TIMEOUT_MS} ms` });
  expect(broker.publishes.find((entry) => entry.messageId === second.event_id)?.timeoutMs).toBeLessThan(TIMEOUT_MS);
  expect(store.finished.get(second.id)?.delivery).toMatchObject({ status: 'pending' });
}, 20_000);

test('a RabbitMQ publish whose lease ran out while it waited is not published, and is retried on the schedule', async () => {
  const { store, broker, first, second } = await publishTwoBehindOneSlot(2_000, 'second_claimed_earlier');
  expect(broker.publishes.map((entry) => entry.messageId)).toContain(first.event_id);
  expect(broker.publishes.map((entry) => entry.messageId)).not.toContain(second.event_id);
  expect(store.finished.get(second.id)).toMatchObject({
    status: 'failed',
    error: 'Not sent: the attempt waited for a free connection until its claim ran out',
    delivery: { status: 'pending' },
  });
}, 20_000);
