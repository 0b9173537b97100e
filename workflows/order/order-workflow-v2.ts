import { condition } from '@temporalio/workflow';
import type { OrderResume, OrderWorkflowInput, OrderWorkflowResult } from '../contract';
import { appointmentWorkflowV2 } from '../appointment/appointment-workflow-v2';
import { AppointmentCoordinator } from './appointments';
import { OrderCancellation } from './cancellation';
import { OrderContext, OrderEnded } from './context';
import { OutsideFacts } from './facts';
import { LabOrder } from './lab-order';
import { OrderMessages } from './messages';
import { ACTIVATE_BY_CHANGEABLE } from './order-lifecycle';
import { OrderReminders } from './reminders';
import { stagesFrom } from './stages';
import * as steps from './steps';
import { TransitionRecorder } from './transitions';

/**
 * `order:<order_id>` for orders started since the sandbox became partners: one lab order's
 * lifecycle, the same code for sandbox and production orders. Labflow's own steps (requisition,
 * shipment) run at once; everything outside arrives as signals, the way real partners report:
 * courier tracking and lab events (partner webhooks, the HL7 listener), appointment reports.
 * In the sandbox, `POST /v3/order/{id}/test` has the sandbox partners play their part
 * (workflows/sandbox-partners/); nothing here knows of it.
 * Appointment flows book their appointments as children of type appointmentWorkflowV2, whose
 * provider (the sandbox's too) reports through its callbacks.
 *
 * orderWorkflow (./order-workflow.ts) stays registered for orders started before (all flows).
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
    const appointments = (this.appointments = new AppointmentCoordinator(order, transitions, appointmentWorkflowV2));
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
    return steps.finish(this.order, this.labOrder, this.facts);
  }

  private resumeFrom(resume: OrderResume): void {
    steps.resumeFrom(this.order, this.appointments, resume, this.labOrder);
  }

  // --- stages, in the order of ./stages.ts ---------------------------------------------------

  /** No requisition before `activate_by` (a PATCH may move it). */
  private async waitForActivationDate(): Promise<void> {
    const order = this.order;
    order.stage = 'awaiting_activation';
    for (;;) {
      order.checkActive();
      const until = steps.startOfDay(order.activateBy);
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
    await steps.shipKitToCustomer(this.order, this.transitions);
  }

  private async awaitKitWithCustomer(): Promise<void> {
    await steps.awaitKitWithCustomer(this.order, this.facts);
  }

  private async awaitRegistration(): Promise<void> {
    await steps.awaitRegistration(this.order, this.facts);
  }

  private async returnSampleToLab(): Promise<void> {
    await steps.returnSampleToLab(this.order, this.facts);
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
    await steps.awaitResults(this.order, this.facts);
  }
}
