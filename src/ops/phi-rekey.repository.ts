import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { changedCount } from '../common/write-statements';

/** A column holding values PhiCipher sealed: `text` (encrypt, `v1.…`) or `bytes` (encryptBytes, bytea). */
export interface SealedColumn {
  table: string;
  /** The table's primary key, in order: the scan goes by it. */
  key: readonly string[];
  column: string;
  kind: 'text' | 'bytes';
  /** Rows read at a time at most, whatever the rekey's batch size: a value may be a whole file (megabytes). */
  maxBatch?: number;
}

/**
 * Every column PhiCipher seals, all tables. A new sealed column belongs here, or a rekey would
 * leave it under the old key: test/e2e/phi-key-rotation.test.ts compares this list with the
 * database's `*_enc` columns.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'appointments', key: ['id'], column: 'address_enc', kind: 'text' },
  { table: 'appointments', key: ['id'], column: 'appointment_notes_enc', kind: 'text' },
  { table: 'etl_pipelines', key: ['id'], column: 'destinations_enc', kind: 'text' },
  { table: 'event_batch_items', key: ['batch_id', 'seq'], column: 'items', kind: 'bytes' },
  { table: 'event_batch_items', key: ['batch_id', 'seq'], column: 'items_enc', kind: 'text' },
  { table: 'event_batches', key: ['id'], column: 'envelope_enc', kind: 'text' },
  { table: 'event_deliveries', key: ['id'], column: 'first_attempt_response_enc', kind: 'text' },
  { table: 'event_delivery_attempts', key: ['delivery_id', 'attempt_number'], column: 'response_excerpt_enc', kind: 'text' },
  { table: 'event_outbox', key: ['id'], column: 'data_enc', kind: 'text' },
  { table: 'fhir_export_parts', key: ['export_id', 'type', 'seq'], column: 'content_enc', kind: 'bytes', maxBatch: 4 },
  { table: 'hl7_messages', key: ['id'], column: 'body_enc', kind: 'text' },
  { table: 'idempotency_keys', key: ['team_id', 'environment', 'key'], column: 'response_enc', kind: 'text' },
  { table: 'insurances', key: ['id'], column: 'guarantor_enc', kind: 'text' },
  { table: 'insurances', key: ['id'], column: 'insured_enc', kind: 'text' },
  { table: 'insurances', key: ['id'], column: 'member_id_enc', kind: 'text' },
  { table: 'lab_report_artifacts', key: ['job_id', 'stage'], column: 'content_enc', kind: 'bytes', maxBatch: 4 },
  { table: 'lab_report_files', key: ['job_id'], column: 'content_enc', kind: 'bytes', maxBatch: 4 },
  { table: 'lab_report_parsing_jobs', key: ['id'], column: 'data_enc', kind: 'text' },
  { table: 'lab_report_parsing_jobs', key: ['id'], column: 'rejection_reason_enc', kind: 'text' },
  { table: 'link_bulk_op_items', key: ['op_id', 'position'], column: 'credentials_enc', kind: 'text' },
  { table: 'order_health_insurances', key: ['id'], column: 'insurance_enc', kind: 'text' },
  { table: 'order_requisition_inputs', key: ['order_id'], column: 'inputs_enc', kind: 'text' },
  { table: 'order_reminders', key: ['order_id', 'reminder_key'], column: 'link_url_enc', kind: 'text' },
  { table: 'order_results', key: ['order_id'], column: 'results_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'clinical_notes_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'icd_codes_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'notes_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'patient_address_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'patient_details_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'pending_registration_enc', kind: 'text' },
  { table: 'orders', key: ['id'], column: 'shipping_details_enc', kind: 'text' },
  { table: 'provider_connections', key: ['id'], column: 'credentials_enc', kind: 'text' },
  // The sandbox HL7 lab's own state (its outbox), sealed with labflow's key because it runs beside labflow.
  { table: 'sandbox_hl7_lab_outbox', key: ['order_id', 'status'], column: 'order_message_enc', kind: 'text' },
  { table: 'sdk_signing_keys', key: ['kid'], column: 'private_key_enc', kind: 'text' },
  { table: 'team_custom_credentials', key: ['id'], column: 'client_secret_enc', kind: 'text' },
  { table: 'team_custom_credentials', key: ['id'], column: 'details_enc', kind: 'text' },
  { table: 'user_infos', key: ['user_id'], column: 'info_enc', kind: 'text' },
  { table: 'users', key: ['id'], column: 'fallback_birth_date_enc', kind: 'text' },
  { table: 'webhook_endpoints', key: ['id'], column: 'headers_enc', kind: 'text' },
  { table: 'webhook_endpoints', key: ['id'], column: 'previous_secret_enc', kind: 'text' },
  { table: 'webhook_endpoints', key: ['id'], column: 'secret_enc', kind: 'text' },
];

/**
 * A column of PHI stored in plaintext before it was sealed, beside the sealed column that replaced
 * it: the application writes only the sealed one (clearing the plaintext) and still reads the
 * plaintext where that is all a row has. A rekey seals what is left.
 */
