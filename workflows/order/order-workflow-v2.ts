import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { OrderResume, OrderWorkflowInput, OrderWorkflowResult } from '../contract';
import { AppointmentCoordinator } from './appointments';
import { OrderCancellation } from './cancellation';
import { OrderContext, orderActivities, OrderEnded } from './context';
import { OutsideFacts } from './facts';
import { LabOrder } from './lab-order';
import { OrderMessages } from './messages';
import { ACTIVATE_BY_CHANGEABLE } from './order-lifecycle';
import { eventStatus } from './order-statuses';
import { OrderReminders } from './reminders';
import { isPast, stagesFrom } from './stages';
import { TransitionRecorder } from './transitions';

/**
 * `order:<order_id>` for orders started since the sandbox became partners: one lab order's
 * lifecycle, the same code for sandbox and production orders. Labflow's own steps (requisition,
 * shipment) run at once; everything outside arrives as signals, the way real partners report:
 * courier tracking and lab events (partner webhooks, the HL7 listener), appointment reports.
 * In the sandbox, `POST /v3/order/{id}/test` has the sandbox partners play their part
 * (workflows/sandbox-partners/); nothing here knows of it.
 *
 * orderWorkflow (./order-workflow.ts) stays registered for orders started before, and for the
 * appointment flows, whose sandbox provider still stands in from inside the appointment workflow.
 */
export async function orderWorkflowV2(input: OrderWorkflowInput): Promise<OrderWorkflowResult> {
  return new OrderStory(input).run();
}

/** `run` walks the flow's stages (./stages.ts), one method per business step. */
class OrderStory {
  private readonly order: OrderContext;
  private readonly transitions: TransitionRecorder;
  private readonly appointments: AppointmentCoordinator;
  private readonly labOrder: LabOrder;
  private readonly facts: OutsideFacts;

  constructor(input: OrderWorkflowInput) {
    const order = (this.order = new OrderContext(input));
    const transitions = (this.transitions = new TransitionRecorder(order));
    const appointments = (this.appointments = new AppointmentCoordinator(order, transitions));
    const cancellation = new OrderCancellation(order, transitions, appointments);
    const labOrder = (this.labOrder = new LabOrder(order));
    const facts = (this.facts = new OutsideFacts(order, transitions));
    if (input.resume) this.resumeFrom(input.resume);
    new OrderMessages({ order, transitions, appointments, cancellation, sandbox: null, facts, labOrder }).install();
  }

