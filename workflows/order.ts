import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import {
  activateByChanged,
  cancelOrder,
  courierUpdate,
  labUpdate,
  ORDER_GONE,
  ORDER_NOT_CANCELLABLE,
  ORDER_NOT_REGISTRABLE,
  type OrderActivities,
  type OrderState,
  orderState,
  type OrderUpdateResult,
  type OrderWorkflowInput,
  type OrderWorkflowResult,
  registerKit,
  REGISTRATION_SUPERSEDED,
  type ResultInterpretation,
  SEARCH_ATTRIBUTES,
  simulate,
} from './contract';
import {
  assertTransition,
  canTransition,
  eventStatus,
  isCancellable,
  isTerminal,
  type OrderFlow,
  type OrderLowLevelStatus,
  REGISTRABLE_FROM,
  simulatedNext,
  sourceOf,
} from './order-lifecycle';

const { recordOrderTransition, createRequisition, shipKit, collectResults } = proxyActivities<OrderActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute', nonRetryableErrorTypes: [ORDER_GONE, REGISTRATION_SUPERSEDED] },
});

type Low = OrderLowLevelStatus;

/** A fact from outside (courier, lab) or from the sandbox simulation standing in for them. */
interface Fact {
  source: 'courier' | 'lab' | 'simulation';
  low: Low;
  statusDetail?: string | null;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

interface Simulation {
  finalStatus: Low | null;
  delayMs: number;
  interpretation?: ResultInterpretation;
  hasMissingResults?: boolean;
}

/** Unwinds `run` once the order reached a terminal status (or its row is gone). */
class OrderEnded extends Error {}

/**
 * `order:<order_id>`: one lab order's lifecycle, from the events the API wrote at creation to a
 * terminal status. Every transition is recorded by one idempotent activity (order event, order
 * status and webhook event in one transaction). Outside facts arrive as signals (courier
 * tracking, lab events); a sandbox order waits for a simulation, which then supplies the facts.
 */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderWorkflowResult> {
  return new OrderRun(input).run();
}

class OrderRun {
  private readonly flow: OrderFlow;
  private seq: number;
  private low: Low;
  private stage = 'created';
  private activateBy: string | null;
  private shippingStarted = false;
  private registration: OrderState['registration'];
  private simulation: Simulation | null = null;
  private gone = false;
  private readonly facts: Fact[] = [];
  private transitions: Promise<unknown> = Promise.resolve();

  constructor(private readonly input: OrderWorkflowInput) {
    this.flow = input.flow;
    this.seq = input.seq;
    this.low = input.low;
    this.activateBy = input.activateBy;
    this.registration = input.flow === 'registrable_testkit' ? 'awaiting' : 'not_applicable';
    this.installHandlers();
  }

