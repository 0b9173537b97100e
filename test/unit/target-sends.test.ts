import { type SendOutcome, STALLED_MS, TargetSends } from '../../src/events/target-sends';

/**
 * A worker's sends shared between targets (webhook endpoints, RabbitMQ pipelines): one target
 * that does not answer must not hold them all.
 */

type Acquired = Awaited<ReturnType<TargetSends['acquire']>>;

function released(acquired: Acquired): (outcome: SendOutcome) => void {
  if (typeof acquired !== 'function') throw new Error(`refused: ${acquired.refused}`);
  return acquired;
}

/** Lets pending promise callbacks run (an acquire resolves a few microtasks after its slot is handed over). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('a target holds at most half the sends; its next attempt waits for one of its own, not for another target', async () => {
  const sends = new TargetSends(4);
  const first = released(await sends.acquire('a'));
  released(await sends.acquire('a'));
  let third: Acquired | null = null;
  void sends.acquire('a').then((acquired) => (third = acquired));
  await settle();
  expect(third).toBeNull();
  // Another target is not kept waiting by a's.
  expect(typeof (await sends.acquire('b'))).toBe('function');
  first('answered');
  await settle();
  expect(typeof third).toBe('function');
});

test('a target whose last attempt got no answer keeps one send in flight; its first answer ends that', async () => {
  const sends = new TargetSends(10);
  released(await sends.acquire('broker'))('unanswered');
  const probe = released(await sends.acquire('broker'));
  expect(await sends.acquire('broker')).toEqual({ refused: expect.stringMatching(/^Not sent: the last attempt to this target got no answer/) });
  expect(typeof (await sends.acquire('endpoint'))).toBe('function');
  probe('answered');
  expect(typeof (await sends.acquire('broker'))).toBe('function');
  expect(typeof (await sends.acquire('broker'))).toBe('function');
});

test('an attempt not sent (its lease ran out) says nothing of its target', async () => {
  const sends = new TargetSends(10);
  released(await sends.acquire('endpoint'))('unanswered');
  released(await sends.acquire('endpoint'))('not_sent');
  const next = released(await sends.acquire('endpoint'));
  expect(await sends.acquire('endpoint')).toEqual({ refused: expect.any(String) });
  next('answered');
});

test('a target with every slot taken and nothing finished for STALLED_MS is stalled: its waiting and new attempts are not sent', async () => {
  const sends = new TargetSends(4);
  released(await sends.acquire('hanging'));
  released(await sends.acquire('hanging'));
  const waiting = sends.acquire('hanging');
  jest.advanceTimersByTime(STALLED_MS);
  expect(await waiting).toEqual({ refused: expect.stringMatching(/^Not sent: 2 attempts to this target were in flight and none finished for 5 s/) });
  expect(await sends.acquire('hanging')).toEqual({
    refused: expect.stringMatching(/^Not sent: 2 attempts to this target are in flight and none has finished for 5 s/),
  });
  expect(typeof (await sends.acquire('healthy'))).toBe('function');
});

test('a waiting attempt of a target that keeps finishing sends waits on, however long', async () => {
  const sends = new TargetSends(2);
  let inFlight = released(await sends.acquire('slow'));
  let waiting: Acquired | null = null;
  void sends.acquire('slow').then((acquired) => (waiting = acquired));
  // Each STALLED_MS - 1 a send finishes and hands its slot to the next; the last waiter is served.
  for (let i = 0; i < 3; i++) {
    jest.advanceTimersByTime(STALLED_MS - 1);
    inFlight('answered');
    await settle();
    expect(typeof waiting).toBe('function');
    inFlight = released(waiting as unknown as Acquired);
    waiting = null;
    void sends.acquire('slow').then((acquired) => (waiting = acquired));
  }
  inFlight('answered');
});
