import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import {
  ORDER_GONE,
  type OrderActivities,
  type OrderState,
  type OrderWorkflowInput,
  REGISTRATION_SUPERSEDED,
  type ResultInterpretation,
  type SimulatedResultType,
} from '../contract';
import { isTerminal, type WorkflowKnowledge } from './order-lifecycle';
import type { LowStatus, OrderFlow } from './order-statuses';

/** The order activities, one retry policy for all. */
export const orderActivities = proxyActivities<OrderActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute', nonRetryableErrorTypes: [ORDER_GONE, REGISTRATION_SUPERSEDED] },
});

/** Unwinds the run once the order reached a terminal status (or its row is gone). */
export class OrderEnded extends Error {}

/** A fact from outside (courier, lab) or from the sandbox simulation standing in for them. */
export interface Fact {
  source: 'courier' | 'lab' | 'simulation';
  low: LowStatus;
  statusDetail?: string | null;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
  resultTypes?: SimulatedResultType[];
  /** The lab's message it came from (labUpdate.messageId). */
  messageId?: string;
  /** The partner's event id (courierUpdate/labUpdate.eventId). */
  eventId?: string;
  /** That message corrects results (labUpdate.correction). */
  correction?: boolean;
}

/** What `POST /v3/order/{id}/test` asked a sandbox order to walk through. */
export interface Simulation {
  finalStatus: LowStatus | null;
  delayMs: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
  resultTypes?: SimulatedResultType[];
}

/**
 * The state every part of one order workflow shares: where the order stands (its latest event),
 * the stage the run is in, and what only the workflow knows (shipping started, registration, a
 * row gone). The parts (transitions, appointments, facts, sandbox, messages) each receive it.
 */
export class OrderContext {
  readonly flow: OrderFlow;
  /** Sequence number and low-level status of the order's latest recorded event. */
  seq: number;
  lowStatus: LowStatus;
  /** The stage the run is in (the orderState query shows it). */
  stage = 'created';
  activateBy: string | null;
  /** From here on the order can no longer be cancelled. */
  shippingStarted = false;
  registration: OrderState['registration'];
  /** The order's row is gone (its user was erased): the workflow ends quietly. */
  gone = false;
  /** A cancellation of the order is under way (an at-home appointment is cancelled first): no new reminders. */
  cancelling = false;

  constructor(readonly input: OrderWorkflowInput) {
    this.flow = input.flow;
    this.seq = input.seq;
    this.lowStatus = input.low;
    this.activateBy = input.activateBy;
    this.registration = input.flow === 'registrable_testkit' ? 'awaiting' : 'not_applicable';
  }

  get orderId(): string {
    return this.input.orderId;
  }

  ended(): boolean {
    return this.gone || isTerminal(this.lowStatus);
  }

  checkActive(): void {
    if (this.ended()) throw new OrderEnded();
  }

  /** What the lifecycle's state questions need to know beyond the status. */
  knowledge(): WorkflowKnowledge {
    return { shippingStarted: this.shippingStarted, gone: this.gone };
  }

  /** Runs an activity; an order whose row is gone (user erased) ends the workflow quietly. */
  async runActivity<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === ORDER_GONE) {
        this.gone = true;
        throw new OrderEnded();
      }
      throw error;
    }
  }
}
