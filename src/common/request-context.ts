import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

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
  /** The HTTP request's own logger (Fastify's child logger, with the request id); absent in activities. */
  logger?: Logger;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `fn` on behalf of the request (or the workflow/activity it caused) with this id: the
 * Temporal client puts it into the workflows it starts, the outbox onto the events it writes.
 */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** Runs an HTTP request's handler in its context: its id as above, and its logger for Nest's `Logger` (logging.module.ts). */
export function runInRequest<T>(requestId: string, logger: Logger, fn: () => T): T {
  return storage.run({ requestId, logger }, fn);
}

/** The id of the request this code runs for, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The logger of the HTTP request this code runs for, if any. */
export function currentRequestLogger(): Logger | undefined {
  return storage.getStore()?.logger;
}
