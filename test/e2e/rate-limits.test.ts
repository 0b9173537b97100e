import Redis from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { hashSecretHex } from '../../src/common/crypto';
import { freeLoopbackPort } from '../../src/common/free-port';
import { MetricsRegistry } from '../../src/common/metrics/registry';
import { loadConfig } from '../../src/config/config';
import { RequestLimiter, type Verdict } from '../../src/rate-limits/request-limiter';
import { eventually } from '../helpers/eventually';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Rate limits (docs/rate-limits.md) over HTTP: a budget spent answers 429 `{detail}` with
 * Retry-After and the X-RateLimit-* headers, counted requests carry the headers too, a budget is
 * whole again after its window, two API apps on one Redis share one budget, refused keys, portal
 * codes and link tokens from one address get it refused, and with the limits' Redis away
 * requests pass and a metric counts them. A large key budget is leased in blocks (most requests
 * touch no Redis) and still ends in 429 across replicas, never beyond the budget; small budgets
 * are counted in Redis request by request.
 *
 * The stacks believe X-Forwarded-For from 127.0.0.1 (TRUST_PROXY), so each test plays a client
 * address of its own and blocking one address leaves the other tests alone.
 */

const SECRET = 'rate-limit-partner-secret';

/** Two API apps (replicas) counting in one Redis budget; the first with the management API. */
let replicaA: TestStack;
let replicaB: TestStack;
/** Their shared RATE_LIMIT_REDIS_PREFIX, and a connection to that Redis to read the counts. */
const sharedPrefix = `rate-limits-test-${randomUUID()}`;
let redis: Redis;

const SMALL_LIMITS = {
  TRUST_PROXY: '127.0.0.1',
  PARTNER_WEBHOOK_SECRET: SECRET,
  RATE_LIMIT_API_KEY: '10/1m',
  RATE_LIMIT_MANAGEMENT_KEY: '4/1m',
  RATE_LIMIT_INVALID_KEYS: '5/10m',
  RATE_LIMIT_PORTAL_FAILURES: '4/10m',
  RATE_LIMIT_LINK_FAILURES: '4/10m',
  RATE_LIMIT_PARTNER_WEBHOOK_FAILURES: '3/10m',
};

beforeAll(async () => {
  const shared = { ...SMALL_LIMITS, RATE_LIMIT_REDIS_PREFIX: sharedPrefix };
  replicaA = await startStack({ worker: false, management: true, env: shared });
  replicaB = await startStack({ worker: false, env: shared });
  redis = new Redis(replicaA.config.rateLimits.redisUrl);
});

afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
  redis?.disconnect();
});

/** The points a team key has taken from its request budget in this window, as Redis counts them (rate-limiter-flexible's key). */
async function countedInRedis(prefix: string, apiKey: string): Promise<number> {
  return Number((await redis.get(`${prefix}:requests:apiKey:${hashSecretHex(apiKey)}`)) ?? 0);
}

let addressCounter = 0;
/** A client address of the test's own (documentation range 203.0.113.0/24 and 198.51.100.0/24). */
const newAddress = () => {
  addressCounter += 1;
  return addressCounter < 250 ? `203.0.113.${addressCounter}` : `198.51.100.${addressCounter - 249}`;
};

const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });

function expectRateLimitHeaders(result: HttpResult, limit: number, remaining: number, windowSeconds: number): void {
  expect(result.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(result.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  // Unix seconds, as the Junction SDK reads X-RateLimit-Reset: within the window from now.
  const reset = Number(result.headers.get('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + windowSeconds + 1);
}

function expect429(result: HttpResult, windowSeconds: number): void {
  expect(result.status).toBe(429);
  expect(typeof result.body.detail).toBe('string');
  const retryAfter = Number(result.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

/** Sends `send` until it answers 429 (refused attempts are counted once their answer is out). */
async function until429(send: () => Promise<HttpResult>, what: string): Promise<HttpResult> {
  return eventually(
    async () => {
      const result = await send();
      return result.status === 429 ? result : undefined;
    },
    what,
    10_000,
    50,
  );
}

const aKeyGuess = () => `sk_us_${randomBytes(24).toString('base64url')}`;

describe('per team API key', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(replicaA.db);
  });

  it('answers with the budget in X-RateLimit-*, then 429 {detail} with Retry-After once it is spent', async () => {
    const address = newAddress();
    for (let i = 0; i < 10; i += 1) {
      const result = await call(replicaA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(address) });
      expect(result.status).toBe(200);
      expectRateLimitHeaders(result, 10, 9 - i, 60);
    }
    const limited = await call(replicaA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(address) });
    expect429(limited, 60);
    expect(limited.body.detail).toMatch(/^Rate limit exceeded \(10 requests per window\): try again in \d+ seconds\.$/);
    expectRateLimitHeaders(limited, 10, 0, 60);
    // The budget is the key's, not the address's: another team's key from the same address goes on.
    const other = await createTenant(replicaA.db);
    expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { key: other.apiKey, headers: from(address) })).status).toBe(200);
  });

  it('is one budget across API replicas sharing the Redis', async () => {
    const shared = await createTenant(replicaA.db);
    const answers: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const replica = i % 2 === 0 ? replicaA : replicaB;
      answers.push((await call(replica.apiUrl, 'GET', '/v2/user', { key: shared.apiKey })).status);
    }
    // Each replica alone would have allowed 10: together they allowed 10.
    expect(answers).toEqual([...Array(10).fill(200), 429, 429]);
    // A small budget is not leased: Redis counted each request as it came.
    expect(await countedInRedis(sharedPrefix, shared.apiKey)).toBe(12);
  });

  it('counts requests sent at once exactly (they share Redis commands): 10 pass, each with its own remaining, the rest 429', async () => {
    const burst = await createTenant(replicaA.db);
    const answers = await Promise.all(Array.from({ length: 16 }, () => call(replicaA.apiUrl, 'GET', '/v2/user', { key: burst.apiKey })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(6);
    const remaining = answers.filter((answer) => answer.status === 200).map((answer) => Number(answer.headers.get('x-ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Requests admitted in one turn of the event loop go to Redis together, and still each get their own place.
    const limiter = replicaA.api.get(RequestLimiter);
    const subject = `burst-${randomUUID()}`;
    const verdicts = await Promise.all(Array.from({ length: 16 }, () => limiter.admit({ requests: { family: 'apiKey', subject }, failures: null })));
    expect(verdicts.map((verdict) => `${verdict.kind} ${verdict.state?.remaining}`)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `admitted ${9 - i}`),
      ...Array(6).fill('refused 0'),
    ]);
  });

  it('is whole again once its window has passed', async () => {
    const stack = await startStack({ worker: false, env: { RATE_LIMIT_API_KEY: '3/2s' } });
    try {
      const own = await createTenant(stack.db);
      const send = () => call(stack.apiUrl, 'GET', '/v2/user', { key: own.apiKey });
      const limited = await until429(send, 'the 2-second budget of 3 to be spent');
      expect429(limited, 2);
      const passed = await eventually(async () => {
        const result = await send();
        return result.status === 200 ? result : undefined;
      }, 'a request to pass once the window closed');
      expect(passed.headers.get('x-ratelimit-limit')).toBe('3');
    } finally {
      await stack.close();
    }
  });
});

describe('refused keys per client address', () => {
  it('main API: after a few refused keys the address gets 429 before any key is looked up, on every replica; other addresses go on', async () => {
    const tenant = await createTenant(replicaA.db);
    const guesser = newAddress();
    for (let i = 0; i < 5; i += 1) {
      const replica = i % 2 === 0 ? replicaA : replicaB;
      const refused = await call(replica.apiUrl, 'GET', '/v2/user', { key: aKeyGuess(), headers: from(guesser) });
      expect(refused.status).toBe(401);
    }
    const blocked = await until429(
      () => call(replicaB.apiUrl, 'GET', '/v2/user', { key: aKeyGuess(), headers: from(guesser) }),
      'the guessing address to be refused',
    );
    expect429(blocked, 600);
    expect(blocked.body.detail).toMatch(/^Too many refused attempts from this address: try again in \d+ seconds\.$/);
    expectRateLimitHeaders(blocked, 5, 0, 600);
    // Even a right key from that address waits (a guess that happened to be right would say so otherwise).
    expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(guesser) })).status).toBe(429);
    expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(newAddress()) })).status).toBe(200);
  });

  it('keys that cannot be a key of that API (no key, another prefix) are refused without counting', async () => {
    const address = newAddress();
    for (let i = 0; i < 8; i += 1) {
      expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { headers: from(address) })).status).toBe(401);
      expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { key: `mg_${randomUUID()}`, headers: from(address) })).status).toBe(401);
    }
    const tenant = await createTenant(replicaA.db);
    expect((await call(replicaA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(address) })).status).toBe(200);
  });

  it('management API: per management key, and refused management keys per address', async () => {
    const tenant = await createTenant(replicaA.db);
    const org = `/v1/org/${tenant.orgId}`;
    const address = newAddress();
    for (let i = 0; i < 4; i += 1) {
      const result = await call(replicaA.managementUrl, 'GET', org, { headers: from(address, { 'x-management-key': tenant.managementKey }) });
      expect(result.status).toBe(200);
      expectRateLimitHeaders(result, 4, 3 - i, 60);
    }
    expect429(await call(replicaA.managementUrl, 'GET', org, { headers: from(address, { 'x-management-key': tenant.managementKey }) }), 60);

    const guesser = newAddress();
    for (let i = 0; i < 5; i += 1) {
      const refused = await call(replicaA.managementUrl, 'GET', org, {
        headers: from(guesser, { 'x-management-key': `mg_${randomBytes(24).toString('base64url')}` }),
      });
      expect(refused.status).toBe(401);
    }
    const blocked = await until429(
      () => call(replicaA.managementUrl, 'GET', org, { headers: from(guesser, { 'x-management-key': `mg_${randomBytes(24).toString('base64url')}` }) }),
      'the management key guesser to be refused',
    );
    expect429(blocked, 600);
  });
});

