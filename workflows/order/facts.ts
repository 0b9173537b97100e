import { condition, log, patched } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { type Fact, type OrderContext, orderActivities, type Simulation } from './context';
import { canTransition } from './order-lifecycle';
import { LAB_CORRECTIONS_IN_RUN, LAB_UPDATES_BY_MESSAGE, PARTNER_REPORTS_BY_EVENT } from './patches';
import { type LowStatus, sourceOf } from './order-statuses';
import type { TransitionRecorder } from './transitions';

/** A window a stage waits in: when it closes, the order moves to `onTimeout(status)`. */
export interface FactWindow {
  length: Duration;
  onTimeout: (low: LowStatus) => LowStatus;
}

/** A stand-in for the outside parties that supplies facts itself (the v1 sandbox simulation, ./sandbox.ts). */
export interface SimulatedFacts {
  readonly current: Simulation | null;
  cancelIfAsked(): Promise<void>;
  nextFact(simulation: Simulation | null): Fact | null;
}

/**
 * Facts from outside the order: courier tracking and lab events (signals), queued as they arrive
 * and applied in order when the lifecycle allows them, or supplied by a sandbox simulation.
 */
export class OutsideFacts {
  private readonly queue: Fact[] = [];
  /** The lab messages whose facts this run took (LAB_UPDATES_BY_MESSAGE). */
  private readonly messages = new Set<string>();
  /** The partner reports (`source:eventId`) this run took (PARTNER_REPORTS_BY_EVENT). */
  private readonly partnerEvents = new Set<string>();

  constructor(
    private readonly order: OrderContext,
    private readonly transitions: TransitionRecorder,
    /** orderWorkflow (v1) only: its sandbox simulation. */
    private readonly sandbox: SimulatedFacts | null = null,
  ) {}

  /** A courierUpdate or labUpdate signal: kept if the source reports such a status. */
  receive(fact: Fact): void {
    const expected = fact.source === 'lab' ? ['lab', 'courier'] : ['courier'];
    if (!expected.includes(sourceOf(fact.low))) {
      log.warn('Order fact ignored: not a status this source reports', { source: fact.source, low: fact.low });
      return;
    }
    if (fact.messageId && patched(LAB_UPDATES_BY_MESSAGE)) {
      if (this.messages.has(fact.messageId)) {
        log.info('Lab update ignored: its message was taken already', { messageId: fact.messageId });
        return;
      }
      this.messages.add(fact.messageId);
    }
    if (fact.eventId && patched(PARTNER_REPORTS_BY_EVENT)) {
      const key = `${fact.source}:${fact.eventId}`;
      if (this.partnerEvents.has(key)) {
        log.info('Partner report ignored: its event was taken already', { source: fact.source, eventId: fact.eventId });
        return;
      }
      this.partnerEvents.add(key);
    }
    this.queue.push(fact);
  }

  /**
   * The end of the run: a lab correction still waiting (it arrived as the order completed, after
   * the results were collected) corrects the stored results, as one after the run would.
   */
  async applyLateCorrections(): Promise<void> {
    const order = this.order;
    for (let index = this.lateCorrection(); index >= 0; index = this.lateCorrection()) {
      const [fact] = this.queue.splice(index, 1);
      if (!patched(LAB_CORRECTIONS_IN_RUN)) return;
      await order.runActivity(() => orderActivities.correctLabResults({ orderId: order.orderId, reportId: fact.messageId as string }));
    }
  }

  private lateCorrection(): number {
    if (this.order.lowStatus !== 'completed') return -1;
    return this.queue.findIndex((fact) => fact.source === 'lab' && fact.correction === true && fact.messageId !== undefined);
  }

  /** Facts received and not yet applied. */
  get waiting(): number {
    return this.queue.length;
  }

  /** The oldest fact not yet applied, taken off the queue. */
  next(): Fact | undefined {
    return this.queue.shift();
  }

  /**
   * Applies courier/lab facts until `done(status)`. A window turns into its timeout status when it
   * closes; a running sandbox simulation supplies the next fact after its step delay.
   */
  async awaitFacts(done: (low: LowStatus) => boolean, window?: FactWindow): Promise<void> {
    const order = this.order;
    const deadline = window ? Date.now() + msToNumber(window.length) : null;
    while (!done(order.lowStatus)) {
      order.checkActive();
      await this.sandbox?.cancelIfAsked();
      const simulation = this.sandbox?.current ?? null;
      const simulated = this.sandbox?.nextFact(simulation) ?? null;
      const dueTimes = [deadline, simulated && simulation ? Date.now() + simulation.delayMs : null].filter((at): at is number => at !== null);
      const seq = order.seq;
      const wake = () => this.queue.length > 0 || order.ended() || order.seq !== seq || (this.sandbox?.current ?? null) !== simulation;
      let woke = true;
      if (dueTimes.length === 0) await condition(wake);
      else woke = await condition(wake, Math.max(1, Math.min(...dueTimes) - Date.now()));
      order.checkActive();
      const fact = this.queue.shift();
      if (fact) {
        await this.apply(fact);
      } else if (!woke && deadline !== null && window && Date.now() >= deadline) {
        await this.transitions.transition(window.onTimeout(order.lowStatus));
      } else if (!woke && simulated) {
        await this.apply(simulated);
      }
    }
  }

  /** Records a fact if the lifecycle allows it from the current status; otherwise drops it. */
  async apply(fact: Fact): Promise<void> {
    const order = this.order;
    if (!canTransition(order.flow, order.lowStatus, fact.low)) {
      log.warn('Order fact ignored: not allowed from the current status', { from: order.lowStatus, to: fact.low, source: fact.source });
      return;
    }
    if (fact.low === 'completed' || fact.low === 'redraw_available') {
      // redraw_available: final results with biomarkers missing (a lab error); a redraw may follow.
      const hasMissingResults = fact.low === 'redraw_available' ? true : fact.hasMissingResults;
      await order.runActivity(() =>
        orderActivities.collectResults({ orderId: order.orderId, interpretation: fact.interpretation, hasMissingResults, resultTypes: fact.resultTypes }),
      );
    }
    await this.transitions.transition(fact.low, { statusDetail: fact.statusDetail ?? null, onlyIfAllowed: true });
  }
}
