import { Inject, Injectable, Logger } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { hl7Metrics } from './hl7-metrics';
import { HL7_ORDERS, type Hl7Orders } from './hl7-orders';
import { Hl7Repository, type ReceivedMessage } from './hl7.repository';
import { decodeInbound } from './inbound-message';
import { type LabFactOf, type MatchKeys, matchKeysOf } from './lab-facts';
import { readReportedStatuses } from './lab-report';

/** A stored message (`received`) to hand to its order, with what the listener read of it for that (or the hand-off, from its body). */
export interface PendingMessage {
  id: string;
  labAccountId: string;
  peerFacility: string;
  keys: MatchKeys;
  /** Its order (null: held) when matched and recorded already, by the hand-off's claim; absent: not matched yet. */
  matched?: string | null;
}
/**
 * Orders one pass hands over at most: a signal each, so what bounds a pass's time (within the
 * claim's lease) is its orders, not its messages.
 */
const ORDERS_PER_PASS = 200;
/**
 * Waiting messages a pass reads (matched in a few queries, whatever the number): more than its
 * orders, so that an order with several messages waiting gets them all in one signal (the
 * Temporal server's work is per signal, not per message).
 */
const READ_PER_PASS = 1000;
/** Rows a sweep takes at most. */
const SWEEP_LIMIT = 1000;
/** Orders whose workflows are signalled at once (each signal waits on Temporal, not on this CPU); each order's messages go one after another, in arrival order. */
const ORDERS_AT_ONCE = 32;

/**
 * The half of taking a lab's message that comes after its ACK (Hl7InboundService stores it and
 * ACKs): matching it to its order by placer number (ORC-2/OBR-2, labflow's order id) or the lab's
 * filler number seen before, holding it for review when it matches none, and handing its fact to
 * the order's workflow. Messages arrive by an in-process hand-off from the listener (worker role
 * `hl7`), or are claimed from the table by `startHandingOff` in a process of their own (role
 * `hl7-handoff`, beside listeners of role `hl7-listener`, so the signals do not take the
 * listener's CPU); `sweep` hands
 * over again what is still `received` after a while (a listener stopped between the ACK and the
 * signal, a signal that failed), so nothing stored is lost. A message handed over twice (by two
 * sweeps, or a signal whose `processed` mark was lost) is taken once: the order workflow
 * de-duplicates lab updates by message id.
 */
@Injectable()
export class Hl7InboundDelivery {
  private readonly logger = new Logger('Hl7InboundDelivery');
  private readonly queue: PendingMessage[] = [];
  /** Ids queued or being delivered in this process: a repeat or a sweep does not queue them again. */
  private readonly pending = new Set<string>();
  private draining: Promise<void> | null = null;

  /** How long a claim holds a message before another hand-off or sweep may take it again (HL7_REDELIVER_AFTER). */
  private readonly leaseMs: number;

  constructor(
    private readonly repository: Hl7Repository,
    private readonly cipher: PhiCipher,
    @Inject(HL7_ORDERS) private readonly orders: Hl7Orders,
    @Inject(LABFLOW_CONFIG) config: LabflowConfig,
  ) {
    this.leaseMs = config.hl7.redeliverAfterMs;
  }

  /** Hands stored messages over, in order, without waiting (the listener's ACK went out already). */
  enqueue(messages: readonly PendingMessage[]): void {
    for (const message of messages) {
      if (this.pending.has(message.id)) continue;
      this.pending.add(message.id);
      this.queue.push(message);
    }
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  /** Resolves once everything queued so far has been handed over (or failed, left for the sweep). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /**
   * Claims messages still `received` and untouched for `olderThanMs` and hands them over; the
   * number claimed. The listener's worker runs it every HL7_REDELIVER_AFTER, and once at start.
   */
  async sweep(olderThanMs: number): Promise<number> {
    // A pass takes ORDERS_PER_PASS orders: more passes while more wait, to SWEEP_LIMIT.
    let claimed = 0;
    for (;;) {
      const pass = await this.handOverWaiting(olderThanMs, SWEEP_LIMIT - claimed, false);
      claimed += pass.claimed;
      if (!pass.more || pass.claimed === 0 || claimed >= SWEEP_LIMIT) return claimed;
    }
  }

  /** Runs `sweep` every `intervalMs` (first at once); the returned function stops it. */
  startSweeping(intervalMs: number): () => Promise<void> {
    let running: Promise<unknown> = Promise.resolve();
    const pass = () => {
      running = this.sweep(intervalMs).catch((error: unknown) => this.logger.warn(`hl7 redelivery sweep failed: ${(error as Error).message}`));
    };
    pass();
    const timer = setInterval(pass, intervalMs);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await running;
    };
  }