describe('unauthenticated routes per client address', () => {
  it('portal: guessed short-link codes and launch tokens get the address a 429 page', async () => {
    const guesser = newAddress();
    const page = (path: string) => call(replicaA.apiUrl, 'GET', path, { headers: from(guesser) });
    expect((await page(`/p/${randomBytes(12).toString('base64url')}`)).status).toBe(404);
    expect((await page(`/portal/launch/${randomBytes(24).toString('base64url')}`)).status).toBe(404);
    // The webhook portal's launch URLs are of the same family: a guessed one counts, and is held with the rest.
    expect((await page(`/webhook-portal/launch/${randomBytes(24).toString('base64url')}`)).status).toBe(401);
    expect((await page('/portal')).status).toBe(401);
    const blocked = await until429(() => page(`/p/${randomBytes(12).toString('base64url')}`), 'the portal code guesser to be refused');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(blocked.headers.get('content-type')).toMatch(/^text\/html/);
    expect(String(blocked.body)).toContain('Too many tries');
    expect((await page(`/webhook-portal/launch/${randomBytes(24).toString('base64url')}`)).status).toBe(429);
    // The portal's pages are counted too (per address), and other addresses are not held.
    const other = await call(replicaB.apiUrl, 'GET', `/p/${randomBytes(12).toString('base64url')}`, { headers: from(newAddress()) });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('link: guessed link tokens get the address 429 {detail}, even for a real token', async () => {
    const tenant = await createTenant(replicaA.db);
    const user = await call(replicaA.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `rate-${randomUUID()}` } });
    const token = await call(replicaA.apiUrl, 'POST', '/v2/link/token', { key: tenant.apiKey, body: { user_id: user.body.user_id } });
    expect(token.status).toBe(200);
    const guesser = newAddress();
    const state = (linkToken: string) => call(replicaA.apiUrl, 'GET', '/v2/link/state', { headers: from(guesser, { 'x-vital-link-token': linkToken }) });
    expect((await state(token.body.link_token)).status).toBe(200);
    for (let i = 0; i < 4; i += 1) expect((await state(`lnk_${randomBytes(16).toString('hex')}`)).status).toBe(401);
    const blocked = await until429(() => state(`lnk_${randomBytes(16).toString('hex')}`), 'the link token guesser to be refused');
    expect429(blocked, 600);
    expectRateLimitHeaders(blocked, 4, 0, 600);
    expect((await state(token.body.link_token)).status).toBe(429);
    // The team's own call with its API key is not held by the guessing of that address.
    const again = await call(replicaA.apiUrl, 'POST', '/v2/link/token', { key: tenant.apiKey, body: { user_id: user.body.user_id }, headers: from(guesser) });
    expect(again.status).toBe(200);
  });

  it('partner webhooks: refused signatures get the address 429 {detail}', async () => {
    const guesser = newAddress();
    const post = () =>
      call(replicaA.apiUrl, 'POST', '/v3/webhooks/courier/sandbox', {
        body: { order_id: randomUUID(), status: 'delivered' },
        headers: from(guesser, {
          'x-labflow-timestamp': String(Math.floor(Date.now() / 1000)),
          'x-labflow-signature': `v1=${randomBytes(32).toString('hex')}`,
        }),
      });
    for (let i = 0; i < 3; i += 1) expect((await post()).status).toBe(401);
    expect429(await until429(post, 'the signature guesser to be refused'), 600);
  });
});

