import { Counter } from 'prom-client';
import { processMetrics } from '../common/metrics/registry';

const transitions = new Counter({
  name: 'labflow_order_transitions_total',
  help: 'Order transitions recorded (each once, however often Temporal retried the activity), by top-level status, detailed status and collection method.',
  labelNames: ['status', 'detailed_status', 'collection_method'] as const,
  registers: [processMetrics],
});

/** Counted by the worker that records transitions (OrderTransitionsService), after the commit. */
export const orderMetrics = {
  transitionRecorded(parsed: { top: string; low: string; method: string }): void {
    transitions.inc({ status: parsed.top, detailed_status: parsed.low, collection_method: parsed.method });
  },
};
