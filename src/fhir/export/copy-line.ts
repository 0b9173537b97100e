/**
 * The bytes the bulk export reads and writes per wearable sample: a line of its COPY, located in
 * the chunk it came in (CopyLine), and the part the NDJSON lines are written into (PartBuffer).
 * SeriesLines (wearable-ndjson.ts) goes from one to the other. Pure, no I/O.
 */

/**
 * One sample as the export's COPY writes it: epoch microseconds for its times, the value columns
 * as Postgres prints float8 (shortest round-trip digits, read back exactly by Number).
 */
export interface SampleFields {
  tsUs: string;
  endUs: string | null;
  value: string | null;
  diastolic: string | null;
  updatedUs: string;
}

/** The COPY line's fields (FhirExportReadModel.copySamples), in order. */
export const [SERIES, TS, END, VALUE, DIASTOLIC, UPDATED] = [0, 1, 2, 3, 4, 5];

/**
 * One line of the export's COPY text (series, ts, end_ts, value, diastolic, updated_at: tab
 * separated, `\N` for null), located in its chunk without copying it. Digits, `-` and `.` are
 * all COPY escapes nothing in; a field holding anything else is read as text (`fields`).
 */
export class CopyLine {
  bytes: Buffer = Buffer.alloc(0);
  private readonly from = new Int32Array(6);
  private readonly to = new Int32Array(6);

  /** Finds the fields of the line starting at `start`; answers the index of its newline, or -1 when the line goes on past `bytes`. */
  locate(bytes: Buffer, start: number): number {
    this.bytes = bytes;
    let field = 0;
    this.from[0] = start;
    for (let i = start; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte === 9) {
        if (field === 5) throw new Error('COPY line: more than six fields');
        this.to[field] = i;
        this.from[++field] = i + 1;
      } else if (byte === 10) {
        if (field !== 5) throw new Error('COPY line: fewer than six fields');
        this.to[5] = i;
        return i;
      }
    }
    return -1;
  }

  isNull(field: number): boolean {
    const from = this.from[field];
    return this.to[field] - from === 2 && this.bytes[from] === 92 && this.bytes[from + 1] === 78;
  }

  text(field: number): string | null {
    return this.isNull(field) ? null : this.bytes.toString('latin1', this.from[field], this.to[field]);
  }

  /** The field as a safe integer (an optional `-` and digits), else NaN. */
  integer(field: number): number {
    const bytes = this.bytes;
    const to = this.to[field];
    let i = this.from[field];
    const negative = bytes[i] === 45;
    if (negative) i++;
    if (i >= to) return NaN;
    let n = 0;
    for (; i < to; i++) {
      const digit = bytes[i] - 48;
      if (digit < 0 || digit > 9) return NaN;
      n = n * 10 + digit;
    }
    if (!Number.isSafeInteger(n)) return NaN;
    return negative ? -n : n;
  }

  /** Whether the field is a float8 Postgres and JSON.stringify print alike: `-?digits(.digits)?`, not `-0` (see `number`). */
  plainNumber(field: number): boolean {
    const bytes = this.bytes;
    const to = this.to[field];
    let i = this.from[field];
    if (bytes[i] === 45) i++;
    const first = i;
    while (i < to && bytes[i] >= 48 && bytes[i] <= 57) i++;
    if (i === first) return false;
    if (i < to && bytes[i] === 46) {
      const dot = ++i;
      while (i < to && bytes[i] >= 48 && bytes[i] <= 57) i++;
      if (i === dot) return false;
    }
    return i === to && !(to - this.from[field] === 2 && bytes[to - 2] === 45 && bytes[to - 1] === 48);
  }

  /** Copies the field's bytes into `out` at `at`; answers where they end. */
  copy(field: number, out: Buffer, at: number): number {
    const bytes = this.bytes;
    const to = this.to[field];
    for (let i = this.from[field]; i < to; i++) out[at++] = bytes[i];
    return at;
  }

  /** Whether the series field is `id` (compared byte by byte: no string made). */
  seriesIs(id: string | undefined): boolean {
    if (id === undefined) return false;
    const from = this.from[SERIES];
    if (this.to[SERIES] - from !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.bytes[from + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  /** The series id. */
  series(): string {
    return this.text(SERIES)!;
  }

  /** The sample's fields as text (SeriesLines.line). */
  fields(): SampleFields {
    return { tsUs: this.text(TS)!, endUs: this.text(END), value: this.text(VALUE), diastolic: this.text(DIASTOLIC), updatedUs: this.text(UPDATED)! };
  }

  /** The sample's time as an exact number: a safe integer, else a bigint (compared alike). */
  tsKey(): number | bigint {
    const n = this.integer(TS);
    return Number.isNaN(n) ? BigInt(this.text(TS)!) : n;
  }
}

/** A part's NDJSON, UTF-8, in one buffer that doubles when full. */
export class PartBuffer {
  lines = 0;
  length = 0;
  buffer: Buffer;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }

  /** Empties the buffer for another part; answers it. */
  clear(): this {
    this.lines = 0;
    this.length = 0;
    return this;
  }

  /** Makes room for `bytes` more. */
  reserve(bytes: number): void {
    if (this.length + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
  }

  add(line: string): void {
    this.reserve(line.length * 3);
    this.length += this.buffer.write(line, this.length);
    this.lines++;
  }

  readonly bytes = (): Buffer => this.buffer.subarray(0, this.length);
}