describe('a large key budget, leased in blocks', () => {
  /** 100,000 a minute: leased a thousandth (100 points) at a time (docs/rate-limits.md). */
  const BUDGET = 100_000;
  const BLOCK = 100;
  const leasedPrefix = `rate-limits-leased-${randomUUID()}`;
  let leasedA: TestStack;
  let leasedB: TestStack;
  beforeAll(async () => {
    const env = { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_API_KEY: `${BUDGET}/1m`, RATE_LIMIT_INVALID_KEYS: '3/10m', RATE_LIMIT_REDIS_PREFIX: leasedPrefix };
    leasedA = await startStack({ worker: false, env });
    leasedB = await startStack({ worker: false, env });
  });
  afterAll(async () => {
    await leasedA?.close();
    await leasedB?.close();
  });

  it('lets most requests through without Redis, keeps the headers truthful, and still ends in 429 on both apps, never beyond the budget', async () => {
    const tenant = await createTenant(leasedA.db);
    const get = (stack: TestStack) => call(stack.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey });
    // One app: a block leased at the first request, then 20 more from it. Redis saw one command.
    for (let i = 0; i < 21; i += 1) {
      const result = await get(leasedA);
      expect(result.status).toBe(200);
      expectRateLimitHeaders(result, BUDGET, BUDGET - 1 - i, 60);
    }
    expect(await countedInRedis(leasedPrefix, tenant.apiKey)).toBe(BLOCK);
    // The other app leases its own block: its Remaining is the budget as Redis counted it, less what it let through,
    // so it under-states what is left by at most the points the first app still holds (block − 1).
    const other = await get(leasedB);
    expect(other.status).toBe(200);
    const remaining = Number(other.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeLessThanOrEqual(BUDGET - 22);
    expect(remaining).toBeGreaterThanOrEqual(BUDGET - 22 - (BLOCK - 1));
    expect(await countedInRedis(leasedPrefix, tenant.apiKey)).toBe(2 * BLOCK);

    // Spend the rest through both apps' limiters (as their guards do), in bursts, until both refuse.
    const limiters = [leasedA.api.get(RequestLimiter), leasedB.api.get(RequestLimiter)];
    const scope = { requests: { family: 'apiKey' as const, subject: hashSecretHex(tenant.apiKey) }, failures: null };
    let through = 22;
    let throughAtFirstRefusal: number | null = null;
    const refusing = new Set<number>();
    for (let round = 0; refusing.size < limiters.length; round += 1) {
      const app = round % limiters.length;
      const verdicts: Verdict[] = await Promise.all(Array.from({ length: 50 + (round % 7) * 40 }, () => limiters[app].admit(scope)));
      for (const verdict of verdicts) {
        if (verdict.kind === 'admitted') {
          through += 1;
        } else {
          refusing.add(app);
          throughAtFirstRefusal ??= through;
        }
      }
    }
    // Never more than the budget across the two apps; the first refusal at most (apps − 1) × (block − 1) early.
    expect(through).toBe(BUDGET);
    expect(throughAtFirstRefusal).toBeGreaterThanOrEqual(BUDGET - (BLOCK - 1));

    const counted = await countedInRedis(leasedPrefix, tenant.apiKey);
    for (const stack of [leasedA, leasedB]) {
      const limited = await get(stack);
      expect429(limited, 60);
      expect(limited.body.detail).toMatch(/^Rate limit exceeded \(100000 requests per window\): try again in \d+ seconds\.$/);
      expectRateLimitHeaders(limited, BUDGET, 0, 60);
    }
    // A spent budget is refused from what the app learnt at its last lease, without Redis.
    expect(await countedInRedis(leasedPrefix, tenant.apiKey)).toBe(counted);
  });

  it('an address that used up its refused attempts is refused at once for guessed keys, and within a second for a key in use', async () => {
    const tenant = await createTenant(leasedA.db);
    const address = newAddress();
    // The key is accepted on app A from this address (A may now answer it from its lease).
    expect((await call(leasedA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(address) })).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await call(leasedB.apiUrl, 'GET', '/v2/user', { key: aKeyGuess(), headers: from(address) })).status).toBe(401);
    expect429(
      await until429(() => call(leasedB.apiUrl, 'GET', '/v2/user', { key: aKeyGuess(), headers: from(address) }), 'the guesser to be refused on B'),
      600,
    );
    // A guess is never answered from a lease: app A reads the address in Redis and refuses it.
    expect((await call(leasedA.apiUrl, 'GET', '/v2/user', { key: aKeyGuess(), headers: from(address) })).status).toBe(429);
    await eventually(
      async () => (await call(leasedA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(address) })).status === 429 || undefined,
      'the key in use from that address to be refused on A',
      10_000,
      100,
    );
    expect((await call(leasedA.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey, headers: from(newAddress()) })).status).toBe(200);
  });
});

