import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { Counter } from 'prom-client';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { errorListener } from '../common/logger';
import { MetricsRegistry } from '../common/metrics/registry';
import { LABFLOW_CONFIG, type LabflowConfig, type RateBudget } from '../config/config';
import { type BudgetState, type ConsumeBlock, LeasedBudgets, leaseBlockOf, type Taken } from './leased-budgets';
import type { AddressFamily } from './rate-limit-family';

/** Whose request budget a request spends: a key's (main or management API) or a client address's. */
export type RequestFamily = 'apiKey' | 'managementKey' | AddressFamily;
/** Whose refused attempts are counted: keys refused on either API, or an unauthenticated family's. */
export type FailureFamily = 'invalidKey' | AddressFamily;

/** What one request is counted against; either part may be absent. */
export interface LimitScope {
  /** The request budget spent: `subject` is a key's hash or the client address. */
  requests: { family: RequestFamily; subject: string } | null;
  /** The client address's guessing budget: checked before the request, spent by a refused answer. */
  failures: { family: FailureFamily; address: string } | null;
}

/** A budget as the rate-limit headers show it. */
export type { BudgetState };

export type Verdict =
  /** Go on; `state` is the request budget after this request (null when none was checked). */
  | { kind: 'admitted'; state: BudgetState | null }
  /** 429: the request budget is spent, or the address has used up its refused attempts. */
  | { kind: 'refused'; reason: 'requests' | 'failures'; state: BudgetState };

/** Redis keys: `<RATE_LIMIT_REDIS_PREFIX>:<family>:<key hash or address>` and `…:failures:<family>:<address>`. */
const REQUESTS = 'requests';
const FAILURES = 'failures';

/** How long the limiter waits for Redis before letting the request pass (a paused or slow Redis). */
const COMMAND_TIMEOUT_MS = 500;

/** The request budgets that may be leased when large: per key. Per-address budgets are always counted exactly. */
const LEASED_FAMILIES: ReadonlySet<RequestFamily> = new Set(['apiKey', 'managementKey']);

/** How long an address read with no refused attempts is believed without Redis, for requests with a key already accepted here. */
const CLEAN_ADDRESS_MS = 1000;
/** Addresses remembered as clean before the expired ones are swept, and at most. */
const CLEAN_ADDRESSES_SWEEP_AT = 10_000;
const CLEAN_ADDRESSES_MAX = 100_000;

/** One family's request budget: its Redis limiter, and its leases when the budget is large enough. */
interface RequestBudget {
  limiter: RateLimiterRedis;
  leases: LeasedBudgets | null;
}

/** What Redis said (`res` null: no such key), or null: it did not answer. */
type Answered = { res: RateLimiterRes | null } | null;

/** Requests waiting on one Redis command for the same budget key, in arrival order. */
interface Joined<T> {
  waiters: Array<(value: T) => void>;
}

/**
 * The rate limits of the HTTP apps (docs/rate-limits.md): rate-limiter-flexible's RateLimiterRedis
 * on a Redis connection of its own, so every API and management replica counts in one budget.
 * Fixed windows: a budget's window opens at the first request counted and closes `duration` later.
 *
 * Requests for the same budget key that arrive in one turn of the event loop (under load, many
 * do: one key from many connections) share one Redis command: one consume of as many points,
 * each request taking its own place in the count (the n-th of a batch sees what it would have
 * seen alone), and one read of an address's refused attempts. The counts stay exact; a key's
 * requests cost one command per turn instead of one each.
 *
 * A key's budget of at least LEASE_MIN_POINTS (the main API's default, 1,200,000 a minute) is
 * leased instead (LeasedBudgets): each process takes blocks of a thousandth of it from Redis and
 * lets requests through from its block without Redis, never more than the budget across
 * replicas; a request with a key accepted here, from an address read with no refused attempts in
 * the last second, touches no Redis at all. Refused-attempt budgets and per-address request
 * budgets stay exact (bench:rate-limits measures what is left).
 *
 * Fail open: while Redis does not answer (down, paused, slow beyond 500 ms), requests pass
 * unchecked, `labflow_rate_limit_unavailable_total` counts them and a warning says so at most once
 * a minute. Limits protect the service from one client; refusing everyone while Redis is away
 * would turn a Redis outage into an API outage.
 */
