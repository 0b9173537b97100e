import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { EntityManager } from 'typeorm';
import type { NormalisedSample } from './sample-schemas';

/*
 * How timeseries.repository.ts sends samples to Postgres: array literals for the upsert from
 * unnest, and a binary COPY for batches that only insert new samples (cheaper for Postgres).
 */

/** A Postgres array literal of numbers (finite, as validated; bigint ids as their decimal strings), or null when all are null. */
export function numberArray(values: ReadonlyArray<number | string | null>): string | null {
  let literal = '{';
  let anyValue = false;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) literal += ',';
    if (value === null) literal += 'NULL';
    else {
      literal += value;
      anyValue = true;
    }
  }
  return anyValue ? `${literal}}` : null;
}

/** Text values for the driver to quote (it escapes each element), or null when all are null. */
export function textArray(values: Array<string | null>): Array<string | null> | null {
  for (const value of values) if (value !== null) return values;
  return null;
}

/** A binary COPY of `data` on the transaction's connection (TypeORM has no COPY; its query logging does not see it). */
export async function copyIn(manager: EntityManager, statement: string, data: Buffer): Promise<void> {
  if (!manager.queryRunner) throw new Error('COPY needs a transaction');
  const client = (await manager.queryRunner.connect()) as PoolClient;
  await new Promise<void>((resolve, reject) => {
    const stream = client.query(copyFrom(statement));
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(data);
  });
}

/** The file header of Postgres's binary COPY format: signature, flags (none), header extension length (0). */
const COPY_HEADER = Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1');
/** 2000-01-01T00:00:00Z, Postgres's epoch for timestamps (binary: microseconds since then). */
const PG_EPOCH_MS = 946_684_800_000;
const PG_EPOCH_MICROS = PG_EPOCH_MS * 1000;
const TWO_32 = 2 ** 32;

/**
 * The samples as a binary COPY into health_samples: the column list and the data. Each value is
 * what the INSERT from unnest stores: times in microseconds since 2000 (from whole
 * milliseconds), doubles as they are but -0 as 0 (its text was "0"), updated_at the
 * transaction's now(). A column null in every sample is left out (null is its default), which
 * spares both sides its bytes: a heart-rate row is 58 bytes instead of 74.
 */
export function copyRows(samples: NormalisedSample[], seriesIds: Map<string, string>, nowMicros: number): { columns: string; data: Buffer } {
  let withEnd = false;
  let withValue = false;
  let withDiastolic = false;
  let withType = false;
  let withExtra = false;
  let textBytes = 0;
  const texts = new Map<string, Buffer>();
  const text = (value: string) => {
    let bytes = texts.get(value);
    if (!bytes) texts.set(value, (bytes = Buffer.from(value, 'utf8')));
    return bytes;
  };
  for (const sample of samples) {
    if (sample.endTs !== null) withEnd = true;
    if (sample.value !== null) withValue = true;
    if (sample.diastolic !== null) withDiastolic = true;
    if (sample.sampleType !== null) {
      withType = true;
      textBytes += text(sample.sampleType).length;
    }
    if (sample.extra !== null) {
      withExtra = true;
      textBytes += 1 + text(sample.extra).length;
    }
  }
  const columns = ['series_id', 'ts'];
  if (withEnd) columns.push('end_ts');
  if (withValue) columns.push('value');
  if (withDiastolic) columns.push('diastolic');
  if (withType) columns.push('sample_type');
  columns.push('timezone_offset');
  if (withExtra) columns.push('extra');
  columns.push('updated_at');
  // Per row: the field count, a length per field, then the values (null ones have none).
  let size = COPY_HEADER.length + 2 + textBytes;
  size += samples.length * (2 + 4 * columns.length + 8 + 8 + 4 + 8);
  for (const sample of samples) size += (sample.endTs === null ? 0 : 8) + (sample.value === null ? 0 : 8) + (sample.diastolic === null ? 0 : 8);

  const ids = new Map<string, { high: number; low: number }>();
  for (const [sampleKey, id] of seriesIds) {
    const value = BigInt(id);
    ids.set(sampleKey, { high: Number(BigInt.asIntN(32, value >> 32n)), low: Number(BigInt.asUintN(32, value)) });
  }
  const updatedAt = nowMicros - PG_EPOCH_MICROS;
  const out = Buffer.allocUnsafe(size);
  COPY_HEADER.copy(out, 0);
  let at = COPY_HEADER.length;
  const nullField = () => {
    out.writeInt32BE(-1, at);
    at += 4;
  };
  const int64 = (value: number) => {
    const high = Math.floor(value / TWO_32);
    out.writeInt32BE(8, at);
    out.writeInt32BE(high, at + 4);
    out.writeUInt32BE(value - high * TWO_32, at + 8);
    at += 12;
  };
  const float8 = (value: number | null) => {
    if (value === null) return nullField();
    out.writeInt32BE(8, at);
    out.writeDoubleBE(value === 0 ? 0 : value, at + 4);
    at += 12;
  };
  const bytes = (value: string | null, prefix?: number) => {
    if (value === null) return nullField();
    const encoded = text(value);
    out.writeInt32BE(encoded.length + (prefix === undefined ? 0 : 1), at);
    at += 4;
    if (prefix !== undefined) out[at++] = prefix;
    encoded.copy(out, at);
    at += encoded.length;
  };
  for (const sample of samples) {
    out.writeInt16BE(columns.length, at);
    const id = ids.get(sample.sampleKey) as { high: number; low: number };
    out.writeInt32BE(8, at + 2);
    out.writeInt32BE(id.high, at + 6);
    out.writeUInt32BE(id.low, at + 10);
    at += 14;
    int64((sample.ts - PG_EPOCH_MS) * 1000);
    if (withEnd) {
      if (sample.endTs === null) nullField();
      else int64((sample.endTs - PG_EPOCH_MS) * 1000);
    }
    if (withValue) float8(sample.value);
    if (withDiastolic) float8(sample.diastolic);
    if (withType) bytes(sample.sampleType);
    out.writeInt32BE(4, at);
    out.writeInt32BE(sample.timezoneOffset, at + 4);
    at += 8;
    // jsonb's binary form: a version byte (1), then the JSON text.
    if (withExtra) bytes(sample.extra, 1);
    int64(updatedAt);
  }
  out.writeInt16BE(-1, at);
  at += 2;
  if (at !== size) throw new Error(`COPY rows: wrote ${at} bytes of ${size}`);
  return { columns: `(${columns.join(', ')})`, data: out };
}
