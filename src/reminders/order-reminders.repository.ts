import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReminderKind, ReminderSkipReason } from '../../workflows/contract';

/** An `order_reminders` row (see the migration 1763790152400-order-reminders). */
export interface OrderReminderRow {
  order_id: string;
  reminder_key: string;
  team_id: string;
  kind: ReminderKind;
  sequence: number;
  status: 'sending' | 'sent' | 'skipped';
  channel: 'email' | 'sms' | null;
  reason: ReminderSkipReason | null;
  /** The portal link made for this reminder, sealed (PhiCipher.encryptJson of the URL): a credential. */
  link_url_enc: string | null;
  /** A link stored in plaintext by a release before sealing; never written now, sealed by `labflow phi rekey`. */
  link_url: string | null;
  attempts: number;
  last_error: string | null;
}

const COLUMNS = 'order_id, reminder_key, team_id, kind, sequence, status, channel, reason, link_url_enc, link_url, attempts, last_error';

/** The reminders orders sent or tried to send: one row per (order, reminder key). */
@Injectable()
export class OrderRemindersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The reminder's row, made on its first attempt; a retry gets the row its first attempt made. */
  async claim(reminder: Pick<OrderReminderRow, 'order_id' | 'reminder_key' | 'team_id' | 'kind' | 'sequence'>): Promise<OrderReminderRow> {
    await this.db.query(
      `INSERT INTO order_reminders (order_id, reminder_key, team_id, kind, sequence) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (order_id, reminder_key) DO NOTHING`,
      [reminder.order_id, reminder.reminder_key, reminder.team_id, reminder.kind, reminder.sequence],
    );
    const [row] = await this.db.query(`SELECT ${COLUMNS} FROM order_reminders WHERE order_id = $1 AND reminder_key = $2`, [
      reminder.order_id,
      reminder.reminder_key,
    ]);
    return row;
  }

  /** The link made for this reminder, sealed (a retry sends the same one). */
  async setLink(orderId: string, key: string, sealedUrl: string): Promise<void> {
    await this.db.query(`UPDATE order_reminders SET link_url_enc = $3, link_url = NULL WHERE order_id = $1 AND reminder_key = $2`, [orderId, key, sealedUrl]);
  }

  async markSent(orderId: string, key: string, channel: 'email' | 'sms'): Promise<void> {
    await this.db.query(
      `UPDATE order_reminders SET status = 'sent', channel = $3, sent_at = clock_timestamp(), attempts = attempts + 1 WHERE order_id = $1 AND reminder_key = $2`,
      [orderId, key, channel],
    );
  }

  async markSkipped(orderId: string, key: string, reason: ReminderSkipReason): Promise<void> {
    await this.db.query(`UPDATE order_reminders SET status = 'skipped', reason = $3 WHERE order_id = $1 AND reminder_key = $2`, [orderId, key, reason]);
  }

  /** A failed attempt (the activity retries): counted, with its error. */
  async recordFailure(orderId: string, key: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE order_reminders SET attempts = attempts + 1, last_error = $3 WHERE order_id = $1 AND reminder_key = $2 AND status = 'sending'`,
      [orderId, key, error.slice(0, 500)],
    );
  }
}
