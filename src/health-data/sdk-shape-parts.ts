import { z } from 'zod';

/** Pieces every reader of the mobile SDKs' payloads uses (sdk-summary-shapes, sdk-record-shapes, sdk-nested-samples). */

/** The SDKs' dates: ISO 8601 with an offset (iOS sends whole seconds). */
export const sdkDate = z.iso.datetime({ offset: true });
export const finiteNumber = z.number().refine(Number.isFinite, { message: 'Must be a finite number.' });
export const optionalNumber = finiteNumber.nullish();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An SDK's id as labflow's id when it is a UUID (lower-cased), else none. */
export const uuidOrUndefined = (id: string | null | undefined) => (id && UUID.test(id) ? id.toLowerCase() : undefined);

/** Fields whose value is set (Junction leaves absent what a source does not report). */
export function compact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null));
}

/** Whether an item is an object carrying `field` (how an SDK's shape is told from labflow's). */
export const hasField = (item: unknown, field: string): boolean => typeof item === 'object' && item !== null && field in item;
