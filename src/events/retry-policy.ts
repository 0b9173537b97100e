/**
 * Pure delivery rules: what an attempt's outcome means and when the next attempt is due.
 *
 * Schedule (Junction/Svix): after a failed attempt the next one comes immediately, then after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — 1 + 8 attempts; after the last the delivery is
 * exhausted. `WEBHOOK_RETRY_SCHEDULE` replaces the delays (tests compress them to milliseconds).
 */

/** Longest Retry-After honoured; a larger value is clamped to it. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export interface AttemptOutcome {
  /** HTTP status, or null when there was no response (timeout, refused, DNS, private address). */
  statusCode: number | null;
  /** Retry-After of a 429/503 response, in ms. */
  retryAfterMs: number | null;
}

export type NextStep =
  | { kind: 'succeeded' }
  /** 410 Gone: the receiver asks never to be called again; the endpoint is disabled. */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'exhausted' };

export function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode <= 299;
}

/**
 * What follows attempt number `attempt` (1-based, counting every attempt so far, interrupted
 * and manual ones included).
 */
export function nextStep(attempt: number, outcome: AttemptOutcome, scheduleMs: readonly number[]): NextStep {
  if (isSuccess(outcome.statusCode)) return { kind: 'succeeded' };
  if (outcome.statusCode === 410) return { kind: 'gone' };
  if (attempt > scheduleMs.length) return { kind: 'exhausted' };
  const scheduled = scheduleMs[attempt - 1];
  const retryAfter = outcome.retryAfterMs === null ? 0 : Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS);
  return { kind: 'retry', delayMs: Math.max(scheduled, retryAfter) };
}

/**
 * Retry-After of a 429 or 503 response: delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms
 * from `now`; null when absent, unparsable or on another status.
 */
export function parseRetryAfter(statusCode: number, header: string | undefined, now: number = Date.now()): number | null {
  if ((statusCode !== 429 && statusCode !== 503) || !header) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}
