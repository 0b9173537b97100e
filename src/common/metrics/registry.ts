import { Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * What this process did, whichever app did it: relay and delivery counters, order transitions,
 * Node's own metrics (CPU, memory, event-loop lag, GC). Counters are defined beside the code that
 * counts them (src/events/event-metrics.ts, src/orders/order-metrics.ts) and register here.
 */
export const processMetrics = new Registry();

let defaultMetricsOn = false;

/**
 * One app's metrics (an HTTP app or the worker), injected from CoreModule: its HTTP request
 * metrics and its scrape-time gauges (outbox lag, queue depths, stranded orders). A registry per
 * app, not prom-client's global one, so two apps in one process (as in tests) do not collide;
 * `text()` shows them with the process-wide ones.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor() {
    if (!defaultMetricsOn) {
      defaultMetricsOn = true;
      collectDefaultMetrics({ register: processMetrics });
    }
  }

  /** The Prometheus text exposition of this app and its process. */
  text(): Promise<string> {
    return Registry.merge([processMetrics, this.registry]).metrics();
  }
}

/**
 * Whether a scrape may read /metrics: always without METRICS_TOKEN, else only with
 * `Authorization: Bearer <token>` (compared in constant time).
 */
export function scrapeAllowed(token: string | null, authorization: string | undefined): boolean {
  if (token === null) return true;
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
