/**
 * Wearable sample Observations as NDJSON lines without building an object per sample: for each
 * series (and shape: instant or interval, diastolic present or not) the line that
 * `wearableObservation` + `JSON.stringify` writes is built once with marker values and cut at
 * them; each sample then only joins the pieces with its own id, times and values. The constant
 * parts come from the mapping itself, so a line is byte for byte what the object path writes
 * (test/unit/fhir-wearable-ndjson.test.ts holds the two side by side). The export writes the
 * lines as bytes, straight from its COPY's bytes into the part (SeriesLines.write: no string per
 * field or line); the search takes them as text (SeriesLines.json). Pure, no I/O.
 */
import type { SampleRow, SeriesRow } from '../fhir-read-model';
import { type CopyLine, DIASTOLIC, type SampleFields, END, type PartBuffer, TS, UPDATED, VALUE } from './copy-line';
import { wearableObservation } from '../wearable-mapping';

// Marker values: chosen so that each prints once, unmistakably, in the mapped line (a series id has no '-').
const MARK_TS_US = '-777777777777777';
const MARK_TS = new Date(Date.UTC(2101, 0, 1, 0, 0, 0, 1));
const MARK_END = new Date(Date.UTC(2101, 0, 1, 0, 0, 0, 2));
const MARK_UPDATED = new Date(Date.UTC(2101, 0, 1, 0, 0, 0, 3));
const MARK_VALUE = 987654321.25;
const MARK_DIASTOLIC = 987654322.75;

type Hole = 'id' | 'ts' | 'end' | 'updated' | 'value' | 'diastolic';