  /**
   * Worker role `hl7-handoff`: claims what listeners of role `hl7-listener` stored (they hand
   * nothing over themselves) and hands it over, a pass at a time; looks again at once when a
   * pass left messages waiting, else after `pollMs`. A claim older than `leaseMs` (its hand-off stopped) is taken
   * again. The returned function stops it once the batch in hand is handed over.
   */
  startHandingOff(pollMs: number, leaseMs: number): () => Promise<void> {
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let wake: (() => void) | null = null;
    const loop = async () => {
      while (!stopped) {
        let more = false;
        try {
          more = (await this.handOverWaiting(leaseMs, READ_PER_PASS, true)).more;
          await this.idle();
        } catch (error) {
          this.logger.warn(`hl7 hand-off pass failed: ${(error as Error).message}`);
        }
        if (!more && !stopped) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, pollMs);
          });
        }
      }
    };
    const running = loop();
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      (wake as (() => void) | null)?.();
      await running;
    };
  }

  /**
   * One pass of the hand-off or the sweep: reads up to `limit` messages waiting (`fresh` false:
   * only those untouched for `leaseMs`), matches them, claims those that go to the first
   * ORDERS_PER_PASS orders (in arrival order; each row updated once before its signal; a row
   * another hand-off claimed first is left to it) and queues those claimed. `claimed`: how many;
   * `more`: messages were left waiting (read to `limit`, or past the orders). A row whose body
   * cannot be read is claimed undecided, so it is looked at again only after the lease.
   */
  private async handOverWaiting(leaseMs: number, limit: number, fresh: boolean): Promise<{ claimed: number; more: boolean }> {
    const rows = await this.repository.waitingForHandOver(leaseMs, limit, fresh);
    const waiting = rows.filter((row) => !this.pending.has(row.id));
    const readable = new Map(waiting.flatMap((row) => this.read(row)).map((message) => [message.id, message]));
    const found = await this.match([...readable.values()]);
    const taken = takeOrders(waiting, (row) => found.get(row.id) ?? null);
    const ours = await this.repository.claimForHandOver(
      leaseMs,
      taken.map(({ id }) => (readable.has(id) ? { id, orderId: found.get(id) ?? null } : { id })),
    );
    const read = taken.flatMap((row) => readable.get(row.id) ?? []);
    this.enqueue(read.filter((message) => ours.has(message.id)).map((message) => ({ ...message, matched: found.get(message.id) ?? null })));
    return { claimed: ours.size, more: rows.length === limit || taken.length < waiting.length };
  }

  /**
   * Matches `messages` to their orders and claims them with what was found; the matches and the
   * ids this claim took (a row another hand-off or a sweep took first is left out).
   */
  private async matchAndClaim(leaseMs: number, messages: readonly PendingMessage[]): Promise<{ found: Map<string, string>; ours: Set<string> }> {
    const found = await this.match(messages);
    const rows = messages.map((message) => ({ id: message.id, orderId: found.get(message.id) ?? null }));
    return { found, ours: await this.repository.claimForHandOver(leaseMs, rows) };
  }

  /** A claimed row as a message to hand over: its keys as the listener stored them, else read from its sealed body (a row stored without them, a lab's cancellation and its words). */
  private read(row: ReceivedMessage): PendingMessage[] {
    const pending = { id: row.id, labAccountId: row.labAccountId ?? '', peerFacility: row.peerFacility };
    if (row.bodyEnc === null) {
      const fact = row.labFact ? { low: row.labFact, detail: null, correction: row.labFactCorrection } : null;
      return [{ ...pending, keys: { placers: row.placerNumbers ?? [], fillers: row.fillerNumbers ?? [], fact } }];
    }
    try {
      const decoded = decodeInbound(Buffer.from(this.cipher.decrypt(row.bodyEnc), 'utf8'));
      return [{ ...pending, keys: matchKeysOf(readReportedStatuses(decoded.message)) }];
    } catch (error) {
      this.logger.warn(`hl7 message ${row.id}: stored body unreadable (${(error as Error).message}); left received`);
      return [];
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // An order's messages queued together go in one batch (one signal); a batch goes to ORDERS_PER_PASS orders at most.
      const batch = this.queue.splice(
        0,
        takeOrders(this.queue, (message) => (message.matched === undefined ? (message.keys.placers[0] ?? null) : message.matched)).length,
      );
      try {
        await this.deliver(batch);
      } catch (error) {
        this.logger.warn(`hl7: ${batch.length} stored messages not handed over yet (${(error as Error).message}); the sweep retries`);
      } finally {
        for (const message of batch) this.pending.delete(message.id);
      }
    }
  }

  /**
   * Hands each message of a batch to its order. Those the listener queued in this process (not
   * matched yet) are matched (a few queries for all of them) and claimed with their orders first,
   * as a hand-off claims what it read: one taken meanwhile by a sweep or another hand-off is theirs.
   */
  private async deliver(pending: readonly PendingMessage[]): Promise<void> {
    const undecided = pending.filter((message) => message.matched === undefined);
    const { found, ours } = await this.matchAndClaim(this.leaseMs, undecided);
    const batch = pending.filter((message) => message.matched !== undefined || ours.has(message.id));
    const matched = new Map<string, string>();
    for (const message of batch) {
      const orderId = message.matched === undefined ? found.get(message.id) : message.matched;
      if (orderId) matched.set(message.id, orderId);
      else hl7Metrics.held();
    }

    const byOrder = new Map<string, Array<{ id: string; fact: LabFactOf | null }>>();
    for (const message of batch) {
      const orderId = matched.get(message.id);
      if (!orderId) continue;
      const list = byOrder.get(orderId) ?? [];
      list.push({ id: message.id, fact: message.keys.fact });
      byOrder.set(orderId, list);
    }
    const processed: string[] = [];
    const orders = [...byOrder.entries()];
    const next = async (): Promise<void> => {
      for (let entry = orders.shift(); entry; entry = orders.shift()) {
        const [orderId, messages] = entry;
        const reports = messages.flatMap(({ id, fact }) =>
          fact ? [{ messageId: id, fact: fact.low, statusDetail: fact.detail, correction: fact.correction ?? false }] : [],
        );
        // The order read once for all its messages of the batch, each signalled in turn.
        const { handed, error } = reports.length ? await this.orders.reportEach(orderId, reports) : { handed: [] };
        if (reports.length) hl7Metrics.handedTogether(reports.length);
        const failed = error === undefined ? undefined : reports[handed.length].messageId;
        for (const { id } of messages) {
          if (id === failed) {
            // This order's later messages wait with it: the sweep hands them over in order.
            this.logger.warn(`hl7 message ${id}: not handed to order ${orderId} yet (${(error as Error).message}); the sweep retries`);
            break;
          }
          processed.push(id);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(ORDERS_AT_ONCE, orders.length) }, next));
    await this.repository.markProcessed(processed);
  }

  /** Each message's order: the first placer number that is an order at its lab, else a filler number seen before (in this batch too). */
  private async match(batch: readonly PendingMessage[]): Promise<Map<string, string>> {
    const placersByLab = new Map<string, Set<string>>();
    for (const message of batch) {
      if (message.keys.placers.length > 0) {
        const set = placersByLab.get(message.labAccountId) ?? new Set();
        for (const placer of message.keys.placers) set.add(placer);
        placersByLab.set(message.labAccountId, set);
      }
    }
    const ordersOfLab = new Map<string, Set<string>>();
    for (const [lab, placers] of placersByLab) ordersOfLab.set(lab, await this.repository.ordersAt([...placers], lab));
    // The lab's numbers are looked up only for messages no placer number matched (the others need none).
    const fillersByFacility = new Map<string, Set<string>>();
    for (const message of batch) {
      if (message.keys.fillers.length === 0 || message.keys.placers.some((placer) => ordersOfLab.get(message.labAccountId)?.has(placer))) continue;
      const set = fillersByFacility.get(message.peerFacility) ?? new Set();
      for (const filler of message.keys.fillers) set.add(filler);
      fillersByFacility.set(message.peerFacility, set);
    }
    const fillers = new Map<string, Map<string, string>>();
    for (const [facility, numbers] of fillersByFacility) fillers.set(facility, await this.repository.ordersOfFillers(facility, [...numbers]));

    const matched = new Map<string, string>();
    for (const message of batch) {
      const known = ordersOfLab.get(message.labAccountId);
      const byPlacer = message.keys.placers.find((placer) => known?.has(placer));
      const ofFacility = fillers.get(message.peerFacility) ?? new Map<string, string>();
      const orderId = byPlacer ?? message.keys.fillers.map((filler) => ofFacility.get(filler)).find(Boolean);
      if (!orderId) continue;
      matched.set(message.id, orderId);
      // A later message of this batch that carries only the lab's number finds the order too.
      for (const filler of message.keys.fillers) if (!ofFacility.has(filler)) ofFacility.set(filler, orderId);
      fillers.set(message.peerFacility, ofFacility);
    }
    return matched;
  }
}

/**
 * The longest start of `items` (in arrival order, so each order's messages stay in order) whose
 * items go to at most ORDERS_PER_PASS orders (`orderOf` null: no order, e.g. held), and to
 * READ_PER_PASS items at most.
 */
function takeOrders<T>(items: readonly T[], orderOf: (item: T) => string | null): T[] {
  const orders = new Set<string>();
  let end = 0;
  for (; end < Math.min(items.length, READ_PER_PASS); end += 1) {
    const order = orderOf(items[end]);
    if (order === null || orders.has(order)) continue;
    if (orders.size === ORDERS_PER_PASS) break;
    orders.add(order);
  }
  return items.slice(0, end);
}
