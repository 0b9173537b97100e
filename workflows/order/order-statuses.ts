/**
 * Order statuses as pure tables: the two levels of status (Junction's model), the flows, the
 * top-level status of each low-level one, who produces each, and the event status string. No I/O,
 * no clock: the order workflow, the API and the unit tests share it. The allowed moves between statuses are in ./order-lifecycle.ts.
 *
 * Statuses come in two levels: a low-level status such as `transit_customer` and the top-level
 * `status` it belongs to (`collecting_sample`); an order event's `status` is
 * `<top>.<collection method>.<low>`, e.g. `collecting_sample.testkit.transit_customer`.
 */

export const ORDER_TOP_LEVEL_STATUSES = ['received', 'collecting_sample', 'sample_with_lab', 'completed', 'cancelled', 'failed'] as const;
export type OrderTopLevelStatus = (typeof ORDER_TOP_LEVEL_STATUSES)[number];

/** Every low-level status Junction names (the `status[]` filter of `GET /v3/orders`). */
export const ORDER_LOW_LEVEL_STATUSES = [
  'ordered',
  'requisition_created',
  'requisition_bypassed',
  'transit_customer',
  'out_for_delivery',
  'with_customer',
  'transit_lab',
  'delivered_to_lab',
  'completed',
  'failure_to_deliver_to_lab',
  'failure_to_deliver_to_customer',
  'problem_in_transit_lab',
  'problem_in_transit_customer',
  'sample_error',
  'appointment_scheduled',
  'appointment_cancelled',
  'appointment_pending',
  'draw_completed',
  'cancelled',
  'lost',
  'do_not_process',
  'partial_results',
  'awaiting_registration',
  'registered',
  'redraw_available',
  'corrected',
  'lab_processing_blocked',
] as const;
export type OrderLowLevelStatus = (typeof ORDER_LOW_LEVEL_STATUSES)[number];

export type OrderCollectionMethod = 'testkit' | 'walk_in_test' | 'at_home_phlebotomy' | 'on_site_collection';

/**
 * A lifecycle: `testkit` is a kit registered to a patient at ordering (`POST /v3/order`);
 * `registrable_testkit` is shipped unregistered (`POST /v3/order/testkit`) and registered by the
 * customer with the kit's sample id; `imported_testkit` is a sample already collected
 * (`POST /v3/order/import`): no shipping, straight to the lab. All are collection method `testkit`.
 * `walk_in_test` (a patient service center visit) and `at_home_phlebotomy` (a phlebotomist at the
 * patient's address) collect the sample at an appointment: their own collection methods.
 * `on_site_collection`: the team's own staff draw the sample where they see the patient (a clinic,
 * an event) and report the draw (`PATCH /v3/order/{id}/draw_completed`); no appointment.
 */
export const ORDER_FLOWS = ['testkit', 'registrable_testkit', 'imported_testkit', 'walk_in_test', 'at_home_phlebotomy', 'on_site_collection'] as const;
export type OrderFlow = (typeof ORDER_FLOWS)[number];

/** The flows whose sample is collected at an appointment (a child workflow per appointment). */
export const APPOINTMENT_FLOWS: readonly OrderFlow[] = ['walk_in_test', 'at_home_phlebotomy'];

export function isAppointmentFlow(flow: OrderFlow): flow is 'walk_in_test' | 'at_home_phlebotomy' {
  return APPOINTMENT_FLOWS.includes(flow);
}

export function collectionMethodOf(flow: OrderFlow): OrderCollectionMethod {
  switch (flow) {
    case 'testkit':
    case 'registrable_testkit':
    case 'imported_testkit':
      return 'testkit';
    case 'walk_in_test':
    case 'at_home_phlebotomy':
    case 'on_site_collection':
      return flow;
  }
}

/** The short name workflow code uses for a low-level status. */
export type LowStatus = OrderLowLevelStatus;

const TESTKIT_TOP_LEVEL: Partial<Record<LowStatus, OrderTopLevelStatus>> = {
  ordered: 'received',
  awaiting_registration: 'received',
  requisition_created: 'received',
  requisition_bypassed: 'received',
  registered: 'received',
  transit_customer: 'collecting_sample',
  out_for_delivery: 'collecting_sample',
  with_customer: 'collecting_sample',
  transit_lab: 'collecting_sample',
  problem_in_transit_customer: 'collecting_sample',
  problem_in_transit_lab: 'collecting_sample',
  delivered_to_lab: 'sample_with_lab',
  lab_processing_blocked: 'sample_with_lab',
  completed: 'completed',
  corrected: 'completed',
  failure_to_deliver_to_customer: 'failed',
  failure_to_deliver_to_lab: 'failed',
  sample_error: 'failed',
  lost: 'failed',
  cancelled: 'cancelled',
  do_not_process: 'cancelled',
};

