import type { OrderLowLevelStatus } from '../../workflows/order/order-statuses';

/** An order event in words a patient understands (the timeline of the portal's order page). */
const EVENT_WORDS: Record<OrderLowLevelStatus, string> = {
  ordered: 'Your test was ordered.',
  requisition_created: 'Your lab requisition is ready.',
  requisition_bypassed: 'No requisition is needed for this test.',
  transit_customer: 'Your kit is on its way to you.',
  out_for_delivery: 'Your kit is out for delivery.',
  with_customer: 'Your kit was delivered to you.',
  transit_lab: 'Your sample is on its way to the lab.',
  delivered_to_lab: 'The lab received your sample.',
  completed: 'Your results are ready.',
  failure_to_deliver_to_lab: 'Your sample could not be delivered to the lab.',
  failure_to_deliver_to_customer: 'Your kit could not be delivered to you.',
  problem_in_transit_lab: 'There was a problem while your sample travelled to the lab.',
  problem_in_transit_customer: 'There was a problem while your kit travelled to you.',
  sample_error: 'The lab could not use your sample.',
  appointment_scheduled: 'Your appointment is booked.',
  appointment_cancelled: 'Your appointment was cancelled.',
  appointment_pending: 'Waiting for you to book an appointment.',
  draw_completed: 'Your sample was collected.',
  cancelled: 'This order was cancelled.',
  lost: 'Your sample was lost in transit.',
  do_not_process: 'The lab will not process this order.',
  partial_results: 'Some of your results are ready.',
  awaiting_registration: 'Waiting for your kit to be registered.',
  registered: 'Your kit is registered.',
  redraw_available: 'A new sample can be collected.',
  corrected: 'The lab corrected your results.',
  lab_processing_blocked: 'The lab has paused processing; we are on it.',
};

/** `<top>.<collection method>.<low>` → a sentence (unknown statuses stay readable). */
export function eventInWords(status: string): string {
  const low = status.split('.').pop() ?? status;
  return (EVENT_WORDS as Record<string, string>)[low] ?? low.replace(/_/g, ' ');
}

/**
 * The order's events in words, oldest first. An appointment booked again while one is booked is
 * a reschedule (at-home and walk-in orders record appointment_scheduled once more): it reads as a
 * change of time, and an appointment_pending before it (the provider confirming the new time)
 * as waiting for that. Only a cancelled appointment makes the next booking a new one.
 */
export function timelineInWords(statuses: readonly string[]): string[] {
  let booked = false;
  return statuses.map((status) => {
    const low = status.split('.').pop();
    if (low === 'appointment_cancelled') booked = false;
    if (low === 'appointment_pending' && booked) return 'Your new appointment time is waiting to be confirmed.';
    if (low !== 'appointment_scheduled') return eventInWords(status);
    const words = booked ? 'Your appointment time was changed.' : eventInWords(status);
    booked = true;
    return words;
  });
}

const METHOD_WORDS: Record<string, string> = {
  testkit: 'Test kit at home',
  walk_in_test: 'Visit a patient service center',
  at_home_phlebotomy: 'A phlebotomist visits you at home',
  on_site_collection: 'Collected on site',
};

export function collectionInWords(method: string): string {
  return METHOD_WORDS[method] ?? method.replace(/_/g, ' ');
}

/** `Tue 25 Nov 2026, 9:30 AM` in the given zone (the appointment's), or UTC with its name. */
export function whenInWords(iso: string | Date, timeZone = 'UTC'): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  const text = new Intl.DateTimeFormat('en-US', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(date);
  return text;
}

export function dayInWords(iso: string, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat('en-US', { weekday: 'long', day: 'numeric', month: 'long', timeZone }).format(new Date(iso));
}

export function timeInWords(iso: string, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone }).format(new Date(iso));
}
