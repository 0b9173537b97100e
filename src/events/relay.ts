import { PgListener } from '../common/pg-listener';
import type { EventsConfig } from '../config/config';
import { deliveryJob, type DeliveryQueue } from './delivery-queue';
import type { ProcessResult } from './delivery.processor';
import { eventMetrics } from './event-metrics';
import type { EventBatchFlusher } from './event-batches';
import type { OutboxRepository, OverduePosition } from './outbox.repository';

export interface RelayOptions {
  logger?: RelayLogger;
  /** Only these teams' events and deliveries (a live set; tests). Default: every team. */
  teams?: ReadonlySet<string>;
  /** Overdue deliveries per lost-job sweep (default SWEEP_BATCH; tests use a small one). */
  sweepBatch?: number;
  /** Turns due event batches (timeseries samples gathered across requests) into outbox events first. */
  batches?: EventBatchFlusher;
  /** The delivery worker of this process: fresh deliveries go to it directly (see EventRelay). */
  handOff?: DeliveryHandOff;
}

/** The delivery worker of the relay's process, as the relay hands it fresh deliveries. */
export interface DeliveryHandOff {
  /** Claims, sends and records one delivery (DeliveryWorker.deliverNow). */
  deliver(deliveryId: string, traceParent: string | undefined): Promise<ProcessResult>;
  /** Deliveries handed over and not finished at most (the worker's attempts between claim and send). */
  capacity: number;
  /** How long a claim holds a delivery (claimLeaseMs): an attempt younger than that is in flight. */
  leaseMs: number;
}

/** Outbox rows claimed per transaction. */
export const RELAY_BATCH = 500;

/** Overdue deliveries re-enqueued per lost-job sweep. */
export const SWEEP_BATCH = 1000;

export interface RelayLogger {
  warn(message: string): void;
}

/**
 * Moves outbox rows into delivery jobs:
 *
 * 0. write event batches that are due (src/events/event-batches.ts) to the outbox;
 * 1. claim unrelayed events (FOR UPDATE SKIP LOCKED), insert one delivery per matching target
 *    (noted as enqueued) and mark the events relayed — one transaction;
 * 2. after the commit, enqueue BullMQ jobs of up to DELIVERY_BUNDLE new deliveries each; if
 *    Redis refuses them, note them as not enqueued;
 * 3. every pass, pending deliveries without a job — fresh from the fan-out that the outbox
 *    insert itself does (recordEventsCtes), Redis was down at step 2, or a manual retry asked for
 *    an attempt now — are handed straight to the delivery worker of this process when there is
 *    one (`handOff`: no BullMQ job for a first attempt), or else enqueued. A handed delivery that
 *    must wait (a retry, a rate limit) becomes a delayed BullMQ job, and is then marked enqueued;
 *    one whose process died in flight has no job and is handed again once its claim's lease is
 *    over (the claim records the dead attempt `interrupted`);
 * 4. every EVENTS_SWEEP_INTERVAL, re-enqueue pending deliveries overdue by EVENTS_LOST_JOB_GRACE
 *    (their job was lost, e.g. Redis restarted empty) — a no-op for jobs that still exist.
 *
 * A pass first asks, in one statement (OutboxRepository.relayWork), whether batches are due and
 * events wait unrelayed, with step 3's deliveries; steps 0 and 1 run only when there is work for
 * them. It wakes on the outbox trigger's NOTIFY (low latency) and polls every
 * EVENTS_RELAY_POLL_INTERVAL as a fallback (LISTEN connection down, missed notification).
 * Relays in several processes share the work safely.
 */
export class EventRelay {
  private readonly listener: PgListener;
  private stopped = true;
  private wakeRequested = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private lastSweep = 0;
  /** Where the next lost-job sweep goes on (null: from the oldest). */
  private sweepAfter: OverduePosition | null = null;
  private lastWarning = new Map<string, number>();
  /** Deliveries handed to this process's worker and not finished, with their runs. */
  private readonly handed = new Map<string, Promise<void>>();
  /** The last hand-off filled the worker: pass again when one finishes. */
  private handOffFull = false;

  constructor(
    private readonly repo: OutboxRepository,
    private readonly queue: DeliveryQueue,
    private readonly config: EventsConfig,
    databaseUrl: string,
    private readonly options: RelayOptions = {},
  ) {
    this.listener = new PgListener(databaseUrl, {
      subscribe: (client) => this.repo.listen(client),
      onNotification: () => this.poke(),
      // Anything committed while not listening is found by this pass.
      onListening: () => this.poke(),
      onLost: (error) => this.warnOnce('listen', `[labflow] relay: LISTEN failed, polling meanwhile: ${message(error)}`),
    });
  }

  private get logger(): RelayLogger {
    return this.options.logger ?? console;
  }

  private get teams(): string[] | null {
    return this.options.teams ? [...this.options.teams] : null;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lastSweep = Date.now();
    this.listener.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loop;
    await Promise.all(this.handed.values());
    await this.listener.stop();
  }

  /** Asks for a pass now (a NOTIFY arrived, or a caller knows there is work). */
  poke(): void {
    this.wakeRequested = true;
    this.wake?.();
  }

