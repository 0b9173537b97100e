import { Counter, Gauge, Histogram } from 'prom-client';
import { processMetrics } from '../common/metrics/registry';

const messages = new Counter({
  name: 'labflow_hl7_messages_total',
  help: 'HL7 messages exchanged with labs, by direction (in/out), message type (MSH-9) and the ACK code that answered them (none: no answer came).',
  labelNames: ['direction', 'type', 'ack'] as const,
  registers: [processMetrics],
});
const held = new Counter({
  name: 'labflow_hl7_unmatched_messages_total',
  help: 'HL7 messages from labs that matched no order and were held for review.',
  registers: [processMetrics],
});

const storeRows = new Histogram({
  name: 'labflow_hl7_store_batch_rows',
  help: 'Inbound messages the listener stored in one INSERT and commit (group commit: those that arrived while the last one was in flight).',
  buckets: [1, 2, 4, 8, 16, 32, 64],
  registers: [processMetrics],
});
const storeWait = new Histogram({
  name: 'labflow_hl7_store_wait_seconds',
  help: 'How long an inbound message waited, checked and sealed, for its INSERT to be sent (an INSERT in flight before it).',
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
  registers: [processMetrics],
});
const storeCommit = new Histogram({
  name: 'labflow_hl7_store_commit_seconds',
  help: "The listener's INSERT of a batch of inbound messages, from sent to committed (what each of its ACKs waits for).",
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
  registers: [processMetrics],
});

const handedTogether = new Histogram({
  name: 'labflow_hl7_handoff_order_messages',
  help: "Messages of one order the hand-off handed over together in one pass (one labUpdates signal when more than one): the Temporal server's work is per signal, not per message.",
  buckets: [1, 2, 4, 8, 16, 32, 64, 128],
  registers: [processMetrics],
});

type WaitingSource = () => Promise<{ held: number; refusedOrders: number }>;
/** Where the waiting counts come from: the Hl7Repository of each running app of this process (the latest asked). */
const waitingSources: WaitingSource[] = [];
new Gauge({
  name: 'labflow_hl7_waiting_messages',
  help: 'HL7 work waiting for ops: messages from labs held for review (matched no order), and orders whose latest order message the lab refused (AE/AR) and that wait for a resend.',
  labelNames: ['kind'] as const,
  registers: [processMetrics],
  async collect() {
    const source = waitingSources.at(-1);
    if (!source) return;
    const counts = await source();
    this.set({ kind: 'held' }, counts.held);
    this.set({ kind: 'refused_order' }, counts.refusedOrders);
  },
});

export const hl7Metrics = {
  /** Reports the waiting counts on each scrape from `source`. */
  watchWaiting(source: WaitingSource): () => void {
    waitingSources.push(source);
    return () => {
      const at = waitingSources.indexOf(source);
      if (at !== -1) waitingSources.splice(at, 1);
    };
  },
  message(direction: 'in' | 'out', type: string, ack: string | null): void {
    messages.inc({ direction, type: type || 'unknown', ack: ack ?? 'none' });
  },
  held(): void {
    held.inc();
  },
  /** One INSERT of the listener's group commit: its rows, each row's wait before it was sent, and the statement's time to its commit (seconds). */
  stored(waits: readonly number[], commitSeconds: number): void {
    storeRows.observe(waits.length);
    for (const wait of waits) storeWait.observe(wait);
    storeCommit.observe(commitSeconds);
  },
  /** An order's messages handed over together in one pass of the hand-off. */
  handedTogether(messages: number): void {
    handedTogether.observe(messages);
  },
};
