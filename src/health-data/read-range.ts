import { validationError } from '../common/errors';

/**
 * `start_date` / `end_date` of the read routes as Junction reads them: a date means its
 * 00:00:00 (start) or 23:59:59.999 (end) in UTC; a date-time without an offset is UTC.
 */
export interface ReadRange {
  fromMs: number;
  toMs: number;
  /** The UTC days the range touches (summary reads filter by day). */
  fromDay: string;
  toDay: string;
}

const DAY_MS = 86_400_000;

export function readRange(query: { start_date: string; end_date?: string }): ReadRange {
  const fromMs = toMs(query.start_date, false);
  const toMsValue = query.end_date ? toMs(query.end_date, true) : Date.now();
  if (toMsValue < fromMs) throw validationError(['query', 'end_date'], 'end_date must not be before start_date.', query.end_date);
  return {
    fromMs,
    toMs: toMsValue,
    fromDay: new Date(fromMs).toISOString().slice(0, 10),
    toDay: new Date(toMsValue).toISOString().slice(0, 10),
  };
}

function toMs(value: string, end: boolean): number {
  if (value.length === 10) return Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS - 1 : 0);
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
}
