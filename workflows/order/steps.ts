import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { OrderResume, OrderWorkflowResult } from '../contract';
import type { AppointmentCoordinator } from './appointments';
import { type OrderContext, orderActivities, OrderEnded } from './context';
import type { OutsideFacts } from './facts';
import type { LabOrder } from './lab-order';
import { eventStatus } from './order-statuses';
import { isPast } from './stages';
import type { TransitionRecorder } from './transitions';

/**
 * The steps both order workflow types take the same way (./order-workflow.ts, which keeps the
 * sandbox simulation for the orders it runs, and ./order-workflow-v2.ts, which has none). Each
 * workflow's stage method calls one of these, adding its own steps around it where it has any.
 */

/** A new run of a stranded order: what its status says is done, its appointments, and whether its lab took the order message. */
export function resumeFrom(order: OrderContext, appointments: AppointmentCoordinator, resume: OrderResume, labOrder?: LabOrder): void {
  const { flow, lowStatus } = order;
  if (labOrder && resume.labOrderAccepted) labOrder.accepted = resume.labOrderAccepted;
  order.shippingStarted = isPast(flow, lowStatus, 'shipKitToCustomer');
  if (flow === 'registrable_testkit' && isPast(flow, lowStatus, 'awaitRegistration')) order.registration = 'registered';
  appointments.resume(resume);
}

/** The end of a run: its handlers done, a late lab correction applied, the lab told of a cancellation, the final status. */
export async function finish(order: OrderContext, labOrder: LabOrder, facts?: OutsideFacts): Promise<OrderWorkflowResult> {
  order.stage = 'finished';
  await condition(allHandlersFinished);
  try {
    await facts?.applyLateCorrections();
  } catch (error) {
    if (!(error instanceof OrderEnded)) throw error;
  }
  await labOrder.cancel();
  return { status: order.gone ? 'gone' : eventStatus(order.flow, order.lowStatus) };
}

export async function shipKitToCustomer(order: OrderContext, transitions: TransitionRecorder): Promise<void> {
  order.checkActive();
  // From here on the order can no longer be cancelled (set in the same step as the check).
  order.stage = 'shipping_kit';
  order.shippingStarted = true;
  await order.runActivity(() => orderActivities.shipKit({ orderId: order.orderId }));
  await transitions.transition('transit_customer');
}

export async function awaitKitWithCustomer(order: OrderContext, facts: OutsideFacts): Promise<void> {
  order.stage = 'kit_to_customer';
  await facts.awaitFacts((low) => low === 'with_customer' || low === 'registered');
}

/** An unregistered kit is cancelled when the registration window closes. */
export async function awaitRegistration(order: OrderContext, facts: OutsideFacts): Promise<void> {
  order.stage = 'awaiting_registration';
  await facts.awaitFacts((low) => low === 'registered', { length: order.input.timers.registrationWindow, onTimeout: () => 'cancelled' });
}

/**
 * The sample travels back to the lab. When the window closes, a kit still with the customer
 * is `lost`; one in the courier's hands is `failure_to_deliver_to_lab`.
 */
export async function returnSampleToLab(order: OrderContext, facts: OutsideFacts): Promise<void> {
  order.stage = 'sample_to_lab';
  await facts.awaitFacts((low) => low === 'delivered_to_lab' || low === 'lab_processing_blocked', {
    length: order.input.timers.sampleToLabWindow,
    onTimeout: (low) => (low === 'transit_lab' || low === 'problem_in_transit_lab' ? 'failure_to_deliver_to_lab' : 'lost'),
  });
}

export async function awaitResults(order: OrderContext, facts: OutsideFacts): Promise<void> {
  order.stage = 'awaiting_results';
  await facts.awaitFacts((low) => low === 'completed');
}

/** Midnight UTC at the start of a `YYYY-MM-DD` date, as epoch ms; null when there is no date. */
export function startOfDay(date: string | null): number | null {
  if (!date) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}