  /**
   * One full pass: returns the number of events relayed. Exposed for tests and the benchmark;
   * the running relay calls it in its loop.
   */
  async pass(): Promise<number> {
    const handOff = this.options.handOff;
    const room = handOff ? handOff.capacity - this.handed.size : 0;
    const work = await this.repo.relayWork(handOff && room > 0 ? { limit: room, leaseMs: handOff.leaseMs, except: [...this.handed.keys()] } : null, this.teams);
    if (handOff) this.handOver(handOff, room, work.fresh);
    else await this.enqueueUnenqueued();
    // Batches flushed now are unrelayed events of this pass.
    let unrelayed = work.unrelayed;
    if (work.batchesDue && (await this.flushBatches()) > 0) unrelayed = true;
    let relayed = 0;
    while (unrelayed) {
      const { events, deliveryIds, traceParents } = await this.repo.claimAndFanOut(RELAY_BATCH, this.teams);
      relayed += events;
      eventMetrics.relayed(events, deliveryIds.length);
      await this.enqueue(deliveryIds, traceParents);
      unrelayed = events === RELAY_BATCH && !this.stopped;
    }
    if (Date.now() - this.lastSweep >= this.config.sweepIntervalMs) {
      this.lastSweep = Date.now();
      await this.sweepLost();
    }
    return relayed;
  }

  /**
   * Re-enqueues pending deliveries overdue by more than the grace (lost jobs), SWEEP_BATCH at a
   * time, oldest first, each sweep going on where the last one stopped and starting over after
   * the newest. Deliveries held back by an endpoint's rate_limit look overdue while their jobs
   * wait in `delayed`; without the paging, more than SWEEP_BATCH of them would hide a lost job
   * behind them until the backlog drained.
   */
  async sweepLost(): Promise<number> {
    const batch = this.options.sweepBatch ?? SWEEP_BATCH;
    const page = await this.repo.overdue(this.config.lostJobGraceMs, batch, this.teams, this.sweepAfter);
    this.sweepAfter = page.length === batch ? page[page.length - 1] : null;
    const ids = page.map((delivery) => delivery.id);
    if (ids.length === 0) return 0;
    try {
      await this.queue.enqueue(ids);
    } catch (error) {
      this.warnOnce('sweep', `[labflow] relay: cannot re-enqueue overdue deliveries (Redis?): ${message(error)}`);
    }
    return ids.length;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.wakeRequested = false;
      try {
        await this.pass();
      } catch (error) {
        this.warnOnce('pass', `[labflow] relay: pass failed, retrying: ${message(error)}`);
      }
      if (this.stopped) break;
      if (this.wakeRequested) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.config.relayPollIntervalMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  /** Due event batches become outbox events, relayed by this same pass: how many were written. */
  private async flushBatches(): Promise<number> {
    if (!this.options.batches) return 0;
    try {
      return await this.options.batches.flushDue(this.teams);
    } catch (error) {
      this.warnOnce('batches', `[labflow] relay: cannot flush event batches, retrying: ${message(error)}`);
      return 0;
    }
  }

  private async enqueueUnenqueued(): Promise<void> {
    for (;;) {
      const ids = await this.repo.unenqueued(1000, this.teams);
      if (ids.length === 0) return;
      try {
        await this.queue.enqueueNow(ids);
      } catch (error) {
        this.warnOnce('enqueue', `[labflow] relay: cannot enqueue deliveries (Redis?): ${message(error)}`);
        return;
      }
      await this.repo.markEnqueued(ids);
      eventMetrics.started(ids.length);
      if (ids.length < 1000) return;
    }
  }

  /** Hands pending deliveries without a job (`rows`, at most `room`) to this process's worker. */
  private handOver(handOff: DeliveryHandOff, room: number, rows: ReadonlyArray<{ id: string; trace_parent: string | null }>): void {
    this.handOffFull = room <= 0 || rows.length === room;
    eventMetrics.started(rows.length);
    for (const row of rows) {
      const run = this.deliverHanded(handOff, row.id, row.trace_parent ?? undefined).finally(() => {
        this.handed.delete(row.id);
        if (this.handOffFull) this.poke();
      });
      this.handed.set(row.id, run);
    }
  }

  private async deliverHanded(handOff: DeliveryHandOff, deliveryId: string, traceParent: string | undefined): Promise<void> {
    try {
      const result = await handOff.deliver(deliveryId, traceParent);
      if (result.kind !== 'later') return;
      // Retries and rate-limit holds wait in BullMQ, as every later attempt does.
      await this.queue.queue.addBulk([deliveryJob(deliveryId, traceParent, result.atMs - Date.now())]);
      await this.repo.markEnqueued([deliveryId]);
    } catch (error) {
      // Pending without a job: handed again when due (or, once enqueued, found by the sweep).
      this.warnOnce('handoff', `[labflow] relay: delivery ${deliveryId} handed to the worker failed, retrying later: ${message(error)}`);
    }
  }

  /** New deliveries, written as enqueued (claimAndFanOut): handed back when Redis refuses them. */
  private async enqueue(deliveryIds: string[], traceParents: ReadonlyMap<string, string>): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.queue.enqueueNew(deliveryIds, traceParents);
    } catch (error) {
      // Committed but not enqueued: step 3 of a later pass enqueues them (or, should this
      // statement fail too, the lost-job sweep).
      this.warnOnce('enqueue', `[labflow] relay: cannot enqueue deliveries (Redis?): ${message(error)}`);
      await this.repo.markUnenqueued(deliveryIds);
    }
  }

  /** At most one warning per kind a minute, so an outage does not flood the log. */
  private warnOnce(kind: string, text: string): void {
    const now = Date.now();
    if (now - (this.lastWarning.get(kind) ?? 0) < 60_000) return;
    this.lastWarning.set(kind, now);
    this.logger.warn(text);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