const MARKS: Array<[string, Hole]> = [
  [MARK_TS_US, 'id'],
  [MARK_TS.toISOString(), 'ts'],
  [MARK_END.toISOString(), 'end'],
  [MARK_UPDATED.toISOString(), 'updated'],
  [JSON.stringify(MARK_VALUE), 'value'],
  [JSON.stringify(MARK_DIASTOLIC), 'diastolic'],
];
const MARK_PATTERN = new RegExp(MARKS.map(([text]) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
const HOLE_OF = new Map(MARKS);

/**
 * A line cut at its markers: pieces[0] hole[0] pieces[1] … pieces[n] (and the pieces as UTF-8, with
 * their total length); or, should a marker be ambiguous, the mapping itself.
 */
type Template = { pieces: string[]; holes: Hole[]; bytes: Buffer[]; fixed: number } | 'map';

/** Postgres float8 text without an exponent: the shortest round-trip digits, which JavaScript writes alike. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** A Postgres float8 as JSON.stringify writes the number (NaN and ±Infinity as null; the exponent forms differ). */
const number = (text: string): string => (PLAIN_NUMBER.test(text) && text !== '-0' ? text : JSON.stringify(Number(text)));

function fill(hole: Hole, sample: SampleFields): string {
  switch (hole) {
    case 'id':
      return sample.tsUs;
    case 'ts':
      return isoOfMicros(sample.tsUs);
    case 'end':
      return isoOfMicros(sample.endUs!);
    case 'updated':
      return isoOfMicros(sample.updatedUs);
    case 'value':
      return number(sample.value!);
    case 'diastolic':
      return number(sample.diastolic!);
  }
}

const DAY_MS = 86_400_000;
/** Years 0000 to 9999, where toISOString writes `YYYY-MM-DDT…` (0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z). */
const [MIN_MS, MAX_MS] = [-62_167_219_200_000, 253_402_300_799_999];
const isoScratch = Buffer.alloc(24);
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/** Date.prototype.toISOString, through writeIso (the byte path's own) for the years it covers. */
function isoOfMs(ms: number): string {
  if (!inRange(ms)) return new Date(ms).toISOString();
  writeIso(isoScratch, 0, ms);
  return isoScratch.toString('latin1', 0, 24);
}

/** `YYYY-MM-DDT` as bytes by day number (writeIso). */
const dayPrefixBytes = new Map<number, Buffer>();

/** An ISO time (toISOString's text) written as ASCII into `out` at `at`, for a time within the years 0000-9999 (inRange); answers where it ends. */
function writeIso(out: Buffer, at: number, ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixBytes.get(day);
  if (prefix === undefined) {
    if (dayPrefixBytes.size >= 4096) dayPrefixBytes.clear();
    prefix = Buffer.from(new Date(day * DAY_MS).toISOString().slice(0, 11), 'latin1');
    dayPrefixBytes.set(day, prefix);
  }
  out.set(prefix, at);
  at += 11;
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  rest -= seconds * 1000;
  out[at] = 48 + Math.floor(hours / 10);
  out[at + 1] = 48 + (hours % 10);
  out[at + 2] = 58; // :
  out[at + 3] = 48 + Math.floor(minutes / 10);
  out[at + 4] = 48 + (minutes % 10);
  out[at + 5] = 58;
  out[at + 6] = 48 + Math.floor(seconds / 10);
  out[at + 7] = 48 + (seconds % 10);
  out[at + 8] = 46; // .
  out[at + 9] = 48 + Math.floor(rest / 100);
  out[at + 10] = 48 + (Math.floor(rest / 10) % 10);
  out[at + 11] = 48 + (rest % 10);
  out[at + 12] = 90; // Z
  return at + 13;
}

/** Whether toISOString writes the time as `YYYY-MM-DDT…` (writeIso's range; NaN is not). */
const inRange = (ms: number): boolean => ms >= MIN_MS && ms <= MAX_MS;

/** Safe-integer epoch microseconds as milliseconds, rounded down (NaN stays NaN). */
function msOfMicros(us: number): number {
  const micros = ((us % 1000) + 1000) % 1000;
  return (us - micros) / 1000;
}

/** Epoch microseconds as the driver's Date (milliseconds, rounded down) in ISO form. */
export const isoOfMicros = (us: string): string => isoOfMs(splitMicros(us).ms);

/** Epoch microseconds (bigint text) as milliseconds rounded down and the microseconds past them, exactly. */
function splitMicros(us: string): { ms: number; micros: number } {
  const n = Number(us);
  if (Number.isSafeInteger(n)) {
    const micros = ((n % 1000) + 1000) % 1000;
    return { ms: (n - micros) / 1000, micros };
  }
  const big = BigInt(us);
  const micros = Number(((big % 1000n) + 1000n) % 1000n);
  return { ms: Number((big - BigInt(micros)) / 1000n), micros };
}

/** Epoch microseconds as a keyset position's time (UTC, microsecond precision, as FhirReadModel's AT writes it). */
export function keysetOfMicros(us: string): string {
  const { ms, micros } = splitMicros(us);
  return `${new Date(ms).toISOString().slice(0, 23)}${PAD3[micros]}`;
}

/** Turns samples of the series it was made for into NDJSON lines (each with its newline), or null for one the mapping does not serve. */
export class SeriesLines {
  /** Templates by shape: 2 for an interval, plus 1 with a diastolic value. */
  private readonly templates: Array<Template | null | undefined> = [undefined, undefined, undefined, undefined];

  constructor(readonly series: SeriesRow) {}

  line(sample: SampleFields): string | null {
    const json = this.json(sample);
    return json === null ? null : `${json}\n`;
  }

  /** The sample's Observation as JSON text (`line` without the newline), or null for one the mapping does not serve. */
  json(sample: SampleFields): string | null {
    if (sample.value === null) return null;
    const interval = sample.endUs !== null && sample.endUs !== sample.tsUs && splitMicros(sample.endUs).ms !== splitMicros(sample.tsUs).ms;
    const template = this.shaped(interval, sample.diastolic !== null);
    if (template === null) return null;
    if (template === 'map') return JSON.stringify(wearableObservation(sampleRow(this.series, sample)));
    const { pieces, holes } = template;
    let out = pieces[0];
    for (let i = 0; i < holes.length; i++) {
      out += fill(holes[i], sample) + pieces[i + 1];
    }
    return out;
  }

  /**
   * Writes the sample of a COPY line (its fields located by CopyLine) into `part` as an NDJSON
   * line: the template's bytes, and each hole written from the COPY's own bytes (digits, float8
   * text) or from arithmetic (ISO times), without a string. A sample outside that (a float8 in
   * exponent form, NaN, -0, a time beyond the years 0000-9999 or past 2^53 µs) goes through
   * `line`. Answers whether a line was written (none for a sample without a value, or a resource
   * the mapping does not serve).
   */
  write(part: PartBuffer, row: CopyLine): boolean {
    if (row.isNull(VALUE)) return false;
    const ts = row.integer(TS);
    const updated = row.integer(UPDATED);
    const end = row.isNull(END) ? null : row.integer(END);
    const diastolic = !row.isNull(DIASTOLIC);
    const tsMs = msOfMicros(ts);
    const endMs = end === null ? 0 : msOfMicros(end);
    const updatedMs = msOfMicros(updated);
    const fast =
      inRange(tsMs) && inRange(updatedMs) && (end === null || inRange(endMs)) && row.plainNumber(VALUE) && (!diastolic || row.plainNumber(DIASTOLIC));
    const template = fast ? this.shaped(end !== null && end !== ts && endMs !== tsMs, diastolic) : 'map';
    if (template === null) return false;
    if (template === 'map') {
      const line = this.line(row.fields());
      if (line !== null) part.add(line);
      return line !== null;
    }
    const { bytes, holes } = template;
    part.reserve(template.fixed + 256);
    const out = part.buffer;
    out.set(bytes[0], part.length);
    let at = part.length + bytes[0].length;
    for (let i = 0; i < holes.length; i++) {
      switch (holes[i]) {
        case 'id':
          at = row.copy(TS, out, at);
          break;
        case 'ts':
          at = writeIso(out, at, tsMs);
          break;
        case 'end':
          at = writeIso(out, at, endMs);
          break;
        case 'updated':
          at = writeIso(out, at, updatedMs);
          break;
        case 'value':
          at = row.copy(VALUE, out, at);
          break;
        case 'diastolic':
          at = row.copy(DIASTOLIC, out, at);
          break;
      }
      out.set(bytes[i + 1], at);
      at += bytes[i + 1].length;
    }
    out[at++] = 10;
    part.length = at;
    part.lines++;
    return true;
  }

  /** The template of a shape (2 for an interval, plus 1 with a diastolic value), made at its first sample. */
  private shaped(interval: boolean, diastolic: boolean): Template | null {
    const shape = (interval ? 2 : 0) + (diastolic ? 1 : 0);
    let template = this.templates[shape];
    if (template === undefined) {
      template = this.template(interval, diastolic);
      this.templates[shape] = template;
    }
    return template;
  }

  /** The mapping's line for marker values, cut at them; null when the mapping writes no Observation for the series. */
  private template(interval: boolean, diastolic: boolean): Template | null {
    const observation = wearableObservation({
      ...sampleRow(this.series, { tsUs: MARK_TS_US, endUs: null, value: null, diastolic: null, updatedUs: '0' }),
      ts: MARK_TS,
      end_ts: interval ? MARK_END : null,
      value: MARK_VALUE,
      diastolic: diastolic ? MARK_DIASTOLIC : null,
      updated_at: MARK_UPDATED,
    });
    if (!observation) return null;
    const json = JSON.stringify(observation);
    const pieces: string[] = [];
    const holes: Hole[] = [];
    let from = 0;
    for (const match of json.matchAll(MARK_PATTERN)) {
      pieces.push(json.slice(from, match.index));
      holes.push(HOLE_OF.get(match[0])!);
      from = match.index! + match[0].length;
    }
    pieces.push(json.slice(from));
    // Each marker once (the value twice for blood pressure's components is not a shape the mapping writes: one each).
    const expected = (['id', 'updated', 'ts', 'value', ...(interval ? ['end'] : []), ...(diastolic ? ['diastolic'] : [])] as Hole[]).sort().join();
    if ([...holes].sort().join() !== expected) return 'map';
    const bytes = pieces.map((piece) => Buffer.from(piece, 'utf8'));
    return { pieces, holes, bytes, fixed: bytes.reduce((sum, piece) => sum + piece.length, 0) };
  }
}

/** A sample as the read model's row (what the mapping takes). */
export function sampleRow(series: SeriesRow, sample: SampleFields): SampleRow {
  const date = (us: string) => new Date(splitMicros(us).ms);
  return {
    ...series,
    series_id: series.id,
    ts_us: sample.tsUs,
    ts: date(sample.tsUs),
    end_ts: sample.endUs === null ? null : date(sample.endUs),
    value: sample.value === null ? null : Number(sample.value),
    diastolic: sample.diastolic === null ? null : Number(sample.diastolic),
    sample_type: null,
    timezone_offset: null,
    updated_at: date(sample.updatedUs),
    keyset_at: keysetOfMicros(sample.tsUs),
  };
}
