import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import { PhiRekeyRepository, PLAINTEXT_COLUMNS, type PlaintextColumn, SEALED_COLUMNS, type SealedColumn } from './phi-rekey.repository';

/** What a rekey did to one column. */
export interface RekeyedColumn {
  table: string;
  column: string;
  /** Values read (rows where the column is not null). */
  examined: number;
  /** Sealed with an earlier key, now with PHI_ENCRYPTION_KEY. */
  resealed: number;
  /** Opened by no configured key: left as they are (a key missing from PHI_ENCRYPTION_PREVIOUS_KEYS, or damaged). */
  unreadable: number;
}

export interface RekeyReport {
  columns: RekeyedColumn[];
  resealed: number;
  /** Values stored in plaintext before their column was sealed (PLAINTEXT_COLUMNS), sealed now. */
  plaintextSealed: number;
  unreadable: number;
  /** True when every sealed value is now under PHI_ENCRYPTION_KEY: the earlier keys can go. */
  complete: boolean;
}

/**
 * `labflow phi rekey`, the second half of rotating the PHI key (README "Rotating the PHI key"):
 * every value PhiCipher sealed with an earlier key is sealed again with PHI_ENCRYPTION_KEY, and
 * PHI a column held in plaintext before it was sealed (PLAINTEXT_COLUMNS) is sealed. It
 * runs beside the live system: rows are read in key order, a batch at a time, and each value is
 * replaced only while the row still holds what was read (a value written meanwhile is sealed with
 * the current key already), a batch in one transaction. Running it again finds nothing to do; stopped midway, it starts over
 * and skips what is done.
 */
@Injectable()
export class PhiRekeyService {
  constructor(
    private readonly repository: PhiRekeyRepository,
    private readonly cipher: PhiCipher,
  ) {}

  async rekey(options: { batchSize: number; onColumn?: (done: RekeyedColumn) => void }): Promise<RekeyReport> {
    const columns: RekeyedColumn[] = [];
    for (const column of SEALED_COLUMNS) {
      const done = await this.rekeyColumn(column, options.batchSize);
      options.onColumn?.(done);
      columns.push(done);
    }
    let plaintextSealed = 0;
    for (const column of PLAINTEXT_COLUMNS) plaintextSealed += await this.sealPlaintext(column, options.batchSize);
    const resealed = columns.reduce((sum, column) => sum + column.resealed, 0);
    const unreadable = columns.reduce((sum, column) => sum + column.unreadable, 0);
    return { columns, resealed, plaintextSealed, unreadable, complete: unreadable === 0 };
  }

  /** Seals the plaintext values left in one column (written before it was sealed); how many. */
  private async sealPlaintext(column: PlaintextColumn, batchSize: number): Promise<number> {
    let sealed = 0;
    let after: unknown[] | null = null;
    for (;;) {
      const batch = await this.repository.plaintextBatch(column, after, batchSize);
      sealed += await this.repository.sealPlaintext(
        column,
        batch.map(({ key, json }) => ({ key, json, sealed: this.cipher.encrypt(json) })),
      );
      if (batch.length < batchSize) return sealed;
      after = batch[batch.length - 1].key;
    }
  }

  /** The sealed-looking columns of the database that SEALED_COLUMNS does not name (a rekey would miss them). */
  async unlistedColumns(): Promise<string[]> {
    const listed = new Set(SEALED_COLUMNS.map((column) => `${column.table}.${column.column}`));
    return (await this.repository.sealedLookingColumns()).map((column) => `${column.table}.${column.column}`).filter((name) => !listed.has(name));
  }

  private async rekeyColumn(column: SealedColumn, requestedBatch: number): Promise<RekeyedColumn> {
    const batchSize = Math.min(requestedBatch, column.maxBatch ?? requestedBatch);
    const done: RekeyedColumn = { table: column.table, column: column.column, examined: 0, resealed: 0, unreadable: 0 };
    let after: unknown[] | null = null;
    for (;;) {
      const batch = await this.repository.batch(column, after, batchSize);
      const changes: Array<{ key: unknown[]; sealed: string | Buffer; resealed: string | Buffer }> = [];
      for (const { key, value } of batch) {
        done.examined++;
        if (this.cipher.sealedWithCurrentKey(value)) continue;
        try {
          changes.push({ key, sealed: value, resealed: typeof value === 'string' ? this.cipher.reseal(value) : this.cipher.resealBytes(value) });
        } catch {
          done.unreadable++;
        }
      }
      done.resealed += await this.repository.replaceAll(column, changes);
      if (batch.length < batchSize) return done;
      after = batch[batch.length - 1].key;
    }
  }
}
