/**
 * The order workflow's stage table: the business steps each flow runs, in order, and where a new
 * run resumes for an order already past its first step. Pure: no I/O, no clock.
 */
import { isTerminal } from './order-lifecycle';
import type { LowStatus, OrderFlow } from './order-statuses';

/** The run's steps, named after the OrderWorkflow methods that carry them out. */
export type Stage =
  | 'createRequisition'
  | 'shipKitToCustomer'
  | 'awaitKitWithCustomer'
  | 'awaitRegistration'
  | 'returnSampleToLab'
  | 'collectSampleAtAppointment'
  | 'awaitOnSiteDraw'
  | 'awaitResults';

const APPOINTMENT_STAGES: readonly Stage[] = ['createRequisition', 'collectSampleAtAppointment', 'awaitResults'];
export const STAGES: Record<OrderFlow, readonly Stage[]> = {
  testkit: ['createRequisition', 'shipKitToCustomer', 'awaitKitWithCustomer', 'returnSampleToLab', 'awaitResults'],
  registrable_testkit: ['shipKitToCustomer', 'awaitKitWithCustomer', 'awaitRegistration', 'createRequisition', 'returnSampleToLab', 'awaitResults'],
  // The sample is already collected: no kit ships.
  imported_testkit: ['createRequisition', 'returnSampleToLab', 'awaitResults'],
  walk_in_test: APPOINTMENT_STAGES,
  at_home_phlebotomy: APPOINTMENT_STAGES,
  on_site_collection: ['createRequisition', 'awaitOnSiteDraw', 'awaitResults'],
};

/**
 * Where a run resumes for an order in each non-terminal status past its first stage (a run the
 * reconciler starts for an order whose workflow closed or vanished). Unlisted: the first stage.
 */
const KIT_OUTBOUND = {
  transit_customer: 'awaitKitWithCustomer',
  out_for_delivery: 'awaitKitWithCustomer',
  problem_in_transit_customer: 'awaitKitWithCustomer',
} as const;
const SAMPLE_INBOUND = { transit_lab: 'returnSampleToLab', problem_in_transit_lab: 'returnSampleToLab' } as const;
const AT_LAB = { delivered_to_lab: 'awaitResults', lab_processing_blocked: 'awaitResults' } as const;
const APPOINTMENT_RESUME: Partial<Record<LowStatus, Stage>> = {
  requisition_created: 'collectSampleAtAppointment',
  requisition_bypassed: 'collectSampleAtAppointment',
  appointment_pending: 'collectSampleAtAppointment',
  appointment_scheduled: 'collectSampleAtAppointment',
  appointment_cancelled: 'collectSampleAtAppointment',
  draw_completed: 'collectSampleAtAppointment',
  partial_results: 'awaitResults',
};
const RESUME_AT: Record<OrderFlow, Partial<Record<LowStatus, Stage>>> = {
  testkit: {
    requisition_created: 'shipKitToCustomer',
    requisition_bypassed: 'shipKitToCustomer',
    ...KIT_OUTBOUND,
    with_customer: 'returnSampleToLab',
    ...SAMPLE_INBOUND,
    ...AT_LAB,
  },
  registrable_testkit: {
    ...KIT_OUTBOUND,
    with_customer: 'awaitRegistration',
    registered: 'createRequisition',
    requisition_created: 'returnSampleToLab',
    requisition_bypassed: 'returnSampleToLab',
    ...SAMPLE_INBOUND,
    ...AT_LAB,
  },
  imported_testkit: { requisition_created: 'returnSampleToLab', requisition_bypassed: 'returnSampleToLab', ...SAMPLE_INBOUND, ...AT_LAB },
  walk_in_test: APPOINTMENT_RESUME,
  at_home_phlebotomy: APPOINTMENT_RESUME,
  on_site_collection: {
    requisition_created: 'awaitOnSiteDraw',
    requisition_bypassed: 'awaitOnSiteDraw',
    draw_completed: 'awaitResults',
    partial_results: 'awaitResults',
  },
};

/** The stages still ahead of an order of `flow` in status `low` (none once it has ended). */
export function stagesFrom(flow: OrderFlow, low: LowStatus): readonly Stage[] {
  if (isTerminal(low)) return [];
  const stages = STAGES[flow];
  const resumeAt = RESUME_AT[flow][low];
  return resumeAt ? stages.slice(stages.indexOf(resumeAt)) : stages;
}

/** Whether the order has passed `stage` (its flow has it, and it is no longer ahead). */
export function isPast(flow: OrderFlow, low: LowStatus, stage: Stage): boolean {
  return STAGES[flow].includes(stage) && !stagesFrom(flow, low).includes(stage);
}
