import type { DataSource } from 'typeorm';
import type { PhiCipher } from '../../common/crypto';
import type { OwedReport, SandboxLabOutbox, SandboxReportStatus } from './sandbox-hl7-lab';
import { changedRows } from '../../common/write-statements';

interface OwedRow {
  order_id: string;
  status: SandboxReportStatus;
  order_message_enc: string;
  backoff_ms: number;
}

/** Rows `d` that may go now: a final waits while its order's preliminary is still owed (a lab reports in order). */
const SENDABLE = `NOT (d.status = 'F' AND EXISTS (SELECT 1 FROM sandbox_hl7_lab_outbox p WHERE p.order_id = d.order_id AND p.status = 'P'))`;

/**
 * `sandbox_hl7_lab_outbox`: the reports the sandbox HL7 lab owes labflow. It is the sandbox
 * partner's own state, not labflow's (a real lab keeps its outbox in its own systems); it lives
 * in labflow's database only because the sandbox lab is deployed beside labflow, and labflow's
 * code never reads it. The order message is sealed with the PHI key (it carries the patient).
 */
export class SandboxHl7LabOutboxRepository implements SandboxLabOutbox {
  constructor(
    private readonly db: DataSource,
    private readonly cipher: PhiCipher,
  ) {}

  async hold(orderId: string, orderMessage: string, reports: ReadonlyArray<{ status: SandboxReportStatus; dueInMs: number }>): Promise<void> {
    // A repeat of the order (labflow resending after a lost ACK) keeps the reports already owed.
    await this.db.query(
      `INSERT INTO sandbox_hl7_lab_outbox (order_id, status, order_message_enc, due_at)
       SELECT $1, r.status, $2, clock_timestamp() + make_interval(secs => r.due_in_ms / 1000.0)
         FROM unnest($3::text[], $4::float8[]) AS r(status, due_in_ms)
       ON CONFLICT (order_id, status) DO NOTHING`,
      [orderId, this.cipher.encrypt(orderMessage), reports.map((report) => report.status), reports.map((report) => report.dueInMs)],
    );
  }

  async drop(orderId: string): Promise<void> {
    await this.db.query(`DELETE FROM sandbox_hl7_lab_outbox WHERE order_id = $1`, [orderId]);
  }

  /**
   * Due reports, each leased for `leaseMs` (its due time moved on): another sender skips it, and a
   * sender killed mid-send sends it again after that. A final report waits while its order's
   * preliminary is still owed (SENDABLE): after a restart both are due at once.
   */
  async claimDue(limit: number, leaseMs: number): Promise<OwedReport[]> {
    const rows = await changedRows<OwedRow>(
      this.db,
      `UPDATE sandbox_hl7_lab_outbox o SET due_at = clock_timestamp() + make_interval(secs => $2::int / 1000.0), attempts = o.attempts + 1
        WHERE (o.order_id, o.status) IN (
          SELECT d.order_id, d.status FROM sandbox_hl7_lab_outbox d
           WHERE d.due_at <= clock_timestamp()
             AND ${SENDABLE}
           ORDER BY d.due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING o.order_id, o.status, o.order_message_enc, o.backoff_ms`,
      [limit, leaseMs],
    );
    return rows.map((row) => ({
      orderId: row.order_id,
      status: row.status,
      orderMessage: this.cipher.decrypt(row.order_message_enc),
      backoffMs: row.backoff_ms,
    }));
  }

  async sent(report: OwedReport): Promise<void> {
    await this.db.query(`DELETE FROM sandbox_hl7_lab_outbox WHERE order_id = $1 AND status = $2`, [report.orderId, report.status]);
  }

  async later(report: OwedReport, backoffMs: number): Promise<void> {
    await this.db.query(
      `UPDATE sandbox_hl7_lab_outbox SET due_at = clock_timestamp() + make_interval(secs => $3::int / 1000.0), backoff_ms = $3::int WHERE order_id = $1 AND status = $2`,
      [report.orderId, report.status, backoffMs],
    );
  }

  async nextDueInMs(): Promise<number | null> {
    // Clamped here, not with SQL's GREATEST, which skips a NULL: an empty outbox would read as
    // "due now" and the sender would poll without a pause.
    const [row]: Array<{ in_ms: number | null }> = await this.db.query(
      `SELECT (EXTRACT(EPOCH FROM (MIN(d.due_at) - clock_timestamp())) * 1000)::float8 AS in_ms FROM sandbox_hl7_lab_outbox d
        WHERE ${SENDABLE}`,
    );
    const inMs = row?.in_ms ?? null;
    return inMs === null ? null : Math.max(0, inMs);
  }
}