  async run(): Promise<OrderWorkflowResult> {
    try {
      await this.waitForSimulationIfSandbox();
      await this.waitForActivationDate();
      if (this.flow === 'imported_testkit') {
        // The sample is already collected: no kit ships.
        await this.createRequisition();
      } else if (this.flow === 'registrable_testkit') {
        await this.shipKitToCustomer();
        await this.awaitKitWithCustomer();
        await this.awaitRegistration();
        await this.createRequisition();
      } else {
        await this.createRequisition();
        await this.shipKitToCustomer();
        await this.awaitKitWithCustomer();
      }
      await this.returnSampleToLab();
      await this.awaitResults();
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    this.stage = 'finished';
    await condition(allHandlersFinished);
    return { status: this.gone ? 'gone' : eventStatus(this.flow, this.low) };
  }

  // --- stages -----------------------------------------------------------------------------

  /** A sandbox order stays where the API left it until `POST /v3/order/{id}/test` simulates it. */
  private async waitForSimulationIfSandbox(): Promise<void> {
    if (this.input.environment !== 'sandbox') return;
    this.stage = 'awaiting_simulation';
    await condition(() => this.simulation !== null || this.ended());
    this.checkActive();
    if (this.simulation?.finalStatus === 'cancelled' && isCancellable(this.flow, this.low)) {
      await this.transition('cancelled');
      this.checkActive();
    }
  }

  /** No requisition before `activate_by` (a PATCH may move it; a simulation skips the wait). */
  private async waitForActivationDate(): Promise<void> {
    this.stage = 'awaiting_activation';
    for (;;) {
      this.checkActive();
      if (this.simulation) return;
      const until = startOfDay(this.activateBy);
      if (until === null || Date.now() >= until) return;
      const seen = this.activateBy;
      await condition(() => this.activateBy !== seen || this.ended(), Math.max(1, until - Date.now()));
    }
  }

  private async createRequisition(): Promise<void> {
    await this.proceedIfSimulationAllows();
    this.stage = 'creating_requisition';
    await this.call(() => createRequisition({ orderId: this.input.orderId }));
    await this.transition('requisition_created');
  }

  private async shipKitToCustomer(): Promise<void> {
    await this.proceedIfSimulationAllows();
    this.checkActive();
    // From here on the order can no longer be cancelled (set in the same step as the check).
    this.stage = 'shipping_kit';
    this.shippingStarted = true;
    await this.call(() => shipKit({ orderId: this.input.orderId }));
    await this.transition('transit_customer');
  }

  private async awaitKitWithCustomer(): Promise<void> {
    this.stage = 'kit_to_customer';
    await this.awaitFacts((low) => low === 'with_customer' || low === 'registered');
  }

  /** An unregistered kit is cancelled when the registration window closes. */
  private async awaitRegistration(): Promise<void> {
    this.stage = 'awaiting_registration';
    await this.awaitFacts((low) => low === 'registered', { length: this.input.timers.registrationWindow, onTimeout: () => 'cancelled' });
  }

  /**
   * The sample travels back to the lab. When the window closes, a kit still with the customer
   * is `lost`; one in the courier's hands is `failure_to_deliver_to_lab`.
   */
  private async returnSampleToLab(): Promise<void> {
    this.stage = 'sample_to_lab';
    await this.awaitFacts((low) => low === 'delivered_to_lab' || low === 'lab_processing_blocked', {
      length: this.input.timers.sampleToLabWindow,
      onTimeout: (low) => (low === 'transit_lab' || low === 'problem_in_transit_lab' ? 'failure_to_deliver_to_lab' : 'lost'),
    });
  }

  private async awaitResults(): Promise<void> {
    this.stage = 'awaiting_results';
    await this.awaitFacts((low) => low === 'completed');
  }

  // --- facts, simulation, timers ----------------------------------------------------------------

  /**
   * Applies courier/lab facts until `done(status)`. A window turns into its timeout status when it
   * closes; a running sandbox simulation supplies the next fact after its step delay.
   */
  private async awaitFacts(done: (low: Low) => boolean, window?: { length: Duration; onTimeout: (low: Low) => Low }): Promise<void> {
    const deadline = window ? Date.now() + msToNumber(window.length) : null;
    while (!done(this.low)) {
      this.checkActive();
      const simulation = this.simulation;
      const simulated = simulation ? simulatedNext(this.flow, this.low, simulation.finalStatus) : null;
      const dueTimes = [deadline, simulated && simulation ? Date.now() + simulation.delayMs : null].filter((at): at is number => at !== null);
      const seq = this.seq;
      const wake = () => this.facts.length > 0 || this.ended() || this.seq !== seq || this.simulation !== simulation;
      let woke = true;
      if (dueTimes.length === 0) await condition(wake);
      else woke = await condition(wake, Math.max(1, Math.min(...dueTimes) - Date.now()));
      this.checkActive();
      const fact = this.facts.shift();
      if (fact) {
        await this.applyFact(fact);
      } else if (!woke && deadline !== null && window && Date.now() >= deadline) {
        await this.transition(window.onTimeout(this.low));
      } else if (!woke && simulated && simulation) {
        await this.applyFact({
          source: 'simulation',
          low: simulated,
          interpretation: simulation.interpretation,
          hasMissingResults: simulation.hasMissingResults,
        });
      }
    }
  }

  /** Records a fact if the lifecycle allows it from the current status; otherwise drops it. */
  private async applyFact(fact: Fact): Promise<void> {
    if (!canTransition(this.flow, this.low, fact.low)) {
      log.warn('Order fact ignored: not allowed from the current status', { from: this.low, to: fact.low, source: fact.source });
      return;
    }
    if (fact.low === 'completed') {
      await this.call(() =>
        collectResults({ orderId: this.input.orderId, interpretation: fact.interpretation, hasMissingResults: fact.hasMissingResults }),
      );
    }
    await this.transition(fact.low, { statusDetail: fact.statusDetail ?? null, onlyIfAllowed: true });
  }

  /** A simulation heading for a status the order is in holds the workflow's own next step. */
  private async proceedIfSimulationAllows(): Promise<void> {
    this.checkActive();
    await condition(() => this.ended() || !(this.simulation && this.simulation.finalStatus === this.low));
    this.checkActive();
  }

  // --- transitions --------------------------------------------------------------------------

  /**
   * Records `low` as the order's next event. Transitions are serialised (the main flow and the
   * update handlers share the sequence); each is checked against the lifecycle table.
   */
  private transition(
    low: Low,
    options: { statusDetail?: string | null; registrationId?: string; guard?: () => void; onlyIfAllowed?: boolean } = {},
  ): Promise<boolean> {
    const work = async () => {
      options.guard?.();
      if (!canTransition(this.flow, this.low, low)) {
        if (this.ended()) throw new OrderEnded();
        if (options.onlyIfAllowed) return false;
        assertTransition(this.flow, this.low, low);
      }
      const seq = this.seq + 1;
      await this.call(() =>
        recordOrderTransition({
          orderId: this.input.orderId,
          seq,
          status: eventStatus(this.flow, low),
          statusDetail: options.statusDetail ?? null,
          emit: true,
          registrationId: options.registrationId,
        }),
      );
      this.seq = seq;
      this.low = low;
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.orderStatus, value: low }]);
      return true;
    };
    const result = this.transitions.then(work);
    this.transitions = result.catch(() => undefined);
    return result;
  }

  /** Runs an activity; an order whose row is gone (user erased) ends the workflow quietly. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
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

  private ended(): boolean {
    return this.gone || isTerminal(this.low);
  }

  private checkActive(): void {
    if (this.ended()) throw new OrderEnded();
  }

  // --- handlers -----------------------------------------------------------------------------

  private installHandlers(): void {
    setHandler(courierUpdate, (update) => this.receive({ ...update, source: 'courier' }));
    setHandler(labUpdate, (update) => this.receive({ ...update, source: 'lab' }));
    setHandler(simulate, (request) => {
      if (this.input.environment !== 'sandbox') return;
      this.simulation = {
        finalStatus: request.finalStatus ?? null,
        delayMs: request.delayMs ?? msToNumber(this.input.timers.sandboxStepDelay),
        interpretation: request.interpretation,
        hasMissingResults: request.hasMissingResults,
      };
    });
    setHandler(activateByChanged, ({ activateBy }) => {
      this.activateBy = activateBy;
    });
    setHandler(orderState, () => ({
      seq: this.seq,
      low: this.low,
      status: eventStatus(this.flow, this.low),
      stage: this.stage,
      shippingStarted: this.shippingStarted,
      registration: this.registration,
      simulation: this.simulation ? { finalStatus: this.simulation.finalStatus, delayMs: this.simulation.delayMs } : null,
      activateBy: this.activateBy,
    }));
    setHandler(
      cancelOrder,
      async (): Promise<OrderUpdateResult> => {
        await this.inUpdate(() => this.transition('cancelled', { guard: () => this.assertCancellable() }));
        return { seq: this.seq, status: eventStatus(this.flow, this.low) };
      },
      { validator: () => this.assertCancellable() },
    );
    setHandler(
      registerKit,
      async ({ registrationId }): Promise<OrderUpdateResult> => {
        this.registration = 'registering';
        try {
          await this.inUpdate(() => this.transition('registered', { registrationId, guard: () => this.assertRegistrable(true) }));
        } catch (error) {
          this.registration = 'awaiting';
          throw error;
        }
        this.registration = 'registered';
        return { seq: this.seq, status: eventStatus(this.flow, this.low) };
      },
      { validator: (_registration: { registrationId: string }) => this.assertRegistrable(false) },
    );
  }

  private receive(fact: Fact): void {
    const expected = fact.source === 'lab' ? ['lab', 'courier'] : ['courier'];
    if (!expected.includes(sourceOf(fact.low))) {
      log.warn('Order fact ignored: not a status this source reports', { source: fact.source, low: fact.low });
      return;
    }
    this.facts.push(fact);
  }

  private assertCancellable(): void {
    if (this.ended() || this.shippingStarted || !isCancellable(this.flow, this.low)) {
      const reason = this.shippingStarted && !this.ended() ? 'the kit has started shipping' : `it is ${eventStatus(this.flow, this.low)}`;
      throw ApplicationFailure.nonRetryable(`Order cannot be cancelled: ${reason}.`, ORDER_NOT_CANCELLABLE);
    }
  }

  /** `inHandler`: checked again inside the transition, where this update itself is registering. */
  private assertRegistrable(inHandler: boolean): void {
    if (this.flow !== 'registrable_testkit') {
      throw ApplicationFailure.nonRetryable('This order is not a registrable test kit.', ORDER_NOT_REGISTRABLE);
    }
    const busy = inHandler ? this.registration === 'registered' : this.registration !== 'awaiting';
    if (busy) throw ApplicationFailure.nonRetryable('This kit is already registered.', ORDER_NOT_REGISTRABLE);
    if (this.ended() || !REGISTRABLE_FROM.includes(this.low)) {
      const reason = REGISTRABLE_FROM.includes(this.low) || this.ended() ? `it is ${eventStatus(this.flow, this.low)}` : 'the kit has not shipped yet';
      throw ApplicationFailure.nonRetryable(`This kit cannot be registered: ${reason}.`, ORDER_NOT_REGISTRABLE);
    }
  }

  /** Runs an update's work, turning internal outcomes into failures the caller can read. */
  private async inUpdate(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      if (error instanceof OrderEnded) throw ApplicationFailure.nonRetryable('The order no longer exists.', ORDER_GONE);
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
        throw ApplicationFailure.nonRetryable(error.cause.message, error.cause.type ?? undefined);
      }
      throw error;
    }
  }
}

/** Midnight UTC at the start of a `YYYY-MM-DD` date, as epoch ms; null when there is no date. */
function startOfDay(date: string | null): number | null {
  if (!date) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}
