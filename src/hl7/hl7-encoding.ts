/**
 * HL7 v2 text encoding with the standard delimiters (`|^~\&`). @medplum/core's Hl7Message splits
 * and joins on delimiters but neither escapes nor unescapes data (a `^` in a name would become a
 * component), so values pass through these on the way in and out.
 */

export const FIELD = '|';
export const COMPONENT = '^';
export const REPETITION = '~';
export const ESCAPE = '\\';
export const SUBCOMPONENT = '&';
/** MSH-2 as labflow sends it and as it accepts it (2.7's truncation character `#` allowed after). */
export const ENCODING_CHARACTERS = '^~\\&';

/** A data value with the delimiters escaped (\F\ \S\ \T\ \R\ \E\); line breaks become spaces. */
export function escapeValue(value: string): string {
  return value
    .replace(/\\/g, '\\E\\')
    .replace(/\|/g, '\\F\\')
    .replace(/\^/g, '\\S\\')
    .replace(/&/g, '\\T\\')
    .replace(/~/g, '\\R\\')
    .replace(/\r\n|\r|\n/g, ' ');
}

const ESCAPES: Record<string, string> = { F: '|', S: '^', T: '&', R: '~', E: '\\' };

/** A received value with its escape sequences undone (`\Xhh..\` as hex bytes, UTF-8; `\.br\` a line break). */
export function unescapeValue(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\([^\\]*)\\/g, (sequence, body: string) => {
    if (body in ESCAPES) return ESCAPES[body];
    if (/^X([0-9A-Fa-f]{2})+$/.test(body)) return Buffer.from(body.slice(1), 'hex').toString('utf8');
    if (body === '.br') return '\n';
    return sequence;
  });
}

/** One field from its components (each escaped); trailing empty components are left off. */
export function field(...components: Array<string | number | null | undefined>): string {
  const parts = components.map((component) => (component === null || component === undefined ? '' : escapeValue(String(component))));
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.join(COMPONENT);
}

/** One segment from its fields (already encoded with `field`); trailing empty fields are left off. */
export function segment(name: string, fields: Array<string | null | undefined>): string {
  const parts = fields.map((value) => value ?? '');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return [name, ...parts].join(FIELD);
}

/** An HL7 timestamp in UTC, `YYYYMMDDHHMMSS+0000`. */
export function hl7Timestamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}+0000`;
}

/** `YYYY-MM-DD` as an HL7 date, `YYYYMMDD`. */
export function hl7Date(date: string): string {
  return date.replace(/-/g, '').slice(0, 8);
}

/**
 * An HL7 timestamp (`YYYY[MM[DD[HH[MM[SS[.S+]]]]]][+/-ZZZZ]`) as a Date; no zone: UTC. Null when
 * it is not one.
 */
export function parseHl7Timestamp(value: string): Date | null {
  const match = /^(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:\.\d+)?([+-]\d{4})?$/.exec(value.trim());
  if (!match) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', zone] = match;
  const offset = zone ? `${zone.slice(0, 3)}:${zone.slice(3)}` : 'Z';
  const parsed = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}
