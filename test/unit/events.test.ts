import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { loadConfig } from '../../src/config/config';
import { endpointAccepts, envelopeJson, envelopeOf, isEventType } from '../../src/events/catalogue';
import { deliveryBundleJobs, deliveryJob } from '../../src/events/delivery-queue';
import { uuidV5 } from '../../src/common/uuid-v5';
import { eventIdFor } from '../../src/events/event-id';
import { MicroBatcher } from '../../src/common/micro-batcher';
import { batchItem, fill } from '../../src/events/event-batches';
import { resolveEventId } from '../../src/events/outbox.service';
import { MAX_RETRY_AFTER_MS, nextStep, parseRetryAfter } from '../../src/events/retry-policy';
import { publicOnlyLookup, signatureHeaders, WebhookSender } from '../../src/events/webhook-sender';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { webhookUrlProblem } from '../../src/events/webhook-url';

const KEY = Buffer.alloc(32, 7).toString('base64');
const JUNCTION = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

describe('event ids', () => {
  it('are RFC 9562 UUID v5', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('derive from the idempotency key, stably', () => {
    expect(eventIdFor('order:1:transition:3')).toBe(eventIdFor('order:1:transition:3'));
    expect(eventIdFor('order:1:transition:3')).not.toBe(eventIdFor('order:1:transition:4'));
    expect(resolveEventId({ idempotencyKey: 'k' })).toBe(eventIdFor('k'));
    expect(resolveEventId({ eventId: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE', idempotencyKey: 'k' })).toBe('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
    expect(resolveEventId({})).not.toBe(resolveEventId({}));
    expect(() => resolveEventId({ eventId: 'order-1' })).toThrow(/UUID/);
  });
});

describe('catalogue', () => {
  it.each([
    ['labtest.order.created', true],
    ['labtest.result.critical', true],
    ['lab_report.parsing_job.updated', true],
    ['daily.data.glucose.created', true],
    ['daily.data.workout_stream.updated', true],
    ['daily.data.glucose.deleted', false],
    ['labtest.order.deleted', false],
  ])('%s is an event type: %s', (type, known) => expect(isEventType(type)).toBe(known));

  it('a webhook body spliced from the stored data text is the envelope JSON.stringify makes, byte for byte', () => {
    const event = { event_type: 'labtest.order.updated', team_id: 't-1', user_id: 'u "1"', client_user_id: 'é\u2028\ud83d\ude00' };
    const datas: unknown[] = [
      {
        id: 'o-1',
        status: 'completed',
        results: [
          { value: 92.5, unit: 'mg/dL' },
          { value: -0, big: 1e21, small: 5e-7 },
        ],
      },
      { text: 'line\nbreak \u0000 "quoted" \\ </script>', nested: { empty: {}, list: [], flag: false, none: null } },
      [],
      'a string',
      null,
    ];
    for (const data of datas) expect(envelopeJson(event, JSON.stringify(data))).toBe(JSON.stringify(envelopeOf(event, data)));
  });

  it('endpoint filters are exact types; none or [] takes all', () => {
    expect(endpointAccepts(null, 'labtest.order.created')).toBe(true);
    expect(endpointAccepts([], 'labtest.order.created')).toBe(true);
    expect(endpointAccepts(['labtest.order.created'], 'labtest.order.created')).toBe(true);
    expect(endpointAccepts(['labtest.order'], 'labtest.order.created')).toBe(false);
  });
});

describe('retry policy', () => {
  const failed = { statusCode: 500, retryAfterMs: null };

  it('follows the schedule after each failure, then exhausts after 1 + 8 attempts', () => {
    const delays = JUNCTION.map((_, index) => nextStep(index + 1, failed, JUNCTION));
    expect(delays).toEqual(JUNCTION.map((delayMs) => ({ kind: 'retry', delayMs })));
    expect(nextStep(9, failed, JUNCTION)).toEqual({ kind: 'exhausted' });
    expect(nextStep(10, failed, JUNCTION)).toEqual({ kind: 'exhausted' });
    expect(nextStep(1, { statusCode: null, retryAfterMs: null }, JUNCTION)).toEqual({ kind: 'retry', delayMs: 0 });
  });

  it('counts any 2xx as success, and 410 as gone', () => {
    for (const statusCode of [200, 201, 204, 299]) expect(nextStep(1, { statusCode, retryAfterMs: null }, JUNCTION).kind).toBe('succeeded');
    for (const statusCode of [199, 300, 301, 404, 429]) expect(nextStep(1, { statusCode, retryAfterMs: null }, JUNCTION).kind).toBe('retry');
    expect(nextStep(9, { statusCode: 410, retryAfterMs: null }, JUNCTION)).toEqual({ kind: 'gone' });
  });

  it('waits at least Retry-After (capped), never less than the schedule', () => {
    expect(nextStep(1, { statusCode: 429, retryAfterMs: 60_000 }, JUNCTION)).toEqual({ kind: 'retry', delayMs: 60_000 });
    expect(nextStep(3, { statusCode: 503, retryAfterMs: 1_000 }, JUNCTION)).toEqual({ kind: 'retry', delayMs: 300_000 });
    expect(nextStep(1, { statusCode: 429, retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, JUNCTION)).toEqual({ kind: 'retry', delayMs: MAX_RETRY_AFTER_MS });
  });

  it('reads Retry-After as seconds or an HTTP date, on 429 and 503 only', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(429, '120', now)).toBe(120_000);
    expect(parseRetryAfter(503, 'Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(503, 'Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(500, '120', now)).toBeNull();
    expect(parseRetryAfter(429, 'soon', now)).toBeNull();
    expect(parseRetryAfter(429, undefined, now)).toBeNull();
  });
});

describe('signing', () => {
  it('produces Standard Webhooks and svix headers both packages verify, one signature per secret', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const body = JSON.stringify({ event_type: 'labtest.order.created', data: { id: 'x' } });
    const headers = signatureHeaders('msg_1', new Date(), body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['svix-signature']).toBe(headers['webhook-signature']);
    for (const secret of [current, previous]) {
      expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      const svixOnly = { 'svix-id': headers['svix-id'], 'svix-timestamp': headers['svix-timestamp'], 'svix-signature': headers['svix-signature'] };
      expect(new SvixWebhook(secret).verify(body, svixOnly)).toEqual(JSON.parse(body));
    }
    expect(() => new StandardWebhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new StandardWebhook(current).verify(`${body} `, headers)).toThrow();
  });

  it('signs exactly as standardwebhooks does (node:crypto HMAC, keys decoded once per secret)', () => {
    const secret = generateWebhookSecret();
    const at = new Date('2026-03-01T12:00:00.750Z');
    for (const body of ['{}', JSON.stringify({ data: { name: 'Zoë', note: '血糖 ✓' } })]) {
      const headers = signatureHeaders('msg_2', at, body, [secret]);
      expect(headers['webhook-signature']).toBe(new StandardWebhook(secret).sign('msg_2', at, body));
      expect(headers['webhook-timestamp']).toBe('1772366400');
    }
    expect(() => signatureHeaders('msg_3', at, '{}', ['whsec_'])).toThrow();
  });
});

describe('delivery bookkeeping in groups (MicroBatcher)', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('sends items waiting together in one call, each caller getting its own answer', async () => {
    const calls: number[][] = [];
    const batcher = new MicroBatcher(async (items: number[]) => (calls.push(items), items.map((n) => n * 10)), { maxBatch: 3, maxInFlight: 1, key: String });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(answers).toEqual([10, 20, 30, 40, 50]);
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('never puts two items with the same key in one call', async () => {
    const calls: string[][] = [];
    const batcher = new MicroBatcher(async (items: string[]) => (calls.push(items), items), { maxBatch: 10, maxInFlight: 1, key: (item) => item });
    await Promise.all(['a', 'b', 'a', 'c', 'a'].map((item) => batcher.submit(item)));
    expect(calls).toEqual([['a', 'b', 'c'], ['a'], ['a']]);
  });

  it('retries a refused group item by item, so only the item at fault fails', async () => {
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        if (items.includes(13)) throw new Error(`refused ${items.join(',')}`);
        return items;
      },
      { maxBatch: 10, maxInFlight: 1, key: String },
    );
    const outcomes = await Promise.allSettled([12, 13, 14].map((n) => batcher.submit(n)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused 13');
  });

  it('sends a lone item at once, and starts the next group while one runs when maxInFlight allows', async () => {
    let running = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const batcher = new MicroBatcher(
      async (items: number[]) => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        return items;
      },
      { maxBatch: 10, maxInFlight: 2, key: String },
    );
    const first = batcher.submit(1);
    await settle();
    const second = batcher.submit(2);
    await settle();
    expect(release).toHaveLength(2);
    release.forEach((resolve) => resolve());
    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
    expect(most).toBe(2);
  });

  it('with lingerMs, items submitted within it share a call, and later ones wait for the next', async () => {
    jest.useFakeTimers();
    try {
      const calls: number[][] = [];
      const batcher = new MicroBatcher(async (items: number[]) => (calls.push(items), items), { maxBatch: 10, maxInFlight: 1, lingerMs: 100 });
      const first = [batcher.submit(1)];
      await jest.advanceTimersByTimeAsync(60);
      first.push(batcher.submit(2));
      expect(calls).toEqual([]);
      await jest.advanceTimersByTimeAsync(40);
      await expect(Promise.all(first)).resolves.toEqual([1, 2]);
      const later = batcher.submit(3);
      await jest.advanceTimersByTimeAsync(99);
      expect(calls).toEqual([[1, 2]]);
      await jest.advanceTimersByTimeAsync(1);
      await expect(later).resolves.toBe(3);
      expect(calls).toEqual([[1, 2], [3]]);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('event batches: bounds', () => {
  const items = (count: number, size = 10) => Array.from({ length: count }, (_, i) => batchItem(String(i), JSON.stringify('x'.repeat(size - 2))));

  it('fills the open batch first, then whole batches under both bounds; the last stays open unless full', () => {
    // Each item is 10 bytes of JSON (8 characters and quotes) + 1 separator = 11.
    const byCount = fill(items(25), { count: 5, bytes: 55 }, { maxItems: 10, maxBytes: 10_000 });
    expect(byCount.map((chunk) => [chunk.items.length, chunk.full])).toEqual([
      [5, true],
      [10, true],
      [10, true],
    ]);
    const byBytes = fill(items(7), { count: 0, bytes: 0 }, { maxItems: 100, maxBytes: 33 });
    expect(byBytes.map((chunk) => [chunk.items.length, chunk.bytes, chunk.full])).toEqual([
      [3, 33, true],
      [3, 33, true],
      [1, 11, false],
    ]);
  });

  it('seals a full open batch without adding to it, and lets an item larger than the bound go alone', () => {
    expect(fill(items(2), { count: 10, bytes: 110 }, { maxItems: 10, maxBytes: 10_000 }).map((chunk) => [chunk.items.length, chunk.full])).toEqual([
      [0, true],
      [2, false],
    ]);
    expect(fill(items(2, 50), { count: 0, bytes: 0 }, { maxItems: 10, maxBytes: 20 }).map((chunk) => [chunk.items.length, chunk.full])).toEqual([
      [1, true],
      [1, true],
    ]);
  });
});

describe('delivery jobs', () => {
  it('bundle new deliveries in order, ten a job, with their traceparents; a lone one is a job of its own', () => {
    const ids = Array.from({ length: 21 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const jobs = deliveryBundleJobs(ids, new Map([[ids[3], '00-trace-3']]));
    expect(jobs.map((job) => job.name)).toEqual(['deliver-bundle', 'deliver-bundle', 'deliver']);
    expect(jobs[0].data).toEqual({ deliveryIds: ids.slice(0, 10), traceParents: { [ids[3]]: '00-trace-3' } });
    expect(jobs[0].opts.jobId).toBe(`bundle-${ids[0]}`);
    expect(jobs[1].data).toEqual({ deliveryIds: ids.slice(10, 20) });
    expect(jobs[2]).toMatchObject({ data: { deliveryId: ids[20] }, opts: { jobId: ids[20] } });
    expect(deliveryJob(ids[0], undefined, 1500).opts).toMatchObject({ jobId: ids[0], delay: 1500 });
  });
});

describe('endpoint safety', () => {
  const resolver = (addresses: LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
      callback(null, addresses)) as unknown as typeof import('node:dns').lookup;

  const resolve = (lookup: ReturnType<typeof publicOnlyLookup>, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((done) =>
      lookup('hooks.example.com', { all }, (error, address, family) => done({ error, result: all ? address : [address, family] })),
    );

  it('refuses a host name resolving to any private, loopback or link-local address', async () => {
    for (const address of ['127.0.0.1', '10.0.0.8', '169.254.169.254', '::1', 'fd00::1', '::ffff:192.168.1.1']) {
      const lookup = publicOnlyLookup(
        resolver([
          { address: '93.184.216.34', family: 4 },
          { address, family: address.includes(':') ? 6 : 4 },
        ]),
      );
      const { error } = await resolve(lookup, true);
      expect(error?.message).toMatch(`resolves to non-public address ${address}`);
    }
  });

  it('passes public addresses through, in either lookup form', async () => {
    const lookup = publicOnlyLookup(resolver([{ address: '93.184.216.34', family: 4 }]));
    expect(await resolve(lookup, true)).toEqual({ error: null, result: [{ address: '93.184.216.34', family: 4 }] });
    expect(await resolve(lookup, false)).toEqual({ error: null, result: ['93.184.216.34', 4] });
  });

  it('refuses fully-qualified localhost at create time', () => {
    expect(webhookUrlProblem('http://localhost./x', false)).toMatch(/localhost/);
    expect(webhookUrlProblem('http://localhost./x', true)).toBeNull();
  });

  it('gives up on a receiver that does not answer within the delivery timeout', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = new WebhookSender({ timeoutMs: 200, allowPrivate: true });
    try {
      const result = await sender.post({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, body: '{}', headers: {} });
      expect(result).toMatchObject({ statusCode: null, error: 'Timed out after 200 ms' });
    } finally {
      sender.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('keep-alive connections to a receiver', () => {
  /** A receiver that answers 200 (after `delayMs`) and counts the connections opened to it. */
  async function receiver(options: { keepAliveTimeoutMs: number; delayMs?: number }) {
    const server = createServer((_request, response) => setTimeout(() => response.writeHead(200).end('ok'), options.delayMs ?? 0));
    server.keepAliveTimeout = options.keepAliveTimeoutMs;
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      connections: () => connections,
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('reuses a connection for the next delivery, but not one idle past the receiver’s announced Keep-Alive timeout less a second', async () => {
    // Node announces `Keep-Alive: timeout=2` and closes idle connections after 2 s: a request on
    // a connection idle that long can meet the close (ECONNRESET, a failed attempt).
    const server = await receiver({ keepAliveTimeoutMs: 2_000 });
    const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivate: true });
    try {
      const post = () => sender.post({ url: server.url, body: '{}', headers: {} });
      expect((await post()).statusCode).toBe(200);
      expect((await post()).statusCode).toBe(200);
      expect(server.connections()).toBe(1);
      // Idle 1.5 s: past the agent's 1 s (2 s announced less its 1 s margin), before the server's 2 s.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await post()).statusCode).toBe(200);
      expect(server.connections()).toBe(2);
    } finally {
      sender.close();
      await server.close();
    }
  });

  it('lets a response slower than the idle-socket timeout complete', async () => {
    const server = await receiver({ keepAliveTimeoutMs: 60_000, delayMs: 500 });
    const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivate: true, idleSocketTimeoutMs: 100 });
    try {
      expect(await sender.post({ url: server.url, body: '{}', headers: {} })).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok' });
    } finally {
      sender.close();
      await server.close();
    }
  });
});

describe('events configuration', () => {
  it('defaults to Junction’s schedule and timeouts, private URLs refused only in production', () => {
    const config = loadConfig({ PHI_ENCRYPTION_KEY: KEY });
    expect(config.events).toMatchObject({
      retryScheduleMs: JUNCTION,
      deliveryTimeoutMs: 15_000,
      disableAfterMs: 5 * 24 * 3600 * 1000,
      allowPrivateWebhookUrls: true,
      queueName: 'labflow-events',
    });
    expect(config.workerRoles).toEqual(['temporal', 'relay', 'delivery', 'sandbox', 'retention', 'lab-reports', 'continuous-queries']);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, NODE_ENV: 'production' }).events.allowPrivateWebhookUrls).toBe(false);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, NODE_ENV: 'production', ALLOW_PRIVATE_WEBHOOK_URLS: 'true' }).events.allowPrivateWebhookUrls).toBe(true);
    expect(loadConfig({ PHI_ENCRYPTION_KEY: KEY, WEBHOOK_RETRY_SCHEDULE: '0s, 50ms,1s' }).events.retryScheduleMs).toEqual([0, 50, 1000]);
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', '0s,soon'],
    ['WORKER_ROLES', 'temporal,web'],
    ['EVENTS_QUEUE', 'has:colon'],
  ])('names a bad %s', (name, value) => {
    expect(() => loadConfig({ PHI_ENCRYPTION_KEY: KEY, [name]: value })).toThrow(new RegExp(`${name}:`));
  });
});
