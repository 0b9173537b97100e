import { z } from 'zod';

/** A real calendar date as `YYYY-MM-DD` (2023-02-30 is refused). */
export const isoDate = z.iso.date();

/** A time zone id from the IANA database (e.g. `Europe/London`), as the runtime's ICU knows it. */
export const ianaTimeZone = z.string().refine(isIanaTimeZone, {
  message: 'Must be an IANA time zone id such as "America/New_York".',
});

export function isIanaTimeZone(value: string): boolean {
  // Offsets such as "+01:00" are accepted by newer ICU builds but are not IANA ids.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
