import { Counter } from 'prom-client';
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

export const hl7Metrics = {
  message(direction: 'in' | 'out', type: string, ack: string | null): void {
    messages.inc({ direction, type: type || 'unknown', ack: ack ?? 'none' });
  },
  held(): void {
    held.inc();
  },
};
