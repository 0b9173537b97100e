import { createHash } from 'node:crypto';
import { badRequest } from '../errors';

/** The header an idempotent route reads its key from, spelled as that route's messages spell it. */
export type IdempotencyHeader = 'X-Idempotency-Key' | 'x-idempotency-key';

/** Keys are 1 to 255 characters (the column is text, the limit is the API's). */
export function requireValidKey(key: string, header: IdempotencyHeader): void {
  if (key.length === 0 || key.length > 255) throw badRequest(`${header} must be 1 to 255 characters.`);
}

/** 400: the key was first used with another request (another body, or another order). */
export function keyUsedForAnotherRequest(header: IdempotencyHeader, what: 'request' | 'booking') {
  return badRequest(`This ${header} was already used with a different request; use a new key for a new ${what}.`);
}

/** SHA-256 of the request in canonical JSON (keys sorted), so key order does not matter. */
export function fingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