const APPOINTMENT_TOP_LEVEL: Partial<Record<LowStatus, OrderTopLevelStatus>> = {
  ordered: 'received',
  requisition_created: 'received',
  requisition_bypassed: 'received',
  appointment_pending: 'collecting_sample',
  appointment_scheduled: 'collecting_sample',
  appointment_cancelled: 'collecting_sample',
  partial_results: 'sample_with_lab',
  completed: 'completed',
  corrected: 'completed',
  sample_error: 'failed',
  cancelled: 'cancelled',
};

/** The top-level status of each low-level status a flow uses. */
const TOP_LEVEL: Record<OrderFlow, Partial<Record<LowStatus, OrderTopLevelStatus>>> = {
  testkit: withoutKeys(TESTKIT_TOP_LEVEL, ['awaiting_registration', 'registered']),
  registrable_testkit: TESTKIT_TOP_LEVEL,
  imported_testkit: withoutKeys(TESTKIT_TOP_LEVEL, [
    'awaiting_registration',
    'registered',
    'transit_customer',
    'out_for_delivery',
    'with_customer',
    'problem_in_transit_customer',
    'failure_to_deliver_to_customer',
  ]),
  // A walk-in order ends in redraw_available when the lab reports it final with biomarkers missing.
  walk_in_test: { ...APPOINTMENT_TOP_LEVEL, redraw_available: 'collecting_sample' },
  at_home_phlebotomy: { ...APPOINTMENT_TOP_LEVEL, draw_completed: 'collecting_sample' },
  // Junction's on-site statuses: the drawn sample is with the lab (sample_with_lab.on_site_collection.draw_completed).
  on_site_collection: {
    ordered: 'received',
    requisition_created: 'received',
    requisition_bypassed: 'received',
    draw_completed: 'sample_with_lab',
    partial_results: 'sample_with_lab',
    completed: 'completed',
    corrected: 'completed',
    sample_error: 'failed',
    cancelled: 'cancelled',
  },
};

function withoutKeys<V>(table: Partial<Record<LowStatus, V>>, keys: LowStatus[]): Partial<Record<LowStatus, V>> {
  return Object.fromEntries(Object.entries(table).filter(([key]) => !keys.includes(key as LowStatus))) as Partial<Record<LowStatus, V>>;
}

/**
 * Who produces each status. `workflow`: the order workflow itself (a requisition, a shipment, a
 * registration, a cancellation, a timer); `courier` and `lab`: facts the outside world reports
 * (tracking webhooks, lab events, or a sandbox simulation standing in for them); `appointment`:
 * the order's appointment child workflows (booking, confirmation, cancellation, the draw).
 */
export type StatusSource = 'workflow' | 'courier' | 'lab' | 'appointment';

const SOURCE: Partial<Record<LowStatus, StatusSource>> = {
  out_for_delivery: 'courier',
  with_customer: 'courier',
  problem_in_transit_customer: 'courier',
  failure_to_deliver_to_customer: 'courier',
  transit_lab: 'courier',
  problem_in_transit_lab: 'courier',
  failure_to_deliver_to_lab: 'courier',
  lost: 'courier',
  delivered_to_lab: 'courier',
  lab_processing_blocked: 'lab',
  completed: 'lab',
  corrected: 'lab',
  sample_error: 'lab',
  do_not_process: 'lab',
  partial_results: 'lab',
  redraw_available: 'lab',
  appointment_pending: 'appointment',
  appointment_scheduled: 'appointment',
  appointment_cancelled: 'appointment',
  draw_completed: 'appointment',
};

export function sourceOf(low: LowStatus): StatusSource {
  return SOURCE[low] ?? 'workflow';
}

export function isLowLevelStatus(value: string): value is LowStatus {
  return (ORDER_LOW_LEVEL_STATUSES as readonly string[]).includes(value);
}

/** Whether `low` belongs to `flow`. */
export function isStatusOf(flow: OrderFlow, low: LowStatus): boolean {
  return TOP_LEVEL[flow][low] !== undefined;
}

export function topLevelStatus(flow: OrderFlow, low: LowStatus): OrderTopLevelStatus {
  const top = TOP_LEVEL[flow][low];
  if (!top) throw new Error(`${low} is not a status of the ${flow} flow`);
  return top;
}

/** The order event status `<top>.<method>.<low>`, e.g. `received.testkit.ordered`. */
export function eventStatus(flow: OrderFlow, low: LowStatus): string {
  return `${topLevelStatus(flow, low)}.${collectionMethodOf(flow)}.${low}`;
}

/** Splits an event status into its parts; null when it is not `<top>.<method>.<low>` of a known low. */
export function parseEventStatus(status: string): { top: OrderTopLevelStatus; method: string; low: LowStatus } | null {
  const [top, method, low, ...rest] = status.split('.');
  if (rest.length > 0 || !top || !method || !low) return null;
  if (!(ORDER_TOP_LEVEL_STATUSES as readonly string[]).includes(top) || !isLowLevelStatus(low)) return null;
  return { top: top as OrderTopLevelStatus, method, low };
}

/** Every status a flow uses (keys of its top-level table). */
export function statusesOf(flow: OrderFlow): LowStatus[] {
  return Object.keys(TOP_LEVEL[flow]) as LowStatus[];
}
