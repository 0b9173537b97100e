import { createHash } from 'node:crypto';

/** UUID v5 namespace of labflow event ids (fixed forever: changing it changes every derived id). */
export const EVENT_ID_NAMESPACE = 'bb22f691-c3d1-4a26-8082-1666568af56e';

/** RFC 9562 UUID version 5 (SHA-1 of namespace bytes + name). */
export function uuidV5(name: string, namespace: string = EVENT_ID_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`Not a UUID: ${namespace}`);
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The event id for an idempotency key: the same key always gives the same id, so writing the
 * event twice (a retried request or activity) inserts it once. Keys should name the cause, e.g.
 * `order:<order_id>:transition:<seq>:labtest.order.updated` or, in a workflow,
 * `${workflowInfo().workflowId}:<step>` (pass that string as NewEvent.idempotencyKey: workflow
 * code cannot hash, the outbox does it).
 */
export function eventIdFor(idempotencyKey: string): string {
  return uuidV5(idempotencyKey);
}