  async run(): Promise<OrderWorkflowResult> {
    const schedule = this.order.input.reminders;
    if (schedule) new OrderReminders(this.order, this.appointments, schedule).start();
    try {
      const stages = stagesFrom(this.order.flow, this.order.lowStatus);
      if (ACTIVATE_BY_CHANGEABLE.includes(this.order.lowStatus)) await this.waitForActivationDate();
      for (const stage of stages) await this[stage]();
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    this.order.stage = 'finished';
    await condition(allHandlersFinished);
    await this.labOrder.cancel();
    return { status: this.order.gone ? 'gone' : eventStatus(this.order.flow, this.order.lowStatus) };
  }

  /** A new run of a stranded order: what its status says is done, and its appointments. */
  private resumeFrom(resume: OrderResume): void {
    const { flow, lowStatus } = this.order;
    this.order.shippingStarted = isPast(flow, lowStatus, 'shipKitToCustomer');
    if (flow === 'registrable_testkit' && isPast(flow, lowStatus, 'awaitRegistration')) this.order.registration = 'registered';
    this.appointments.resume(resume);
  }

  // --- stages, in the order of ./stages.ts ---------------------------------------------------

  /** No requisition before `activate_by` (a PATCH may move it). */
  private async waitForActivationDate(): Promise<void> {
    const order = this.order;
    order.stage = 'awaiting_activation';
    for (;;) {
      order.checkActive();
      const until = startOfDay(order.activateBy);
      if (until === null || Date.now() >= until) return;
      const seen = order.activateBy;
      await condition(() => order.activateBy !== seen || order.ended(), Math.max(1, until - Date.now()));
    }
  }

  /**
   * The requisition goes to the lab. A lab that answers by ACK (HL7) and refuses the order (AE/AR)
   * does not fail the order: the run waits, its state showing the lab's answer, until ops fix the
   * cause and signal resendLabOrder (`labflow hl7 resend`); then the order message goes out again.
   */
  private async createRequisition(): Promise<void> {
    const order = this.order;
    order.checkActive();
    order.stage = 'creating_requisition';
    await this.labOrder.send(() => true);
    await this.transitions.transition('requisition_created');
  }

  private async shipKitToCustomer(): Promise<void> {
    this.order.checkActive();
    // From here on the order can no longer be cancelled (set in the same step as the check).
    this.order.stage = 'shipping_kit';
    this.order.shippingStarted = true;
    await this.order.runActivity(() => orderActivities.shipKit({ orderId: this.order.orderId }));
    await this.transitions.transition('transit_customer');
  }

  private async awaitKitWithCustomer(): Promise<void> {
    this.order.stage = 'kit_to_customer';
    await this.facts.awaitFacts((low) => low === 'with_customer' || low === 'registered');
  }

  /** An unregistered kit is cancelled when the registration window closes. */
  private async awaitRegistration(): Promise<void> {
    this.order.stage = 'awaiting_registration';
    await this.facts.awaitFacts((low) => low === 'registered', { length: this.order.input.timers.registrationWindow, onTimeout: () => 'cancelled' });
  }

  /**
   * The sample travels back to the lab. When the window closes, a kit still with the customer
   * is `lost`; one in the courier's hands is `failure_to_deliver_to_lab`.
   */
  private async returnSampleToLab(): Promise<void> {
    this.order.stage = 'sample_to_lab';
    await this.facts.awaitFacts((low) => low === 'delivered_to_lab' || low === 'lab_processing_blocked', {
      length: this.order.input.timers.sampleToLabWindow,
      onTimeout: (low) => (low === 'transit_lab' || low === 'problem_in_transit_lab' ? 'failure_to_deliver_to_lab' : 'lost'),
    });
  }

  /**
   * Walk-in and at-home orders: the order follows its appointments (appointment_pending ⇄
   * appointment_scheduled, appointment_cancelled, and for at-home draw_completed) until the sample
   * is drawn. A walk-in patient may also come without an appointment: the lab's first fact ends
   * this stage too.
   */
  private async collectSampleAtAppointment(): Promise<void> {
    const { order, appointments, facts } = this;
    order.stage = 'collecting_sample';
    appointments.collecting = true;
    if (!appointments.latest && order.lowStatus !== 'appointment_pending') await this.transitions.transition('appointment_pending', { onlyIfAllowed: true });
    await appointments.sync();
    while (!appointments.sampleCollected()) {
      order.checkActive();
      // Wake on work, not on a change seen since the last look: a report that arrived while a
      // transition was being recorded is still waiting here, and a sample collected meanwhile
      // (a walk-in visit that completed) ends the stage.
      const seq = order.seq;
      await condition(
        () => facts.waiting > 0 || order.ended() || appointments.sampleCollected() || appointments.unsyncedReports().length > 0 || order.seq !== seq,
      );
      order.checkActive();
      if (appointments.unsyncedReports().length > 0) {
        // The appointment's own story first: a lab fact may only be allowed after the draw.
        await appointments.sync();
        continue;
      }
      const fact = facts.next();
      if (fact) await facts.apply(fact);
    }
  }

  /**
   * On-site collection: the team's own staff draw the sample and report it (the recordOnSiteDraw
   * update records draw_completed). Lab facts that arrive first stay queued for awaitResults.
   */
  private async awaitOnSiteDraw(): Promise<void> {
    const order = this.order;
    order.stage = 'awaiting_draw';
    await condition(() => order.ended() || order.lowStatus === 'draw_completed');
    order.checkActive();
  }

  private async awaitResults(): Promise<void> {
    this.order.stage = 'awaiting_results';
    await this.facts.awaitFacts((low) => low === 'completed');
  }
}

/** Midnight UTC at the start of a `YYYY-MM-DD` date, as epoch ms; null when there is no date. */
function startOfDay(date: string | null): number | null {
  if (!date) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}
