import type { RateLimiterRes } from 'rate-limiter-flexible';

/**
 * A request budget of at least this many points per window is leased (docs/rate-limits.md,
 * "Large budgets: leased blocks"): 100,000 a minute lets one key send 1,667 requests a second,
 * where one Redis command per request costs the API a share of a core; a smaller budget bounds
 * that cost itself, and is counted exactly.
 */
const LEASE_MIN_POINTS = 100_000;
/** A lease is a thousandth of the budget: at least 100 requests per Redis command, 0.1% of the budget per replica. */
const BLOCKS_PER_BUDGET = 1000;
/** Leases kept per family before expired ones are first swept, and at most. */
const SWEEP_AT = 10_000;
const MAX_LEASES = 100_000;

/** How many points a process leases at once from a budget of `points`; null: not leased (counted exactly). */
export function leaseBlockOf(points: number): number | null {
  return points >= LEASE_MIN_POINTS ? Math.floor(points / BLOCKS_PER_BUDGET) : null;
}

/** One request's part of a budget: let through or refused, and the budget as its headers show it. Null: Redis did not answer (fail open). */
/** A request budget as the rate-limit headers tell it (exact, or leased). */
export interface BudgetState {
  limit: number;
  remaining: number;
  /** Until the window closes (and the budget is whole again). */
  resetMs: number;
}

export type Taken = { refused: boolean; state: BudgetState } | null;

/**
 * Spends `amount` points of `subject`'s budget in Redis in one command (rate-limiter-flexible's
 * consume: an atomic INCRBY that opens the window), for `waiting` requests; null: no answer.
 */
export type ConsumeBlock = (subject: string, amount: number, waiting: number) => Promise<RateLimiterRes | null>;

/** This process's lease on one subject's budget (a key's) in the current window. */
interface Lease {
  /** Points leased from Redis and not yet spent here. */
  points: number;
  /** Points taken from the budget in this window, all replicas together, as Redis counted them at this process's latest lease (at most the limit). */
  counted: number;
  /** When the window closes, on this process's monotonic clock: when the lease was asked for plus Redis's TTL, never after Redis's own window. */
  endsAt: number;
  /** Redis had fewer points left than asked: the budget is spent until `endsAt`. */
  spent: boolean;
  /** A request with this key was answered other than as a refused attempt here (the key guard accepted it). */
  trusted: boolean;
  /** Requests waiting for the next lease, in arrival order. */
  waiting: Array<(taken: Taken) => void>;
  /** A lease is being asked for (one at a time per subject). */
  asking: boolean;
}

/**
 * A large request budget (one family's, per key) spent in leased blocks: the process takes a block
 * of points from the shared Redis count in one command and lets requests through from it without
 * Redis until it is used up or the window closes; requests that find it empty wait for the next
 * block (one request to Redis at a time per key, for max(block, waiting) points).
 *
 * Redis grants only what is left of the budget (a block that crosses the limit is granted in
 * part, and the rest of the window is refused here without Redis), and a block is used only
 * within the window it was granted in, so all replicas together never let through more than the
 * budget. What leasing changes: a replica may refuse while others still hold points they leased,
 * at most (replicas − 1) × (block − 1) requests early.
 *
 * Written here because rate-limiter-flexible (which does the Redis side) has no such mode: its
 * `insuranceLimiter` counts in memory only while Redis fails (per process, not shared),
 * `inMemoryBlockOnConsumed` only spares Redis once a key is over its budget, and
 * RateLimiterQueue and BurstyRateLimiter still spend each request in the store.
 */
export class LeasedBudgets {
  private readonly leases = new Map<string, Lease>();
  private sweepAt = SWEEP_AT;

