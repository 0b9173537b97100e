/** A delivery's states (event_deliveries.status), and how statements test the one that is not final. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'exhausted' | 'cancelled';

/**
 * "The delivery is pending" in statements that pick their deliveries by primary key (claims and
 * outcomes in deliveries.repository.ts, markUnenqueued in outbox.repository.ts). Spelled as "in
 * no final state" (the same rows: status is one of the four) because `status = 'pending'` lets the planner answer it from the partial index `event_deliveries_due`
 * (WHERE status = 'pending'): whenever the statistics say few deliveries are pending (taken while
 * the queue was empty, or a new table), it read every pending delivery through that index and
 * hash-joined them with the batch — a cost per statement that grows with the backlog, so at
 * exactly the moment deliveries pile up each claim and outcome got slower. Written this way, only
 * the primary key can find them: a lookup per delivery of the batch, whatever the statistics say.
 */
const FINAL_STATES = ['succeeded', 'exhausted', 'cancelled'] as const;
// A status added to DeliveryStatus must be added here too (or be pending): this fails to compile otherwise.
const allFinalStatesListed: Exclude<DeliveryStatus, 'pending' | (typeof FINAL_STATES)[number]> extends never ? true : never = true;
void allFinalStatesListed;
export const PENDING = `NOT IN (${FINAL_STATES.map((state) => `'${state}'`).join(', ')})`;
