/**
 * The order lifecycle as pure tables: for each flow, the statuses an order may move between, the
 * terminal ones, the ones a customer may still cancel or register from, the success path a sandbox
 * simulation walks, and each state question with its refusal (the API's pre-checks and the order
 * workflow's validators ask the same functions, so they refuse with the same words). No I/O, no
 * clock. The statuses themselves are in ./order-statuses.ts.
 */
import {
  collectionMethodOf,
  eventStatus,
  isLowLevelStatus,
  isStatusOf,
  type LowStatus,
  type OrderFlow,
  parseEventStatus,
  sourceOf,
  topLevelStatus,
} from './order-statuses';

// Courier legs, shared by both kit flows.
const OUTBOUND_FAILURES: LowStatus[] = ['problem_in_transit_customer', 'failure_to_deliver_to_customer', 'lost'];
const INBOUND_FAILURES: LowStatus[] = ['problem_in_transit_lab', 'failure_to_deliver_to_lab', 'lost'];
/** What the lab may report for a walk-in sample (collected at the service center). */
const WALK_IN_LAB: LowStatus[] = ['partial_results', 'completed', 'redraw_available', 'sample_error'];
const AT_LAB: Partial<Record<LowStatus, LowStatus[]>> = {
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
const TRANSITIONS: Record<OrderFlow, Partial<Record<LowStatus, LowStatus[]>>> = {
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
    problem_in_transit_customer: ['transit_customer', 'out_for_delivery', 'with_customer', 'registered', 'failure_to_deliver_to_customer', 'lost'],
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
  // On-site collection: the team reports the draw (draw_completed, the sample is then the lab's);
  // the lab follows. No appointment, nothing ships.
  on_site_collection: {
    ordered: ['requisition_created', 'requisition_bypassed', 'cancelled'],
    requisition_created: ['draw_completed', 'cancelled'],
    requisition_bypassed: ['draw_completed', 'cancelled'],
    draw_completed: ['partial_results', 'completed', 'sample_error'],
    partial_results: ['partial_results', 'completed', 'sample_error'],
    completed: ['corrected'],
  },
};

/** Where an order's lifecycle ends. `completed` may still be `corrected` by the lab later. */
const TERMINAL: readonly LowStatus[] = [
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
const CANCELLABLE: Record<OrderFlow, readonly LowStatus[]> = {
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
  // Until the sample is drawn: once drawn it is the lab's.
  on_site_collection: ['ordered', 'requisition_created', 'requisition_bypassed'],
};

/** Statuses in which a registrable kit can be registered: it has shipped and is not registered. */
export const REGISTRABLE_FROM: readonly LowStatus[] = ['transit_customer', 'out_for_delivery', 'problem_in_transit_customer', 'with_customer'];

/** Statuses in which `activate_by` may still change (PATCH /v3/order/{id}). */
export const ACTIVATE_BY_CHANGEABLE: readonly LowStatus[] = ['ordered', 'awaiting_registration'];

/** The happy path of each flow, in order (a sandbox simulation walks it). */
export const SUCCESS_PATH: Record<OrderFlow, readonly LowStatus[]> = {
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
  at_home_phlebotomy: ['ordered', 'requisition_created', 'appointment_pending', 'appointment_scheduled', 'draw_completed', 'partial_results', 'completed'],
  on_site_collection: ['ordered', 'requisition_created', 'draw_completed', 'partial_results', 'completed'],
};

export function allowedTransitions(flow: OrderFlow, from: LowStatus): readonly LowStatus[] {
  return TRANSITIONS[flow][from] ?? [];
}

export function canTransition(flow: OrderFlow, from: LowStatus, to: LowStatus): boolean {
  return allowedTransitions(flow, from).includes(to);
}

/** Throws unless `from → to` is in the table (the workflow asserts every transition it records). */
export function assertTransition(flow: OrderFlow, from: LowStatus, to: LowStatus): void {
  if (!canTransition(flow, from, to)) throw new Error(`Illegal ${flow} order transition ${from} → ${to}`);
}

export function isTerminal(low: LowStatus): boolean {
  return TERMINAL.includes(low);
}

export function isCancellable(flow: OrderFlow, low: LowStatus): boolean {
  return CANCELLABLE[flow].includes(low);
}

/** The top-level status a simulation's `final_status` names, also given as just a low-level status. */
export function parseFinalStatus(flow: OrderFlow, value: string): LowStatus | null {
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
export function simulatedNext(flow: OrderFlow, current: LowStatus, final: LowStatus | null): LowStatus | null {
  if (final !== null && current === final) return null;
  if (isTerminal(current)) return null;
  const reportable = (low: LowStatus) => sourceOf(low) === 'courier' || sourceOf(low) === 'lab';
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
export function simulationCanReach(flow: OrderFlow, current: LowStatus, final: LowStatus): boolean {
  const path = SUCCESS_PATH[flow];
  const start = path.indexOf(current);
  if (start < 0) return current === final;
  for (const step of path.slice(start)) {
    if (step === final || canTransition(flow, step, final)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// State questions with their refusals: null when the order may, otherwise why not. The API's
// pre-checks and the workflow's validators both ask these. What only the workflow knows (whether
// its kit has started shipping, whether the order's row is gone) is passed in; the API leaves it out.

/** What the order workflow knows beyond the order's status. */
export interface WorkflowKnowledge {
  /** The workflow has started shipping the kit (from then on the order cannot be cancelled). */
  shippingStarted?: boolean;
  /** The order's row is gone (its user was erased): the order has ended whatever its status. */
  gone?: boolean;
}

/** Why a finished order takes no more changes (null: it has not finished). */
export function endedRefusal(flow: OrderFlow, low: LowStatus, known: WorkflowKnowledge = {}): string | null {
  return known.gone || isTerminal(low) ? `The order is ${eventStatus(flow, low)}.` : null;
}

/** Why the order cannot be cancelled now (null: it can). */
export function cancelRefusal(flow: OrderFlow, low: LowStatus, known: WorkflowKnowledge = {}): string | null {
  const ended = known.gone || isTerminal(low);
  if (!ended && !known.shippingStarted && isCancellable(flow, low)) return null;
  const reason = known.shippingStarted && !ended ? 'the kit has started shipping' : `it is ${eventStatus(flow, low)}`;
  return `Order cannot be cancelled: ${reason}.`;
}

/**
 * Why the kit cannot be registered now (null: it can). `registered`: it already is (for the
 * workflow also: another registration is under way).
 */
export function registrationRefusal(flow: OrderFlow, low: LowStatus, registered: boolean, known: WorkflowKnowledge = {}): string | null {
  if (flow !== 'registrable_testkit') return 'This sample_id belongs to a kit that was registered at ordering.';
  if (registered) return 'This kit is already registered.';
  if (!known.gone && REGISTRABLE_FROM.includes(low)) return null;
  if (!known.gone && KIT_NOT_SHIPPED.includes(low)) return 'This kit cannot be registered yet: it has not shipped.';
  return `This kit cannot be registered: the order is ${eventStatus(flow, low)}.`;
}

/** A registrable kit's statuses before it ships. */
const KIT_NOT_SHIPPED: readonly LowStatus[] = ['ordered', 'awaiting_registration'];

/** Statuses in which an on-site collection order's draw can be reported: its requisition exists. */
export const ON_SITE_DRAWABLE_FROM: readonly LowStatus[] = ['requisition_created', 'requisition_bypassed'];

/** Why the order's on-site draw cannot be reported now (null: it can), an order of another method included. */
export function onSiteDrawRefusal(flow: OrderFlow, low: LowStatus, known: WorkflowKnowledge = {}): string | null {
  if (flow !== 'on_site_collection') return `Only on-site collection orders report their draw this way; this is a ${collectionMethodOf(flow)} order.`;
  const ended = endedRefusal(flow, low, known);
  if (ended) return ended;
  if (ON_SITE_DRAWABLE_FROM.includes(low)) return null;
  if (low === 'ordered') return 'The draw cannot be reported yet: the order has no requisition (it is received.on_site_collection.ordered).';
  return `The sample has already been drawn: the order is ${eventStatus(flow, low)}.`;
}