  constructor(
    private readonly limit: number,
    private readonly block: number,
    private readonly consume: ConsumeBlock,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * A point from this process's lease, or a refusal when the budget is spent, without Redis;
   * undefined when the lease cannot say (none, used up, its window over, or not `trusted` when
   * that is asked).
   */
  takeNow(subject: string, trustedOnly: boolean): Taken | undefined {
    const lease = this.leases.get(subject);
    if (!lease || (trustedOnly && !lease.trusted)) return undefined;
    return this.takeFrom(lease, this.now());
  }

  /** A point from the lease, or from the next lease asked of Redis. */
  take(subject: string): Promise<Taken> {
    const lease = this.leaseOf(subject);
    const taken = lease.waiting.length === 0 ? this.takeFrom(lease, this.now()) : undefined;
    if (taken !== undefined) return Promise.resolve(taken);
    return new Promise<Taken>((resolve) => {
      lease.waiting.push(resolve);
      if (!lease.asking) this.ask(subject, lease);
    });
  }

  /** Whether requests with this key were answered as refused attempts (a wrong or revoked key) or not. */
  settle(subject: string, refusedAttempt: boolean): void {
    const lease = this.leases.get(subject);
    if (lease) lease.trusted = !refusedAttempt;
  }

  private takeFrom(lease: Lease, now: number): Taken | undefined {
    if (now >= lease.endsAt) return undefined;
    const resetMs = lease.endsAt - now;
    if (lease.points > 0) {
      lease.points -= 1;
      // The budget as Redis counted it at the latest lease, less what this process has let through since.
      return { refused: false, state: { limit: this.limit, remaining: this.limit - lease.counted + lease.points, resetMs } };
    }
    if (lease.spent) return { refused: true, state: { limit: this.limit, remaining: 0, resetMs } };
    return undefined;
  }

  /** After this turn of the event loop (so the requests of the turn ask together), one lease for those waiting. */
  private ask(subject: string, lease: Lease): void {
    lease.asking = true;
    setImmediate(() => void this.lease(subject, lease));
  }

  private async lease(subject: string, lease: Lease): Promise<void> {
    const amount = Math.max(this.block, lease.waiting.length);
    const askedAt = this.now();
    const res = await this.consume(subject, amount, lease.waiting.length);
    lease.asking = false;
    const waiting = lease.waiting.splice(0);
    if (!res) {
      for (const resolve of waiting) resolve(null);
      return;
    }
    const before = res.consumedPoints - amount;
    const granted = Math.max(0, Math.min(amount, this.limit - before));
    // Whatever was left of an earlier window's lease is gone with its window.
    lease.points = granted;
    lease.counted = Math.min(res.consumedPoints, this.limit);
    lease.endsAt = askedAt + res.msBeforeNext;
    lease.spent = granted < amount;
    const now = this.now();
    for (const resolve of waiting) {
      const taken = this.takeFrom(lease, now);
      if (taken === undefined) lease.waiting.push(resolve);
      else resolve(taken);
    }
    // More arrived while Redis answered than the block held (or the window closed meanwhile): ask again.
    if (lease.waiting.length > 0) this.ask(subject, lease);
  }

  private leaseOf(subject: string): Lease {
    const existing = this.leases.get(subject);
    if (existing) return existing;
    if (this.leases.size >= this.sweepAt) this.sweep();
    const lease: Lease = { points: 0, counted: 0, endsAt: 0, spent: false, trusted: false, waiting: [], asking: false };
    this.leases.set(subject, lease);
    return lease;
  }

  /**
   * Forgets leases whose window is over; at MAX_LEASES (a flood of distinct keys), the oldest idle
   * ones too, down to half: their unspent points are lost, which can only refuse early, never let
   * more through. Sweeps again at twice what is left, so sweeping costs O(1) per lease.
   */
  private sweep(): void {
    const now = this.now();
    const idle = (lease: Lease) => !lease.asking && lease.waiting.length === 0;
    for (const [subject, lease] of this.leases) if (idle(lease) && now >= lease.endsAt) this.leases.delete(subject);
    if (this.leases.size >= MAX_LEASES) {
      for (const [subject, lease] of this.leases) {
        if (this.leases.size <= MAX_LEASES / 2) break;
        if (idle(lease)) this.leases.delete(subject);
      }
    }
    this.sweepAt = Math.min(MAX_LEASES, Math.max(SWEEP_AT, this.leases.size * 2));
  }
}
