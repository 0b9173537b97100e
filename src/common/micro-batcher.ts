/**
 * Group commit: callers submit one item each (the claim of a delivery, the outcome of an attempt
 * in src/events/delivery-batches.ts; the audit row of a PHI read in phi-access-log.ts) and wait
 * for their own answer; items submitted while `maxInFlight` statements are running wait and go
 * together in the next one, up to `maxBatch`.
 *
 * Why: at 50 concurrent deliveries, one statement (and one commit, one WAL flush) per claim and
 * per outcome was most of the worker's time (bench:webhooks); an audit INSERT per order read was
 * most of Postgres's time per read (bench:reads). Grouped, the statements keep the
 * same per-delivery meaning — each caller still gets its answer only after its own rows were
 * committed — but a commit carries tens of deliveries. When idle, an item goes alone at the next
 * turn of the event loop, so a lone delivery is not delayed.
 *
 * Items with the same key never share a statement (they wait for the next one): two rows of a
 * batch would otherwise race for the same delivery inside one statement.
 *
 * A failed statement of several items is retried item by item, so one item Postgres refuses
 * fails alone rather than taking its batch mates with it.
 *
 * `lingerMs` is for items nobody waits on before answering (the mark of a confirmed workflow
 * start, order-workflows.ts): an item waits up to that long for others to join it, so that
 * items arriving a few milliseconds apart, which would each go alone, share a statement.
 */
export interface MicroBatcherOptions<I> {
  /** Items per statement at most. */
  maxBatch: number;
  /** Statements running at once at most (each holds a pool connection). */
  maxInFlight: number;
  /** Items with equal keys go to different statements (none given: any items may share one). */
  key?: (item: I) => string;
  /** How long a statement waits for items to join before it goes (none given: the next turn of the event loop). */
  lingerMs?: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export class MicroBatcher<I, O> {
  private queue: Array<Waiting<I, O>> = [];
  private inFlight = 0;
  private scheduled = false;

  /** `run` answers one output per item, in input order. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: MicroBatcherOptions<I>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      this.dispatch();
    };
    // Items submitted in the same turn of the event loop (jobs BullMQ handed over together) join;
    // with lingerMs, those submitted within it.
    if (this.options.lingerMs) setTimeout(go, this.options.lingerMs);
    else setImmediate(go);
  }

  private dispatch(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.execute(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  /** Up to maxBatch waiting items with distinct keys, oldest first; the rest keep their places. */
  private take(): Array<Waiting<I, O>> {
    const keyOf = this.options.key;
    if (!keyOf) return this.queue.splice(0, this.options.maxBatch);
    const batch: Array<Waiting<I, O>> = [];
    const keys = new Set<string>();
    const rest: Array<Waiting<I, O>> = [];
    for (const waiting of this.queue) {
      const key = keyOf(waiting.item);
      if (batch.length < this.options.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(waiting);
      } else {
        rest.push(waiting);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async execute(batch: Array<Waiting<I, O>>): Promise<void> {
    try {
      const outputs = await this.run(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, index) => waiting.resolve(outputs[index]));
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      await Promise.all(
        batch.map(async (waiting) => {
          try {
            const [output] = await this.run([waiting.item]);
            waiting.resolve(output);
          } catch (single) {
            waiting.reject(single);
          }
        }),
      );
    }
  }
}
