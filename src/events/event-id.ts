import { uuidV5 } from '../common/uuid-v5';

/** UUID v5 namespace of labflow event ids (fixed forever: changing it changes every derived id). */
export const EVENT_ID_NAMESPACE = 'bb22f691-c3d1-4a26-8082-1666568af56e';

/**
 * The event id for an idempotency key: the same key always gives the same id, so writing the
 * event twice (a retried request or activity) inserts it once. Keys should name the cause, e.g.
 * `order:<order_id>:transition:<seq>:labtest.order.updated` or, in a workflow,
 * `${workflowInfo().workflowId}:<step>` (pass that string as NewEvent.idempotencyKey: workflow
 * code cannot hash, the outbox does it).
 */
export function eventIdFor(idempotencyKey: string): string {
  return uuidV5(idempotencyKey, EVENT_ID_NAMESPACE);
}
