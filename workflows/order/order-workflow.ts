import { condition, patched } from '@temporalio/workflow';
import type { OrderResume, OrderWorkflowInput, OrderWorkflowResult } from '../contract';
import { AppointmentCoordinator } from './appointments';
import { OrderCancellation } from './cancellation';
import { OrderContext, OrderEnded } from './context';
import { OutsideFacts } from './facts';
import { LabOrder } from './lab-order';
import { OrderMessages } from './messages';
import { ACTIVATE_BY_CHANGEABLE } from './order-lifecycle';
import { APPOINTMENT_REPORTS_IN_ORDER, LAB_ORDER_RESEND, ORDER_REMINDERS } from './patches';
import { OrderReminders } from './reminders';
import { SandboxSimulation } from './sandbox';
import { stagesFrom } from './stages';
import * as steps from './steps';
import { TransitionRecorder } from './transitions';

/**
 * `order:<order_id>`: one lab order's lifecycle, from the events the API wrote at creation to a
 * terminal status. Every transition is recorded by one idempotent activity (order event, order
 * status and webhook event in one transaction). Outside facts arrive as signals (courier
 * tracking, lab events); in the sandbox a simulation stands in for the outside parties.
 */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderWorkflowResult> {
  return new OrderWorkflow(input).run();
}

/**
 * One order workflow: `run` walks the flow's stages (./stages.ts), one method per business step.
 * The parts it hands the work to share the order's state (./context.ts): the transition recorder,
 * the appointment coordinator, outside facts, the sandbox simulation, cancellation, the message
 * handlers and the patient reminders.
 */
class OrderWorkflow {
  private readonly order: OrderContext;
  private readonly transitions: TransitionRecorder;
  private readonly appointments: AppointmentCoordinator;
  private readonly sandbox: SandboxSimulation;
  private readonly facts: OutsideFacts;
  private readonly labOrder: LabOrder;

  constructor(input: OrderWorkflowInput) {
    const order = (this.order = new OrderContext(input));
    const transitions = (this.transitions = new TransitionRecorder(order));
    const appointments = (this.appointments = new AppointmentCoordinator(order, transitions));
    const cancellation = new OrderCancellation(order, transitions, appointments);
    const labOrder = (this.labOrder = new LabOrder(order));
    const sandbox = (this.sandbox = new SandboxSimulation(order, transitions, appointments, cancellation));
    const facts = (this.facts = new OutsideFacts(order, transitions, sandbox));
    if (input.resume) this.resumeFrom(input.resume);
    new OrderMessages({ order, transitions, appointments, cancellation, sandbox, facts, labOrder }).install();
  }

  /**
   * Runs the flow's stages in order, from the one the order's current status belongs to (a new
   * order starts at the first; a run the reconciler started for a stranded order resumes).
   */
  async run(): Promise<OrderWorkflowResult> {
    this.startReminders();
    try {
      const stages = stagesFrom(this.order.flow, this.order.lowStatus);
      if (ACTIVATE_BY_CHANGEABLE.includes(this.order.lowStatus)) {
        await this.sandbox.waitIfSandbox();
        await this.waitForActivationDate();
      }
      for (const stage of stages) await this[stage]();
    } catch (error) {
      if (!(error instanceof OrderEnded)) throw error;
    }
    return this.finish();
  }

  /**
   * Patient reminders run beside the stages on timers of their own (./reminders.ts). Only for
   * orders started with a reminder schedule, and ORDER_REMINDERS: a history recorded before
   * reminders existed replays without them.
   */
  private startReminders(): void {
    const schedule = this.order.input.reminders;
    if (schedule && patched(ORDER_REMINDERS)) new OrderReminders(this.order, this.appointments, schedule).start();
  }

  private resumeFrom(resume: OrderResume): void {
    steps.resumeFrom(this.order, this.appointments, resume, this.labOrder);
  }

  private finish(): Promise<OrderWorkflowResult> {
    return steps.finish(this.order, this.labOrder, this.facts);
  }

  // --- stages, in the order of ./stages.ts ---------------------------------------------------

