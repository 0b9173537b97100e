import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** One audit row with the key that made the access (its readable prefix and label, if it still exists). */
export interface PhiAccessRow {
  id: string;
  at: Date;
  team_id: string | null;
  actor: string | null;
  action: 'read' | 'write';
  resource: string;
  resource_id: string;
  api_key_id: string | null;
  api_key_prefix: string | null;
  api_key_label: string | null;
}

const SELECT = `
  SELECT l.id, l.at, l.team_id, l.actor, l.action, l.resource, l.resource_id, l.api_key_id,
         k.key_prefix AS api_key_prefix, k.label AS api_key_label
    FROM phi_access_log l
    LEFT JOIN team_api_keys k ON k.id = l.api_key_id`;

/**
 * The PHI access log (`phi_access_log`, written by src/common/phi-access-log.ts) read for an
 * auditor: the accesses to one order, or to everything of one user's. The log names resources
 * (`order`, `insurance`; `user_info` by the user's own id) but not their user, so the user's view joins the orders and insurances
 * tables (orders and insurance modules) — a read-only, operator-only read model, kept here so
 * neither module grows a query only the ops CLI needs.
 */
@Injectable()
export class PhiAccessReadModel {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Oldest first, at most `limit` (the newest `limit` when there are more): the order's own rows
   * and operators' reads of its HL7 messages (hl7 module's table: `labflow hl7 show`).
   */
  ofOrder(orderId: string, limit: number): Promise<PhiAccessRow[]> {
    return this.newest(
      `${SELECT} WHERE (l.resource = 'order' AND l.resource_id = $1)
         OR (l.resource = 'hl7_message' AND l.resource_id IN (SELECT id FROM hl7_messages WHERE order_id = $1))`,
      [orderId],
      limit,
    );
  }

  /** Accesses to the user's orders, insurances and user info (demographics, logged under the user's id). */
  ofUser(userId: string, limit: number): Promise<PhiAccessRow[]> {
    return this.newest(
      `${SELECT}
        WHERE (l.resource = 'order' AND l.resource_id IN (SELECT id FROM orders WHERE user_id = $1))
           OR (l.resource = 'insurance' AND l.resource_id IN (SELECT id FROM insurances WHERE user_id = $1))
           OR (l.resource = 'user_info' AND l.resource_id = $1)`,
      [userId],
      limit,
    );
  }

  async userExists(userId: string): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM users WHERE id = $1`, [userId])).length > 0;
  }

  private async newest(query: string, params: unknown[], limit: number): Promise<PhiAccessRow[]> {
    const rows: PhiAccessRow[] = await this.db.query(`${query} ORDER BY l.at DESC, l.id DESC LIMIT $${params.length + 1}`, [...params, limit]);
    return rows.reverse();
  }
}