export interface PlaintextColumn {
  table: string;
  key: readonly string[];
  /** The old plaintext column: jsonb, or text or text[] (sealed as its JSON, as encryptJson does). */
  plaintext: string;
  /** The sealed column (text, PhiCipher.encryptJson of the same JSON). */
  sealed: string;
}

export const PLAINTEXT_COLUMNS: readonly PlaintextColumn[] = [
  { table: 'idempotency_keys', key: ['team_id', 'environment', 'key'], plaintext: 'response', sealed: 'response_enc' },
  { table: 'order_reminders', key: ['order_id', 'reminder_key'], plaintext: 'link_url', sealed: 'link_url_enc' },
  { table: 'orders', key: ['id'], plaintext: 'clinical_notes', sealed: 'clinical_notes_enc' },
  { table: 'orders', key: ['id'], plaintext: 'icd_codes', sealed: 'icd_codes_enc' },
  { table: 'users', key: ['id'], plaintext: 'fallback_birth_date', sealed: 'fallback_birth_date_enc' },
];

/** One sealed value and the primary key of its row. */
export interface SealedValue {
  key: unknown[];
  value: string | Buffer;
}

/** The SQL of `labflow phi rekey` (phi-rekey.service.ts): reading sealed values in key order, replacing one. */
@Injectable()
export class PhiRekeyRepository {
  constructor(private readonly db: DataSource) {}

  /** Up to `limit` values of the column after the row keyed `after` (null: from the first), in key order. */
  async batch(column: SealedColumn, after: unknown[] | null, limit: number): Promise<SealedValue[]> {
    const keys = column.key.join(', ');
    const keyRow = `(${keys})`;
    const params: unknown[] = after ?? [];
    const afterClause = after ? `AND ${keyRow} > (${column.key.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT ${keys}, ${column.column} AS sealed_value FROM ${column.table}
        WHERE ${column.column} IS NOT NULL ${afterClause}
        ORDER BY ${keys} LIMIT ${Number(limit)}`,
      params,
    );
    return rows.map((row) => ({ key: column.key.map((name) => row[name]), value: row.sealed_value as string | Buffer }));
  }

  /**
   * Writes each `resealed` in place of its `sealed` on its row, only while the row still holds
   * `sealed`: a value written meanwhile (sealed with the current key already) is kept. Nothing else
   * of the row changes, `updated_at` included: the data is the same. One transaction for the lot,
   * so a batch costs one commit, not one per row. Answers how many rows were replaced.
   */
  async replaceAll(column: SealedColumn, changes: ReadonlyArray<{ key: unknown[]; sealed: string | Buffer; resealed: string | Buffer }>): Promise<number> {
    if (changes.length === 0) return 0;
    const n = column.key.length;
    const statement = `UPDATE ${column.table} SET ${column.column} = $${n + 2}
        WHERE ${column.key.map((name, i) => `${name} = $${i + 1}`).join(' AND ')} AND ${column.column} = $${n + 1}`;
    return this.db.transaction(async (manager) => {
      let replaced = 0;
      for (const change of changes) {
        const count = await changedCount(manager, statement, [...change.key, change.sealed, change.resealed]);
        replaced += count;
      }
      return replaced;
    });
  }

  /** Up to `limit` plaintext values (JSON text) of the column after the row keyed `after`, in key order. */
  async plaintextBatch(column: PlaintextColumn, after: unknown[] | null, limit: number): Promise<Array<{ key: unknown[]; json: string }>> {
    const keys = column.key.join(', ');
    const afterClause = after ? `AND (${keys}) > (${column.key.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT ${keys}, to_jsonb(${column.plaintext})::text AS plaintext_json FROM ${column.table}
        WHERE ${column.plaintext} IS NOT NULL ${afterClause}
        ORDER BY ${keys} LIMIT ${Number(limit)}`,
      after ?? [],
    );
    return rows.map((row) => ({ key: column.key.map((name) => row[name]), json: row.plaintext_json as string }));
  }

  /**
   * Writes each `sealed` into the sealed column and clears the plaintext, only while the row still
   * holds the plaintext that was read; one transaction for the lot. Answers how many rows changed.
   */
  async sealPlaintext(column: PlaintextColumn, changes: ReadonlyArray<{ key: unknown[]; json: string; sealed: string }>): Promise<number> {
    if (changes.length === 0) return 0;
    const n = column.key.length;
    const statement = `UPDATE ${column.table} SET ${column.sealed} = $${n + 2}, ${column.plaintext} = NULL
        WHERE ${column.key.map((name, i) => `${name} = $${i + 1}`).join(' AND ')} AND to_jsonb(${column.plaintext})::text = $${n + 1}`;
    return this.db.transaction(async (manager) => {
      let sealed = 0;
      for (const change of changes) {
        const count = await changedCount(manager, statement, [...change.key, change.json, change.sealed]);
        sealed += count;
      }
      return sealed;
    });
  }

  /** The database's columns that look sealed (`*_enc`, and event_batch_items.items): what SEALED_COLUMNS must cover. */
  async sealedLookingColumns(): Promise<Array<{ table: string; column: string }>> {
    return this.db.query(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
        WHERE table_schema = current_schema()
          AND (column_name LIKE '%\\_enc' OR (table_name = 'event_batch_items' AND column_name = 'items'))
        ORDER BY 1, 2`,
    );
  }
}
