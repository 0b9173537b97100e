/**
 * The order lifecycle as pure tables: for each flow, the statuses an order may move between, the
 * terminal ones, the ones a customer may still cancel from, and the success path a sandbox
 * simulation walks. No I/O, no clock: the order workflow, the API and the unit tests share it.
 *
 * Statuses come in two levels (Junction's model): a low-level status such as `transit_customer`
 * and the top-level `status` it belongs to (`collecting_sample`); an order event's `status` is
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
 */
export const ORDER_FLOWS = ['testkit', 'registrable_testkit', 'imported_testkit', 'walk_in_test', 'at_home_phlebotomy'] as const;
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
      return flow;
  }
}

type Low = OrderLowLevelStatus;

const TESTKIT_TOP_LEVEL: Partial<Record<Low, OrderTopLevelStatus>> = {
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

const APPOINTMENT_TOP_LEVEL: Partial<Record<Low, OrderTopLevelStatus>> = {
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
const TOP_LEVEL: Record<OrderFlow, Partial<Record<Low, OrderTopLevelStatus>>> = {
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
};

function withoutKeys<V>(table: Partial<Record<Low, V>>, keys: Low[]): Partial<Record<Low, V>> {
  return Object.fromEntries(Object.entries(table).filter(([key]) => !keys.includes(key as Low))) as Partial<Record<Low, V>>;
}

// Courier legs, shared by both kit flows.
const OUTBOUND_FAILURES: Low[] = ['problem_in_transit_customer', 'failure_to_deliver_to_customer', 'lost'];
const INBOUND_FAILURES: Low[] = ['problem_in_transit_lab', 'failure_to_deliver_to_lab', 'lost'];
/** What the lab may report for a walk-in sample (collected at the service center). */
const WALK_IN_LAB: Low[] = ['partial_results', 'completed', 'redraw_available', 'sample_error'];
const AT_LAB: Partial<Record<Low, Low[]>> = {
  delivered_to_lab: ['completed', 'sample_error', 'do_not_process', 'lab_processing_blocked'],
  lab_processing_blocked: ['completed', 'sample_error', 'do_not_process'],
  completed: ['corrected'],
};

/**
 * Allowed transitions. Sample-to-lab window: a kit the customer never sent back (still
 * `with_customer`, `registered` or `requisition_created` after registration) becomes `lost`; one
 * in the courier's hands (`transit_lab`, `problem_in_transit_lab`) becomes
 * `failure_to_deliver_to_lab`.
 */
const TRANSITIONS: Record<OrderFlow, Partial<Record<Low, Low[]>>> = {
  testkit: {
    ordered: ['requisition_created', 'requisition_bypassed', 'cancelled'],
    requisition_created: ['transit_customer', 'cancelled'],
    requisition_bypassed: ['transit_customer', 'cancelled'],
    transit_customer: ['out_for_delivery', 'with_customer', ...OUTBOUND_FAILURES],
    out_for_delivery: ['with_customer', ...OUTBOUND_FAILURES],
    problem_in_transit_customer: ['transit_customer', 'out_for_delivery', 'with_customer', 'failure_to_deliver_to_customer', 'lost'],
    with_customer: ['transit_lab', 'delivered_to_lab', 'lost'],
    transit_lab: ['delivered_to_lab', ...INBOUND_FAILURES],
    problem_in_transit_lab: ['transit_lab', 'delivered_to_lab', 'failure_to_deliver_to_lab', 'lost'],
    ...AT_LAB,
  },
  registrable_testkit: {
    ordered: ['awaiting_registration', 'cancelled'],
    awaiting_registration: ['transit_customer', 'cancelled'],
    transit_customer: ['out_for_delivery', 'with_customer', 'registered', ...OUTBOUND_FAILURES],
    out_for_delivery: ['with_customer', 'registered', ...OUTBOUND_FAILURES],
    problem_in_transit_customer: [
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'registered',
      'failure_to_deliver_to_customer',
      'lost',
    ],
    // An unregistered kit is cancelled when the registration window closes.
    with_customer: ['registered', 'cancelled'],
    registered: ['requisition_created', 'requisition_bypassed', 'lost'],
    requisition_created: ['transit_lab', 'delivered_to_lab', 'lost'],
    requisition_bypassed: ['transit_lab', 'delivered_to_lab', 'lost'],
    transit_lab: ['delivered_to_lab', ...INBOUND_FAILURES],
    problem_in_transit_lab: ['transit_lab', 'delivered_to_lab', 'failure_to_deliver_to_lab', 'lost'],
    ...AT_LAB,
  },
  imported_testkit: {
    ordered: ['requisition_created', 'requisition_bypassed', 'cancelled'],
    requisition_created: ['transit_lab', 'delivered_to_lab', 'cancelled', 'lost'],
    requisition_bypassed: ['transit_lab', 'delivered_to_lab', 'cancelled', 'lost'],
    transit_lab: ['delivered_to_lab', ...INBOUND_FAILURES],
    problem_in_transit_lab: ['transit_lab', 'delivered_to_lab', 'failure_to_deliver_to_lab', 'lost'],
    ...AT_LAB,
  },
  // Walk-in: appointment_pending ⇄ appointment_scheduled (pending while a booking or a reschedule
  // awaits the provider's confirmation); a patient may also walk in without an appointment, so
  // lab facts may follow the requisition directly. appointment_pending may repeat with a
  // status_detail saying why (a sandbox booking that lost its slot and is booking another).
  walk_in_test: {
    ordered: ['requisition_created', 'requisition_bypassed', 'cancelled'],
    requisition_created: ['appointment_pending', 'appointment_scheduled', ...WALK_IN_LAB, 'cancelled'],
    requisition_bypassed: ['appointment_pending', 'appointment_scheduled', ...WALK_IN_LAB, 'cancelled'],
    appointment_pending: ['appointment_pending', 'appointment_scheduled', 'appointment_cancelled', ...WALK_IN_LAB, 'cancelled'],
    appointment_scheduled: ['appointment_pending', 'appointment_scheduled', 'appointment_cancelled', ...WALK_IN_LAB, 'cancelled'],
    appointment_cancelled: ['appointment_pending', 'appointment_scheduled', ...WALK_IN_LAB, 'cancelled'],
    partial_results: ['partial_results', 'completed', 'redraw_available', 'sample_error'],
    completed: ['corrected'],
  },
  // At-home phlebotomy: appointment_scheduled loops on itself at each reschedule; the
  // phlebotomist's completed draw is draw_completed; the lab follows.
  at_home_phlebotomy: {
    ordered: ['requisition_created', 'requisition_bypassed', 'cancelled'],
    requisition_created: ['appointment_pending', 'appointment_scheduled', 'cancelled'],
    requisition_bypassed: ['appointment_pending', 'appointment_scheduled', 'cancelled'],
    appointment_pending: ['appointment_pending', 'appointment_scheduled', 'appointment_cancelled', 'cancelled'],
    appointment_scheduled: ['appointment_scheduled', 'appointment_pending', 'appointment_cancelled', 'draw_completed'],
    appointment_cancelled: ['appointment_pending', 'appointment_scheduled', 'cancelled'],
    draw_completed: ['partial_results', 'completed', 'sample_error', 'cancelled'],
    partial_results: ['partial_results', 'completed', 'sample_error'],
    completed: ['corrected'],
  },
};

/** Where an order's lifecycle ends. `completed` may still be `corrected` by the lab later. */
const TERMINAL: readonly Low[] = [
  'completed',
  'corrected',
  'cancelled',
  'do_not_process',
  'failure_to_deliver_to_customer',
  'failure_to_deliver_to_lab',
  'sample_error',
  'lost',
  'redraw_available',
];

/**
 * Statuses a customer may cancel from (Junction: ordered, requisition_created,
 * requisition_bypassed, awaiting_registration, registered; never once a kit has started
 * shipping, so `registered`, which follows shipping, is not cancellable for kits).
 */
const CANCELLABLE: Record<OrderFlow, readonly Low[]> = {
  testkit: ['ordered', 'requisition_created', 'requisition_bypassed'],
  registrable_testkit: ['ordered', 'awaiting_registration'],
  // Nothing ships: cancellable until the sample is on its way to the lab.
  imported_testkit: ['ordered', 'requisition_created', 'requisition_bypassed'],
  // Appointment flows: until the sample is drawn (at-home: also once drawn, before the lab has it).
  // Cancelling an at-home order cancels its appointment first (appointment_cancelled, then
  // cancelled); a walk-in order leaves its service-center appointment to the patient.
  walk_in_test: ['ordered', 'requisition_created', 'requisition_bypassed', 'appointment_pending', 'appointment_scheduled', 'appointment_cancelled'],
  at_home_phlebotomy: [
    'ordered',
    'requisition_created',
    'requisition_bypassed',
    'appointment_pending',
    'appointment_scheduled',
    'appointment_cancelled',
    'draw_completed',
  ],
};

/** Statuses in which a registrable kit can be registered: it has shipped and is not registered. */
export const REGISTRABLE_FROM: readonly Low[] = ['transit_customer', 'out_for_delivery', 'problem_in_transit_customer', 'with_customer'];

/** Statuses in which `activate_by` may still change (PATCH /v3/order/{id}). */
export const ACTIVATE_BY_CHANGEABLE: readonly Low[] = ['ordered', 'awaiting_registration'];

/** The happy path of each flow, in order (a sandbox simulation walks it). */
export const SUCCESS_PATH: Record<OrderFlow, readonly Low[]> = {
  testkit: ['ordered', 'requisition_created', 'transit_customer', 'out_for_delivery', 'with_customer', 'transit_lab', 'delivered_to_lab', 'completed'],
  registrable_testkit: [
    'ordered',
    'awaiting_registration',
    'transit_customer',
    'out_for_delivery',
    'with_customer',
    'registered',
    'requisition_created',
    'transit_lab',
    'delivered_to_lab',
    'completed',
  ],
  imported_testkit: ['ordered', 'requisition_created', 'transit_lab', 'delivered_to_lab', 'completed'],
  walk_in_test: ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'partial_results', 'completed'],
  at_home_phlebotomy: [
    'ordered',
    'requisition_created',
    'appointment_pending',
    'appointment_scheduled',
    'draw_completed',
    'partial_results',
    'completed',
  ],
};

/**
 * Who produces each status. `workflow`: the order workflow itself (a requisition, a shipment, a
 * registration, a cancellation, a timer); `courier` and `lab`: facts the outside world reports
 * (tracking webhooks, lab events, or a sandbox simulation standing in for them); `appointment`:
 * the order's appointment child workflows (booking, confirmation, cancellation, the draw).
 */
export type StatusSource = 'workflow' | 'courier' | 'lab' | 'appointment';

const SOURCE: Partial<Record<Low, StatusSource>> = {
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

export function sourceOf(low: Low): StatusSource {
  return SOURCE[low] ?? 'workflow';
}

export function isLowLevelStatus(value: string): value is Low {
  return (ORDER_LOW_LEVEL_STATUSES as readonly string[]).includes(value);
}

/** Whether `low` belongs to `flow`. */
export function isStatusOf(flow: OrderFlow, low: Low): boolean {
  return TOP_LEVEL[flow][low] !== undefined;
}

export function topLevelStatus(flow: OrderFlow, low: Low): OrderTopLevelStatus {
  const top = TOP_LEVEL[flow][low];
  if (!top) throw new Error(`${low} is not a status of the ${flow} flow`);
  return top;
}

/** The order event status `<top>.<method>.<low>`, e.g. `received.testkit.ordered`. */
export function eventStatus(flow: OrderFlow, low: Low): string {
  return `${topLevelStatus(flow, low)}.${collectionMethodOf(flow)}.${low}`;
}

/** Splits an event status into its parts; null when it is not `<top>.<method>.<low>` of a known low. */
export function parseEventStatus(status: string): { top: OrderTopLevelStatus; method: string; low: Low } | null {
  const [top, method, low, ...rest] = status.split('.');
  if (rest.length > 0 || !top || !method || !low) return null;
  if (!(ORDER_TOP_LEVEL_STATUSES as readonly string[]).includes(top) || !isLowLevelStatus(low)) return null;
  return { top: top as OrderTopLevelStatus, method, low };
}

export function allowedTransitions(flow: OrderFlow, from: Low): readonly Low[] {
  return TRANSITIONS[flow][from] ?? [];
}

export function canTransition(flow: OrderFlow, from: Low, to: Low): boolean {
  return allowedTransitions(flow, from).includes(to);
}

/** Throws unless `from → to` is in the table (the workflow asserts every transition it records). */
export function assertTransition(flow: OrderFlow, from: Low, to: Low): void {
  if (!canTransition(flow, from, to)) throw new Error(`Illegal ${flow} order transition ${from} → ${to}`);
}

export function isTerminal(low: Low): boolean {
  return TERMINAL.includes(low);
}

export function isCancellable(flow: OrderFlow, low: Low): boolean {
  return CANCELLABLE[flow].includes(low);
}

/** Every status a flow uses (keys of its top-level table). */
export function statusesOf(flow: OrderFlow): Low[] {
  return Object.keys(TOP_LEVEL[flow]) as Low[];
}

/** The top-level status a simulation's `final_status` names, also given as just a low-level status. */
export function parseFinalStatus(flow: OrderFlow, value: string): Low | null {
  const parsed = parseEventStatus(value);
  const low = parsed ? parsed.low : isLowLevelStatus(value) ? value : null;
  if (!low || !isStatusOf(flow, low)) return null;
  if (parsed && (parsed.method !== collectionMethodOf(flow) || parsed.top !== topLevelStatus(flow, low))) return null;
  return low;
}

/**
 * The next fact a sandbox simulation reports from `current`, heading for `final` (null: the
 * success path's end): `final` itself as soon as it is reachable by a courier or lab fact,
 * otherwise the next courier/lab status on the success path. Null when the simulation has
 * nothing to report here: `final` is reached, or the next step is the workflow's own (a
 * requisition, a shipment, a registration).
 */
export function simulatedNext(flow: OrderFlow, current: Low, final: Low | null): Low | null {
  if (final !== null && current === final) return null;
  if (isTerminal(current)) return null;
  const reportable = (low: Low) => sourceOf(low) === 'courier' || sourceOf(low) === 'lab';
  if (final !== null && reportable(final) && canTransition(flow, current, final)) return final;
  const path = SUCCESS_PATH[flow];
  const index = path.indexOf(current);
  if (index < 0 || index === path.length - 1) return null;
  const next = path[index + 1];
  // The workflow's own steps and the appointment's are not facts a simulation reports.
  return sourceOf(next) === 'courier' || sourceOf(next) === 'lab' ? next : null;
}

/**
 * Whether a simulation heading for `final` can ever reach it from `current` (walking the success
 * path, then one step aside). Used to refuse an impossible `final_status` before signalling.
 */
export function simulationCanReach(flow: OrderFlow, current: Low, final: Low): boolean {
  const path = SUCCESS_PATH[flow];
  const start = path.indexOf(current);
  if (start < 0) return current === final;
  for (const step of path.slice(start)) {
    if (step === final || canTransition(flow, step, final)) return true;
  }
  return false;
}
