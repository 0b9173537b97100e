import { RateLimiterRes } from 'rate-limiter-flexible';
import { type ConsumeBlock, LeasedBudgets, leaseBlockOf, type Taken } from '../../src/rate-limits/leased-budgets';

/**
 * Large key budgets are leased in blocks (src/rate-limits/leased-budgets.ts, docs/rate-limits.md):
 * here several "replicas" (LeasedBudgets) share one fake Redis count that behaves as
 * rate-limiter-flexible's consume does (an INCRBY that opens a fixed window), on a fake clock.
 */

/** One shared count with a fixed window, as the Redis key of a budget. */
class FakeStore {
  consumed = 0;
  windowEndsAt = 0;
  commands: number[] = [];
  down = false;

  constructor(
    private readonly clock: { now: number },
    private readonly windowMs: number,
  ) {}

  readonly consume: ConsumeBlock = async (_subject, amount) => {
    this.commands.push(amount);
    if (this.down) return null;
    if (this.clock.now >= this.windowEndsAt) {
      this.consumed = 0;
      this.windowEndsAt = this.clock.now + this.windowMs;
    }
    this.consumed += amount;
    return new RateLimiterRes(0, this.windowEndsAt - this.clock.now, this.consumed, this.consumed === amount);
  };
}

const LIMIT = 1000;
const BLOCK = 10;
const WINDOW_MS = 60_000;

function setup(replicas = 1) {
  const clock = { now: 1_000 };
  const store = new FakeStore(clock, WINDOW_MS);
  const leases = Array.from({ length: replicas }, () => new LeasedBudgets(LIMIT, BLOCK, store.consume, () => clock.now));
  return { clock, store, leases };
}

const admitted = (taken: Taken) => taken !== null && !taken.refused;

describe('which budgets are leased, and in what blocks', () => {
  it('a budget of 100,000 or more per window is leased a thousandth at a time; smaller ones are counted exactly', () => {
    expect(leaseBlockOf(1_200_000)).toBe(1200);
    expect(leaseBlockOf(100_000)).toBe(100);
    expect(leaseBlockOf(99_999)).toBeNull();
    expect(leaseBlockOf(60_000)).toBeNull();
    expect(leaseBlockOf(20)).toBeNull();
  });
});

describe('LeasedBudgets', () => {
  it('one replica asks Redis once per block, and Remaining counts down by one per request, as exact counting would', async () => {
    const { store, leases } = setup();
    const remaining: number[] = [];
    for (let i = 0; i < 25; i += 1) {
      const taken = await leases[0].take('key');
      expect(admitted(taken)).toBe(true);
      remaining.push(taken!.state.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 25 }, (_, i) => LIMIT - 1 - i));
    expect(store.commands).toEqual([BLOCK, BLOCK, BLOCK]);
    // Until the block is used up, a request needs no Redis at all.
    expect(leases[0].takeNow('key', false)).toMatchObject({ refused: false, state: { remaining: LIMIT - 26 } });
    expect(store.commands).toHaveLength(3);
  });

  it('requests waiting together ask for one lease of as many points as they are, each keeping its own place', async () => {
    const { store, leases } = setup();
    const burst = await Promise.all(Array.from({ length: 25 }, () => leases[0].take('key')));
    expect(store.commands).toEqual([25]);
    expect(burst.map((taken) => taken!.state.remaining)).toEqual(Array.from({ length: 25 }, (_, i) => LIMIT - 1 - i));
  });

  it('replicas together never let through more than the budget, and refuse at most (replicas − 1) × (block − 1) early', async () => {
    const { store, leases } = setup(3);
    let through = 0;
    let throughAtFirstRefusal: number | null = null;
    const refusedBy = new Set<number>();
    // Requests spread over the replicas in an uneven order, until every replica refuses.
    for (let i = 0; refusedBy.size < leases.length; i += 1) {
      const replica = (i * 7 + Math.floor(i / 5)) % leases.length;
      const taken = await leases[replica].take('key');
      if (admitted(taken)) {
        through += 1;
      } else {
        expect(taken).toMatchObject({ refused: true, state: { limit: LIMIT, remaining: 0 } });
        refusedBy.add(replica);
        throughAtFirstRefusal ??= through;
      }
    }
    expect(through).toBe(LIMIT);
    expect(throughAtFirstRefusal).toBeGreaterThanOrEqual(LIMIT - (leases.length - 1) * (BLOCK - 1));
    // A replica whose budget is spent refuses without asking Redis again until the window closes.
    const commands = store.commands.length;
    for (const lease of leases) expect(lease.takeNow('key', false)).toMatchObject({ refused: true });
    expect(store.commands).toHaveLength(commands);
  });

  it('a lease is not used after its window: the next request opens a new window in Redis', async () => {
    const { clock, store, leases } = setup();
    await leases[0].take('key');
    clock.now += WINDOW_MS;
    expect(leases[0].takeNow('key', false)).toBeUndefined();
    const taken = await leases[0].take('key');
    expect(taken).toMatchObject({ refused: false, state: { remaining: LIMIT - 1, resetMs: WINDOW_MS } });
    expect(store.commands).toEqual([BLOCK, BLOCK]);
  });

  it('Redis not answering lets the waiting requests pass (null) and the next request asks again', async () => {
    const { store, leases } = setup();
    store.down = true;
    expect(await Promise.all([leases[0].take('key'), leases[0].take('key')])).toEqual([null, null]);
    store.down = false;
    expect(admitted(await leases[0].take('key'))).toBe(true);
    expect(store.commands).toEqual([BLOCK, BLOCK]);
  });

  it('answers without Redis for a key that must have been accepted only once it was', async () => {
    const { leases } = setup();
    await leases[0].take('key');
    expect(leases[0].takeNow('key', true)).toBeUndefined();
    leases[0].settle('key', false);
    expect(leases[0].takeNow('key', true)).toMatchObject({ refused: false });
    leases[0].settle('key', true);
    expect(leases[0].takeNow('key', true)).toBeUndefined();
  });
});
