import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header that carries a request id in and out (and into the workflows a request starts). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming x-request-id may look like to be kept: short, printable, no separators that could forge log fields. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The incoming id when it is acceptable, otherwise a fresh UUID. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : randomUUID();
}

/** Whether a value (from a Temporal header or an outbox row) is a request id worth carrying on. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && ACCEPTABLE_REQUEST_ID.test(value);
}

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `fn` on behalf of the request (or the workflow/activity it caused) with this id: the
 * Temporal client puts it into the workflows it starts, the outbox onto the events it writes.
 */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** The id of the request this code runs for, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
