/**
 * Providers' ISO 8601 times, as the real adapters read them: some carry the wearer's UTC offset,
 * some `Z`, some none at all (a device's local or UTC clock, as the provider documents).
 */

const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

/** Whether the time names its offset (`Z` included). */
export function hasOffset(iso: string): boolean {
  return OFFSET.test(iso);
}

/** The UTC offset an ISO 8601 time is written in, in seconds (0 for `Z` or none). */
export function offsetSeconds(iso: string): number {
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  if (!match) return 0;
  const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60;
  return match[1] === '-' ? -seconds : seconds;
}

/** The instant of an ISO 8601 time, one written without an offset taken as UTC. */
export function instantAsUtc(iso: string): number {
  return Date.parse(hasOffset(iso) ? iso : `${iso}Z`);
}

/** A `±hh:mm` offset (as WHOOP writes a record's `timezone_offset`) in seconds; 0 for anything else. */
export function offsetOfLabel(label: string | null | undefined): number {
  return label && /^[+-]\d{2}:?\d{2}$/.test(label) ? offsetSeconds(label) : 0;
}

/** Epoch ms as ISO 8601 in the given offset (the wearer's local time, as Junction's summaries write it); milliseconds only when there are any. */
export function atOffset(epochMs: number, offset: number): string {
  const local = new Date(epochMs + offset * 1000).toISOString().slice(0, epochMs % 1000 === 0 ? 19 : 23);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 3600)).padStart(2, '0')}:${String(Math.floor((abs % 3600) / 60)).padStart(2, '0')}`;
}
