/**
 * Patch ids of the order workflow (workflow versioning). Each is asked for with `patched()` where
 * the new behaviour first differs from the old, so a recorded history without the marker replays
 * the old path unchanged. The strings are in recorded histories: never change them.
 * - SANDBOX_RUNS_OWN_STEPS: a sandbox order runs labflow's own steps (requisition, waiting for an
 *   appointment, recording bookings) at once, as in production; only outside facts wait for
 *   `POST /v3/order/{id}/test` (./sandbox.ts).
 * - APPOINTMENT_REPORTS_IN_ORDER: appointment reports that queued up while a transition was in
 *   flight are applied one by one in order (not just the latest), and before courier/lab facts
 *   (./appointments.ts, the collecting stage in ./order-workflow.ts).
 * - SIMULATED_BOOKING_RETRIES: a sandbox booking the provider refused (a slot taken by another
 *   order) is recorded as an event and retried with a fresh slot instead of failing the workflow
 *   (./sandbox.ts).
 * - LAB_ORDER_RESEND: a lab reached by message (HL7) that refuses the order message (ACK AE/AR)
 *   leaves the run waiting in the requisition stage for ops' resendLabOrder signal, then sends
 *   again, instead of moving on (./order-workflow.ts createRequisition). Asked for only when a
 *   refusal came back, which no history recorded before HL7 labs has.
 * - LAB_ORDER_CANCEL: cancelling an order a lab reached by message took (ACK AA) tells that lab
 *   (ORC CA, the cancelLabOrder activity) after the cancellation is recorded (./cancellation.ts).
 *   Asked for only then, which no history recorded before HL7 labs has.
 * - LAB_UPDATES_BY_MESSAGE: a lab update naming the lab's message it came from (HL7) is taken
 *   once per message: the listener may hand a message over twice (a resend after it stopped
 *   between the signal and marking the message handed over) (./facts.ts). Asked for only for
 *   updates with a message id, which no history recorded before has.
 * - LAB_CORRECTIONS_IN_RUN: a lab's correction that reached the run after the order completed
 *   (the run finishing) corrects the stored results (correctLabResults) instead of being dropped
 *   (./facts.ts, ./steps.ts finish). Asked for only when such a correction is waiting.
 * - PARTNER_REPORTS_BY_EVENT: a courier or lab report naming the partner's event id (partner
 *   webhook `event_id`) is taken once per source and id: the API may signal it twice (killed after
 *   the signal and before its receipt committed, the partner's resend signals again) (./facts.ts).
 *   The order workflow never continues as new, so the ids it took live as long as the order.
 *   Asked for only for reports with an event id.
 * - ORDER_REMINDERS: an order whose input carries a reminder schedule runs its reminder timers
 *   and sends reminders (./reminders.ts); asked for once, at the start of the run.
 */
export const SANDBOX_RUNS_OWN_STEPS = 'sandbox-runs-own-steps';
export const APPOINTMENT_REPORTS_IN_ORDER = 'appointment-reports-in-order';
export const SIMULATED_BOOKING_RETRIES = 'simulated-booking-retries';
export const ORDER_REMINDERS = 'order-reminders';
export const LAB_ORDER_RESEND = 'lab-order-resend';
export const LAB_ORDER_CANCEL = 'lab-order-cancel';
export const LAB_UPDATES_BY_MESSAGE = 'lab-updates-by-message';
export const LAB_CORRECTIONS_IN_RUN = 'lab-corrections-in-run';
export const PARTNER_REPORTS_BY_EVENT = 'partner-reports-by-event';