@Injectable()
export class RequestLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('rate-limits');
  private readonly redis: Redis;
  private readonly requestBudgets = new Map<RequestFamily, RequestBudget>();
  private readonly failureLimiters = new Map<FailureFamily, RateLimiterRedis>();
  private readonly unavailable: Counter<'family'>;
  private readonly refused: Counter<'family' | 'reason'>;
  private lastWarning = 0;
  private degraded = false;
  private readonly spending = new Map<string, Joined<Taken>>();
  private readonly peeking = new Map<string, Joined<RateLimiterRes | null>>();
  /** Addresses last read with no refused attempts, and when (the monotonic clock). */
  private readonly cleanAddresses = new Map<string, number>();
  private cleanSweepAt = CLEAN_ADDRESSES_SWEEP_AT;

  constructor(@Inject(LABFLOW_CONFIG) config: LabflowConfig, metrics: MetricsRegistry) {
    const { rateLimits } = config;
    // Commands fail at once while disconnected (no offline queue) and after COMMAND_TIMEOUT_MS
    // while Redis does not answer; the two commands of a request go out in one write.
    this.redis = new Redis(rateLimits.redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      enableAutoPipelining: true,
      disconnectTimeout: 200,
    });
    this.redis.on('error', errorListener(this.logger, 'Redis (rate limits)'));
    const limiter = (prefix: string, budget: RateBudget) =>
      budget &&
      new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${rateLimits.keyPrefix}:${prefix}`,
        points: budget.points,
        duration: budget.durationSeconds,
      });
    for (const [family, budget] of Object.entries(rateLimits.requests) as Array<[RequestFamily, RateBudget]>) {
      const made = limiter(`${REQUESTS}:${family}`, budget);
      if (!made) continue;
      const block = LEASED_FAMILIES.has(family) ? leaseBlockOf(made.points) : null;
      const consumeBlock: ConsumeBlock = async (subject, amount, waiting) => (await this.answer(made.consume(subject, amount), family, waiting))?.res ?? null;
      this.requestBudgets.set(family, { limiter: made, leases: block ? new LeasedBudgets(made.points, block, consumeBlock) : null });
    }
    for (const [family, budget] of Object.entries(rateLimits.failures) as Array<[FailureFamily, RateBudget]>) {
      const made = limiter(`${FAILURES}:${family}`, budget);
      if (made) this.failureLimiters.set(family, made);
    }
    this.unavailable = new Counter({
      name: 'labflow_rate_limit_unavailable_total',
      help: "Requests (and refused attempts) let through uncounted because the rate limits' Redis did not answer (fail open), by route family.",
      labelNames: ['family'] as const,
      registers: [metrics.registry],
    });
    this.refused = new Counter({
      name: 'labflow_rate_limited_total',
      help: 'Requests answered 429, by route family and reason (requests: the budget is spent; failures: too many refused attempts from the address).',
      labelNames: ['family', 'reason'] as const,
      registers: [metrics.registry],
    });
  }

  /** The first requests are counted too: wait (briefly) for the connection before serving. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      this.redis.once('ready', done);
      this.redis.once('error', done);
    });
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  /**
   * Spends one request of the scope's budget and checks its address's refused attempts. A leased
   * budget (docs/rate-limits.md) answers from this process's lease without Redis when it can: for
   * a request that also has refused attempts to check, only with a key already accepted here from
   * an address read with none in the last CLEAN_ADDRESS_MS.
   */
  async admit(scope: LimitScope): Promise<Verdict> {
    return this.admitNow(scope) ?? this.admitThroughRedis(scope);
  }

  /**
   * admit's verdict when this process's lease gives it without Redis (most requests with a key,
   * under load), synchronously; undefined when Redis must be asked (admit then). The rate-limit
   * guard takes this path without a promise.
   */
  admitNow(scope: LimitScope): Verdict | undefined {
    const budget = scope.requests ? this.requestBudgets.get(scope.requests.family) : undefined;
    if (!budget?.leases || !scope.requests) return undefined;
    const checked = scope.failures && this.failureLimiters.has(scope.failures.family) ? scope.failures : null;
    if (checked && !this.knownClean(checked)) return undefined;
    const taken = budget.leases.takeNow(scope.requests.subject, checked !== null);
    return taken ? this.verdictOf(scope.requests.family, taken) : undefined;
  }

  private async admitThroughRedis(scope: LimitScope): Promise<Verdict> {
    const budget = scope.requests ? this.requestBudgets.get(scope.requests.family) : undefined;
    const failureLimiter = scope.failures ? this.failureLimiters.get(scope.failures.family) : undefined;
    const [taken, failed] = await Promise.all([
      budget && scope.requests ? this.take(budget, scope.requests.family, scope.requests.subject) : null,
      failureLimiter && scope.failures ? this.peek(failureLimiter, scope.failures.family, scope.failures.address) : null,
    ]);
    if (failureLimiter && scope.failures && failed && failed.consumedPoints >= failureLimiter.points) {
      this.refused.inc({ family: scope.failures.family, reason: 'failures' });
      return { kind: 'refused', reason: 'failures', state: { limit: failureLimiter.points, remaining: 0, resetMs: failed.msBeforeNext } };
    }
    if (!scope.requests || !taken) return { kind: 'admitted', state: null };
    return this.verdictOf(scope.requests.family, taken);
  }

  /**
   * How the request was answered, once it was: a refused attempt (a wrong key, code, token or
   * signature) is counted against the address, and a key's lease learns whether the key was
   * accepted (only then may its requests skip reading the address in Redis).
   */
  async settle(scope: LimitScope, refusedAttempt: boolean): Promise<void> {
    if (scope.requests) this.requestBudgets.get(scope.requests.family)?.leases?.settle(scope.requests.subject, refusedAttempt);
    if (refusedAttempt && scope.failures) await this.recordFailure(scope.failures);
  }

  /** Counts a refused attempt (a wrong key, code, token or signature) against the address. */
  private async recordFailure(failures: NonNullable<LimitScope['failures']>): Promise<void> {
    this.cleanAddresses.delete(`${failures.family}\u0000${failures.address}`);
    const limiter = this.failureLimiters.get(failures.family);
    if (limiter) await this.answer(limiter.penalty(failures.address, 1), failures.family);
  }

  private verdictOf(family: RequestFamily, taken: NonNullable<Taken>): Verdict {
    if (!taken.refused) return { kind: 'admitted', state: taken.state };
    this.refused.inc({ family, reason: 'requests' });
    return { kind: 'refused', reason: 'requests', state: taken.state };
  }

  /** One point of `subject`'s budget: from a lease (large budgets), or spent in Redis with the other requests of this turn. */
  private take(budget: RequestBudget, family: RequestFamily, subject: string): Promise<Taken> {
    if (budget.leases) return budget.leases.take(subject);
    const { limiter } = budget;
    return this.join(this.spending, `${family}\u0000${subject}`, async (count) => {
      const res = (await this.answer(limiter.consume(subject, count), family, count))?.res;
      return (index) => {
        if (!res) return null;
        // This request's own place in the count: points consumed up to and including it.
        const consumed = res.consumedPoints - count + index + 1;
        const state = { limit: limiter.points, remaining: Math.max(0, limiter.points - consumed), resetMs: res.msBeforeNext };
        return { refused: consumed > limiter.points, state };
      };
    });
  }

  /** The address's refused attempts, read once for the requests of this turn from it. */
  private peek(limiter: RateLimiterRedis, family: FailureFamily, address: string): Promise<RateLimiterRes | null> {
    return this.join(this.peeking, `${family}\u0000${address}`, async (count) => {
      const answered = await this.answer(limiter.get(address), family, count);
      if (answered && (!answered.res || answered.res.consumedPoints === 0)) this.rememberClean(`${family}\u0000${address}`);
      return () => answered?.res ?? null;
    });
  }

  /** Whether the address was read with no refused attempts in the last CLEAN_ADDRESS_MS (and none was counted here since). */
  private knownClean(failures: NonNullable<LimitScope['failures']>): boolean {
    const readAt = this.cleanAddresses.get(`${failures.family}\u0000${failures.address}`);
    return readAt !== undefined && performance.now() - readAt < CLEAN_ADDRESS_MS;
  }

  private rememberClean(id: string): void {
    const now = performance.now();
    if (this.cleanAddresses.size >= this.cleanSweepAt) {
      for (const [address, readAt] of this.cleanAddresses) if (now - readAt >= CLEAN_ADDRESS_MS) this.cleanAddresses.delete(address);
      // Beyond the cap (many addresses a second), forget them all: they are read in Redis again.
      if (this.cleanAddresses.size >= CLEAN_ADDRESSES_MAX) this.cleanAddresses.clear();
      this.cleanSweepAt = Math.min(CLEAN_ADDRESSES_MAX, Math.max(CLEAN_ADDRESSES_SWEEP_AT, this.cleanAddresses.size * 2));
    }
    this.cleanAddresses.delete(id);
    this.cleanAddresses.set(id, now);
  }

  /**
   * Joins the requests of this turn of the event loop waiting on `id`: the first schedules `run`
   * for after the turn (setImmediate), with how many joined; each gets its answer by its index.
   */
  private join<T>(pending: Map<string, Joined<T>>, id: string, run: (count: number) => Promise<(index: number) => T>): Promise<T> {
    let joined = pending.get(id);
    if (!joined) {
      const batch: Joined<T> = { waiters: [] };
      joined = batch;
      pending.set(id, batch);
      setImmediate(() => {
        pending.delete(id);
        void run(batch.waiters.length).then((answerOf) => batch.waiters.forEach((resolve, index) => resolve(answerOf(index))));
      });
    }
    const waiters = joined.waiters;
    return new Promise<T>((resolve) => waiters.push(resolve));
  }

  /**
   * What the limiter said: rate-limiter-flexible rejects a spent budget with its RateLimiterRes
   * (an answer) and a Redis failure with an Error (no answer: null, and the `count` requests pass).
   */
  private async answer(work: Promise<RateLimiterRes | null>, family: string, count = 1): Promise<Answered> {
    try {
      const res = await work;
      this.recovered();
      return { res };
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        this.recovered();
        return { res: outcome };
      }
      this.unavailable.inc({ family }, count);
      this.warnUnavailable(outcome);
      return null;
    }
  }

  /** At most one warning a minute, so an outage does not write a line per request. */
  private warnUnavailable(error: unknown): void {
    this.degraded = true;
    const now = Date.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn(`rate limits unavailable (Redis did not answer: ${message}); requests pass unlimited until it answers again`);
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.lastWarning = 0;
    this.logger.log('rate limits counting again (Redis answers)');
  }
}
