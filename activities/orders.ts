import {
  type LabOrderAck,
  ORDER_GONE,
  type OrderActivities,
  type RecordOrderTransitionInput,
  type RecordOrderTransitionResult,
  REGISTRATION_SUPERSEDED,
  type ResultInterpretation,
  type SimulatedResultType,
} from '../workflows/contract';
import { nonRetryableByName } from './non-retryable';

/** What the order activities need from src/ (OrderTransitionsService fits). */
export interface OrderLifecycle {
  recordTransition(input: RecordOrderTransitionInput): Promise<RecordOrderTransitionResult>;
  createRequisition(orderId: string): Promise<{ requisitionFormUrl: string | null; labAck?: LabOrderAck }>;
  cancelLabOrder(orderId: string): Promise<{ labAck?: LabOrderAck }>;
  correctLabResults(orderId: string, reportId: string): Promise<{ outcome: 'corrected' | 'repeat' | 'not_resulted' }>;
  shipKit(orderId: string): Promise<{ outboundTrackingNumber: string }>;
  collectResults(
    orderId: string,
    requested: { interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: SimulatedResultType[] },
  ): Promise<{ interpretation: ResultInterpretation | null; hasMissingResults: boolean }>;
}

/** Errors the order service raises that no retry can fix, by class name. */
const translated = nonRetryableByName({
  OrderGoneError: ORDER_GONE,
  RegistrationSupersededError: REGISTRATION_SUPERSEDED,
});

/**
 * Thin activities over the order lifecycle service. Each is idempotent (a transition is unique
 * per order and sequence number; a requisition, a shipment and results are made once), so
 * Temporal may retry any of them.
 */
export function createOrderActivities(lifecycle: OrderLifecycle): OrderActivities {
  return {
    recordOrderTransition: (input) => translated(() => lifecycle.recordTransition(input)),
    createRequisition: ({ orderId }) => translated(() => lifecycle.createRequisition(orderId)),
    cancelLabOrder: ({ orderId }) => translated(() => lifecycle.cancelLabOrder(orderId)),
    correctLabResults: ({ orderId, reportId }) => translated(() => lifecycle.correctLabResults(orderId, reportId)),
    shipKit: ({ orderId }) => translated(() => lifecycle.shipKit(orderId)),
    collectResults: ({ orderId, interpretation, hasMissingResults, resultTypes }) =>
      translated(() => lifecycle.collectResults(orderId, { interpretation, hasMissingResults, resultTypes })),
  };
}
