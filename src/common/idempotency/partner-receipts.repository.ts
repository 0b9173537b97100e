import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { changedCount } from '../write-statements';

/** Whose report: the webhook family (`courier`, `lab`, `appointments`), the partner, and the partner's event id. */
export interface PartnerReceiptKey {
  kind: 'courier' | 'lab' | 'appointments';
  partner: string;
  eventId: string;
}

/** How a report went: applied now, or a repeat answered with the first one's answer. */
export type PartnerReceipt<T> = { repeat: false; answer: T } | { repeat: true; answer: T };

/**
 * `partner_webhook_receipts`: the event ids of partner webhook reports labflow took. `once`
 * claims the id and applies the report in one transaction, and commits the id with the report's
 * answer only when applying it succeeded: a report that failed is not recorded (the partner's
 * resend applies it), one that succeeded is (its resend changes nothing). A concurrent resend
 * waits on the claimed id's row lock, then finds it taken.
 */
@Injectable()
export class PartnerReceiptsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async once<T>(key: PartnerReceiptKey, apply: () => Promise<T>): Promise<PartnerReceipt<T>> {
    return this.db.transaction(async (manager) => {
      const claimed: unknown[] = await manager.query(
        `INSERT INTO partner_webhook_receipts (kind, partner, event_id) VALUES ($1, $2, $3)
         ON CONFLICT (kind, partner, event_id) DO NOTHING RETURNING event_id`,
        [key.kind, key.partner, key.eventId],
      );
      if (claimed.length === 0) {
        const [row]: Array<{ answer: T }> = await manager.query(
          `SELECT answer FROM partner_webhook_receipts WHERE kind = $1 AND partner = $2 AND event_id = $3`,
          [key.kind, key.partner, key.eventId],
        );
        return { repeat: true, answer: row.answer };
      }
      const answer = await apply();
      await manager.query(`UPDATE partner_webhook_receipts SET answer = $4 WHERE kind = $1 AND partner = $2 AND event_id = $3`, [
        key.kind,
        key.partner,
        key.eventId,
        JSON.stringify(answer),
      ]);
      return { repeat: false, answer };
    });
  }

  /** Retention: deletes up to `limit` receipts older than `keepMs`; returns how many. */
  async deleteOlderThan(keepMs: number, limit: number): Promise<number> {
    const count = await changedCount(
      this.db,
      `DELETE FROM partner_webhook_receipts WHERE ctid IN (
         SELECT ctid FROM partner_webhook_receipts WHERE created_at < clock_timestamp() - make_interval(secs => $1) LIMIT $2)`,
      [keepMs / 1000, limit],
    );
    return count;
  }
}

/**
 * A partner report applied at most once per event id: without an id (`eventId` absent) it is
 * applied as before, and the content rules of the receiving side (a status already reached is
 * ignored) are all that dedupes it.
 */
export async function oncePerEvent<T>(
  receipts: PartnerReceiptsRepository,
  key: Omit<PartnerReceiptKey, 'eventId'> & { eventId: string | null | undefined },
  apply: () => Promise<T>,
): Promise<T> {
  if (!key.eventId) return apply();
  return (await receipts.once({ ...key, eventId: key.eventId }, apply)).answer;
}
