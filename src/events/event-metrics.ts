import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { processMetrics } from '../common/metrics/registry';
import type { DeliveryTarget, FinishedAttempt } from './delivery-attempts.types';

/**
 * Counters of the relay and the delivery worker, process-wide (src/common/metrics/registry.ts):
 * shown on the /metrics of the worker process that runs them.
 */
const relayedEvents = new Counter({
  name: 'labflow_outbox_events_relayed_total',
  help: 'Outbox events the relay fanned out into deliveries itself (most events are fanned out by the outbox insert: see labflow_deliveries_created_total).',
  registers: [processMetrics],
});
const createdDeliveries = new Counter({
  name: 'labflow_deliveries_created_total',
  help: 'Deliveries the relay started: fanned out by the outbox insert and first handed to a worker or enqueued by the relay, or fanned out by the relay (one per event and matching webhook endpoint or event destination).',
  registers: [processMetrics],
});
const attempts = new Counter({
  name: 'labflow_delivery_attempts_total',
  help: 'Delivery attempts finished, by target (webhook, rabbitmq) and result (succeeded: a 2xx in time; failed).',
  labelNames: ['target', 'result'] as const,
  registers: [processMetrics],
});
const attemptDuration = new Histogram({
  name: 'labflow_delivery_attempt_duration_seconds',
  help: 'Time one delivery attempt took (the POST or publish), by target.',
  labelNames: ['target'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [processMetrics],
});
const finished = new Counter({
  name: 'labflow_deliveries_finished_total',
  help: 'Deliveries that reached a final state, by target and status (succeeded, exhausted: retries used up, cancelled: endpoint gone or disabled).',
  labelNames: ['target', 'status'] as const,
  registers: [processMetrics],
});
const attemptsPerDelivery = new Histogram({
  name: 'labflow_delivery_attempts_per_delivery',
  help: 'Attempts a delivery took until its final state, by target and status.',
  labelNames: ['target', 'status'] as const,
  buckets: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  registers: [processMetrics],
});

export const eventMetrics = {
  /** Deliveries written at the outbox insert, started by the relay (handed to its worker or enqueued). */
  started(deliveries: number): void {
    if (deliveries > 0) createdDeliveries.inc(deliveries);
  },

  relayed(events: number, deliveries: number): void {
    if (events > 0) relayedEvents.inc(events);
    if (deliveries > 0) createdDeliveries.inc(deliveries);
  },

  attemptFinished(target: DeliveryTarget, attemptNumber: number, attempt: FinishedAttempt): void {
    attempts.inc({ target, result: attempt.status });
    attemptDuration.observe({ target }, attempt.latencyMs / 1000);
    if (attempt.delivery.status === 'pending') return;
    finished.inc({ target, status: attempt.delivery.status });
    attemptsPerDelivery.observe({ target, status: attempt.delivery.status }, attemptNumber);
  },
};

/** What the lag gauges read at each scrape (OutboxRepository.lagSeconds). */
export interface OutboxLagSource {
  lagSeconds(): Promise<{ outbox: number; delivery: number }>;
}

/**
 * Scrape-time gauges of the outbox, for the app that relays (the worker): how old the oldest
 * event not yet relayed is, and how late the most overdue pending delivery is. Both read one
 * partial index. Exported by the worker only, so API replicas do not report the same rows.
 */
export function registerOutboxGauges(registry: Registry, source: OutboxLagSource): void {
  let reading: Promise<{ outbox: number; delivery: number }> | null = null;
  // One query serves both gauges of a scrape.
  const read = () => (reading ??= source.lagSeconds().finally(() => setImmediate(() => (reading = null))));
  new Gauge({
    name: 'labflow_outbox_lag_seconds',
    help: 'Age of the oldest outbox event not yet relayed into deliveries (0 when none waits).',
    registers: [registry],
    async collect() {
      this.set((await read()).outbox);
    },
  });
  new Gauge({
    name: 'labflow_delivery_lag_seconds',
    help: 'How far past its due time the most overdue pending delivery is (0 when none is overdue); deliveries an endpoint rate_limit holds back count too.',
    registers: [registry],
    async collect() {
      this.set((await read()).delivery);
    },
  });
}