describe('Redis of the rate limits away', () => {
  it('requests pass unlimited (fail open) and labflow_rate_limit_unavailable_total counts them', async () => {
    const closedPort = await freeLoopbackPort();
    const stack = await startStack({
      worker: false,
      env: { RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${closedPort}/0`, RATE_LIMIT_API_KEY: '2/1m', RATE_LIMIT_INVALID_KEYS: '2/10m' },
    });
    try {
      const tenant = await createTenant(stack.db);
      for (let i = 0; i < 6; i += 1) {
        const result = await call(stack.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey });
        expect(result.status).toBe(200);
        expect(result.headers.get('x-ratelimit-limit')).toBeNull();
      }
      for (let i = 0; i < 4; i += 1) expect((await call(stack.apiUrl, 'GET', '/v2/user', { key: aKeyGuess() })).status).toBe(401);
      const metrics = await (await fetch(`${stack.apiUrl}/metrics`)).text();
      const counted = /^labflow_rate_limit_unavailable_total\{family="apiKey"\} (\d+)$/m.exec(metrics);
      expect(counted).not.toBeNull();
      expect(Number(counted?.[1])).toBeGreaterThanOrEqual(10);
    } finally {
      await stack.close();
    }
  });

  it('a leased budget fails open the same way', async () => {
    const closedPort = await freeLoopbackPort();
    const config = loadConfig({ ...process.env, RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${closedPort}/0`, RATE_LIMIT_API_KEY: '1200000/1m' });
    const metrics = new MetricsRegistry();
    const limiter = new RequestLimiter(config, metrics);
    await limiter.onModuleInit();
    try {
      const scope = { requests: { family: 'apiKey' as const, subject: randomUUID() }, failures: null };
      const verdicts = await Promise.all(Array.from({ length: 5 }, () => limiter.admit(scope)));
      expect(verdicts).toEqual(Array(5).fill({ kind: 'admitted', state: null }));
      expect(await limiter.admit(scope)).toEqual({ kind: 'admitted', state: null });
      expect(await metrics.text()).toMatch(/^labflow_rate_limit_unavailable_total\{family="apiKey"\} 6$/m);
    } finally {
      limiter.onModuleDestroy();
    }
  });
});
