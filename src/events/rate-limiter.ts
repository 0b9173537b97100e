import Redis from 'ioredis';
import { errorListener } from '../common/logger';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Whether a webhook delivery may be sent now under its endpoint's `rate_limit`. */
export type Admission =
  /** Go: one of this second's deliveries to the endpoint is taken. */
  | { kind: 'admitted' }
  /** Not now: run the job again at `atMs` (nothing was recorded in Postgres). */
  | { kind: 'held'; atMs: number };

export interface EndpointRateLimiter {
  /** Takes one delivery of `perSecond` for the endpoint, or says when to come back. */
  admit(endpointId: string, perSecond: number): Promise<Admission>;
  close(): Promise<void>;
}

export interface RateLimiterLogger {
  warn(message: string): void;
}

/** Redis keys: `labflow-webhook-rate:<endpoint id>`, one counter per endpoint, expiring with its window. */
export const RATE_LIMIT_KEY_PREFIX = 'labflow-webhook-rate';

/** How long a delivery is held when Redis cannot answer the limiter (fail closed). */
export const LIMITER_UNAVAILABLE_HOLD_MS = 1000;

/**
 * Endpoint `rate_limit` (deliveries per second, Svix/Junction) shared by every delivery worker:
 * rate-limiter-flexible's RateLimiterRedis on the BullMQ Redis (REDIS_URL), keyed by endpoint
 * id, `points = rate_limit`, `duration = 1` s — a fixed one-second window that opens at the
 * first delivery after the previous one closed, so at most `rate_limit` deliveries start in any
 * such window (across window edges up to twice that may start within one second).
 *
 * A refused delivery is not sent back to the same instant as every other refused one (a
 * thundering herd that would re-check the whole backlog every second): rate-limiter-flexible
 * counts refusals too, so the n-th refusal of a window comes back in window ⌈n / rate_limit⌉
 * ahead, at an even step within it — a backlog drains in about the order it arrived, each
 * delivery checked about once (a few more when windows drift or new deliveries cut in). The
 * limiter alone decides who goes; this spreading only saves work and evens the flow out.
 */
export class RedisEndpointRateLimiter implements EndpointRateLimiter {
  private readonly redis: Redis;
  /** One limiter per distinct rate_limit (points is per instance); all share the same keys. */
  private readonly limiters = new Map<number, RateLimiterRedis>();
  private lastWarning = 0;

  constructor(
    redisUrl: string,
    private readonly logger: RateLimiterLogger = console,
  ) {
    // Its own connection, failing fast while Redis is away (BullMQ's worker connection waits
    // forever by design, which would park the job inside the limiter instead of deciding).
    // Nothing to flush on close: do not keep a socket that never connected for ioredis's 2 s.
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, disconnectTimeout: 200 });
    this.redis.on('error', errorListener(logger, 'Redis (webhook rate limits)'));
  }

  async admit(endpointId: string, perSecond: number): Promise<Admission> {
    try {
      await this.limiter(perSecond).consume(endpointId);
      return { kind: 'admitted' };
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) {
        // The n-th refusal (0-based) of this window: window ⌊n / rate⌋ after the next one, at
        // its (n mod rate)-th of `rate` even steps.
        const n = Math.max(0, refusal.consumedPoints - perSecond - 1);
        const offsetMs = Math.floor(n / perSecond) * 1000 + Math.floor(((n % perSecond) * 1000) / perSecond);
        return { kind: 'held', atMs: Date.now() + Math.max(0, refusal.msBeforeNext) + offsetMs };
      }
      // Redis could not answer. Fail closed: hold the delivery for a moment (not an attempt,
      // nothing recorded) rather than send it unthrottled. The limit is the receiver's own
      // protection, and the moments Redis fails are the ones that end in a burst (backlog
      // draining after an outage); holding costs only latency. The same Redis carries the
      // delivery queue, so while it is away deliveries stall anyway.
      this.warnOnce(`[labflow] webhook rate limiter unavailable (Redis?), holding rate-limited deliveries: ${message(refusal)}`);
      return { kind: 'held', atMs: Date.now() + LIMITER_UNAVAILABLE_HOLD_MS };
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private limiter(points: number): RateLimiterRedis {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: RATE_LIMIT_KEY_PREFIX, points, duration: 1 });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }

  /** At most one warning a minute, so an outage does not flood the log. */
  private warnOnce(text: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    this.logger.warn(text);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