  /** No requisition before `activate_by` (a PATCH may move it; a simulation skips the wait). */
  private async waitForActivationDate(): Promise<void> {
    const order = this.order;
    order.stage = 'awaiting_activation';
    for (;;) {
      order.checkActive();
      if (this.sandbox.current) return;
      const until = steps.startOfDay(order.activateBy);
      if (until === null || Date.now() >= until) return;
      const seen = order.activateBy;
      await condition(() => order.activateBy !== seen || order.ended() || this.sandbox.current !== null, Math.max(1, until - Date.now()));
    }
  }

  /**
   * The requisition goes to the lab. A lab that answers by ACK (HL7) and refuses the order (AE/AR)
   * does not fail the order: the run waits, its state showing the lab's answer, until ops fix the
   * cause and signal resendLabOrder (`labflow hl7 resend`); then the order message goes out again.
   */
  private async createRequisition(): Promise<void> {
    const order = this.order;
    await this.sandbox.holdNextStepWhileHeadingHere();
    order.stage = 'creating_requisition';
    await this.labOrder.send(() => patched(LAB_ORDER_RESEND));
    await this.transitions.transition('requisition_created');
  }

  private async shipKitToCustomer(): Promise<void> {
    await this.sandbox.awaitShipment();
    await this.sandbox.holdNextStepWhileHeadingHere();
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
    const { order, appointments, sandbox, facts } = this;
    order.stage = 'collecting_sample';
    appointments.collecting = true;
    if (!appointments.latest && order.lowStatus !== 'appointment_pending') await this.transitions.transition('appointment_pending', { onlyIfAllowed: true });
    await appointments.sync();
    while (!appointments.sampleCollected()) {
      order.checkActive();
      await sandbox.cancelIfAsked();
      await sandbox.driveAppointment();
      // Wake on work, not on a change seen since the last look: a report that arrived while the
      // step above was recording a transition is still waiting here (and is applied below), and a
      // sample collected meanwhile (a walk-in visit that completed) ends the stage.
      const simulation = sandbox.current;
      const seq = order.seq;
      const wake = () =>
        facts.waiting > 0 ||
        order.ended() ||
        appointments.sampleCollected() ||
        appointments.unsyncedReports().length > 0 ||
        sandbox.current !== simulation ||
        order.seq !== seq;
      const retryAt = sandbox.bookingRetryAt;
      if (retryAt === null) await condition(wake);
      else await condition(wake, Math.max(1, retryAt - Date.now()));
      order.checkActive();
      if (facts.waiting > 0 && appointments.unsyncedReports().length > 0 && patched(APPOINTMENT_REPORTS_IN_ORDER)) {
        // The appointment's own story first: a lab fact may only be allowed after the draw.
        await appointments.sync();
        continue;
      }
      const fact = facts.next();
      if (fact) await facts.apply(fact);
      else await appointments.sync();
    }
  }

  /**
   * On-site collection: the team's own staff draw the sample and report it (the recordOnSiteDraw
   * update records draw_completed); in the sandbox a simulation heading past the draw reports it
   * after its step delay. Lab facts that arrive first stay queued for awaitResults.
   */
  private async awaitOnSiteDraw(): Promise<void> {
    const { order, sandbox } = this;
    order.stage = 'awaiting_draw';
    while (order.lowStatus !== 'draw_completed') {
      order.checkActive();
      await sandbox.cancelIfAsked();
      const simulation = sandbox.current;
      const simulatedDraw = sandbox.drawsOnSite(simulation);
      const seq = order.seq;
      const wake = () => order.ended() || order.seq !== seq || sandbox.current !== simulation;
      if (!simulatedDraw || !simulation) {
        await condition(wake);
        continue;
      }
      if (!(await condition(wake, Math.max(1, simulation.delayMs)))) {
        await this.transitions.transition('draw_completed', { onlyIfAllowed: true, statusDetail: 'Simulated on-site draw.' });
      }
    }
  }

  private async awaitResults(): Promise<void> {
    await steps.awaitResults(this.order, this.facts);
  }
}
