import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ApiEnvironment } from '../tenancy/entities';
import { ORDER_LOW_LEVEL_STATUSES } from '../../workflows/order/order-statuses';
import { isTerminal } from '../../workflows/order/order-lifecycle';
import { changedCount } from '../common/write-statements';

/** What the reconciler found: the workflow closed, is missing, or makes no progress. */
export type StrandedKind = 'closed' | 'missing' | 'stalled';
/** What became of it: a new run was started, it awaits a human, or it no longer holds. */
export type StrandedState = 'healed' | 'raised' | 'resolved';

export interface StrandedOrderRow {
  id: string;
  orderId: string;
  teamId: string;
  environment: ApiEnvironment;
  kind: StrandedKind;
  state: StrandedState;
  detail: string;
  healAttempts: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  healedAt: Date | null;
  resolvedAt: Date | null;
  createdAt: Date;
}

/** One finding about one order. */
export interface StrandedFinding {
  orderId: string;
  teamId: string;
  environment: ApiEnvironment;
  kind: StrandedKind;
  detail: string;
}

/** A position in a team's list: created_at as Postgres text (microseconds) and the row id. */
export interface StrandedListPosition {
  at: string;
  id: string;
}

const COLUMNS = `id, order_id, team_id, environment, kind, state, detail, heal_attempts, first_seen_at, last_seen_at, healed_at, resolved_at, created_at`;

const TERMINAL = ORDER_LOW_LEVEL_STATUSES.filter(isTerminal);

interface Row {
  id: string;
  order_id: string;
  team_id: string;
  environment: ApiEnvironment;
  kind: StrandedKind;
  state: StrandedState;
  detail: string;
  heal_attempts: number;
  first_seen_at: Date;
  last_seen_at: Date;
  healed_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
}

const toRow = (row: Row): StrandedOrderRow => ({
  id: row.id,
  orderId: row.order_id,
  teamId: row.team_id,
  environment: row.environment,
  kind: row.kind,
  state: row.state,
  detail: row.detail,
  healAttempts: row.heal_attempts,
  firstSeenAt: row.first_seen_at,
  lastSeenAt: row.last_seen_at,
  healedAt: row.healed_at,
  resolvedAt: row.resolved_at,
  createdAt: row.created_at,
});

/**
 * The `stranded_orders` table (migration 1763790008000): written by the reconciler, read by the
 * management API and the metrics gauge. One row per order; a new finding reopens it.
 */
@Injectable()
export class StrandedOrdersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** How many new runs were ever started for the order (0 when it was never found stranded). */
  async healAttempts(orderId: string): Promise<number> {
    const [row]: Array<{ heal_attempts: number }> = await this.db.query(`SELECT heal_attempts FROM stranded_orders WHERE order_id = $1`, [orderId]);
    return row?.heal_attempts ?? 0;
  }

  /**
   * Records a finding left to a human (state `raised`). A row that was resolved is reopened
   * (first_seen_at starts again); heal_attempts and healed_at are kept.
   */
  async recordRaised(finding: StrandedFinding): Promise<void> {
    await this.upsert(finding, 'raised', false);
  }

  /** Records a finding answered by a new run: state `healed`, heal_attempts + 1, healed_at now. */
  async recordHealed(finding: StrandedFinding): Promise<void> {
    await this.upsert(finding, 'healed', true);
  }

  private async upsert(finding: StrandedFinding, state: 'raised' | 'healed', healed: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO stranded_orders (id, order_id, team_id, environment, kind, state, detail, heal_attempts, first_seen_at, last_seen_at, healed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8 THEN 1 ELSE 0 END, clock_timestamp(), clock_timestamp(), CASE WHEN $8 THEN clock_timestamp() END)
       ON CONFLICT (order_id) DO UPDATE SET
         kind = EXCLUDED.kind,
         state = EXCLUDED.state,
         detail = EXCLUDED.detail,
         heal_attempts = stranded_orders.heal_attempts + EXCLUDED.heal_attempts,
         first_seen_at = CASE WHEN stranded_orders.resolved_at IS NULL THEN stranded_orders.first_seen_at ELSE clock_timestamp() END,
         last_seen_at = clock_timestamp(),
         healed_at = COALESCE(EXCLUDED.healed_at, stranded_orders.healed_at),
         resolved_at = NULL`,
      [randomUUID(), finding.orderId, finding.teamId, finding.environment, finding.kind, state, finding.detail, healed],
    );
  }

  /** Marks the open rows of these orders resolved (a pass found them fine); returns how many. */
  async resolve(orderIds: string[]): Promise<number> {
    if (orderIds.length === 0) return 0;
    const count = await changedCount(
      this.db,
      `UPDATE stranded_orders SET state = 'resolved', resolved_at = clock_timestamp() WHERE order_id = ANY($1::uuid[]) AND resolved_at IS NULL`,
      [orderIds],
    );
    return count;
  }

  /** Marks resolved the open rows whose order has ended (terminal status); returns how many. */
  async resolveEnded(): Promise<number> {
    const count = await changedCount(
      this.db,
      `UPDATE stranded_orders s SET state = 'resolved', resolved_at = clock_timestamp()
         FROM orders o
        WHERE o.id = s.order_id AND s.resolved_at IS NULL AND o.low_level_status = ANY($1::text[])`,
      [TERMINAL],
    );
    return count;
  }

  /**
   * One keyset page of a team's rows by (created_at, id), strictly after `after`; unresolved
   * ones only unless `includeResolved`. Returns the position of the page's last row when more follow.
   */
  async listForTeam(
    teamId: string,
    options: { includeResolved: boolean; after?: StrandedListPosition; limit: number },
  ): Promise<{ items: StrandedOrderRow[]; next: StrandedListPosition | null }> {
    const params: unknown[] = [teamId, options.includeResolved, options.limit + 1];
    let keyset = '';
    if (options.after) {
      params.push(options.after.at, options.after.id);
      keyset = `AND (created_at, id) > (CAST($4 AS timestamp) AT TIME ZONE 'UTC', CAST($5 AS uuid))`;
    }
    const rows: Array<Row & { keyset_at: string }> = await this.db.query(
      `SELECT ${COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS keyset_at
         FROM stranded_orders
        WHERE team_id = $1 AND ($2 OR resolved_at IS NULL) ${keyset}
        ORDER BY created_at, id
        LIMIT $3`,
      params,
    );
    if (rows.length <= options.limit) return { items: rows.map(toRow), next: null };
    const page = rows.slice(0, options.limit);
    const last = page[page.length - 1];
    return { items: page.map(toRow), next: { at: last.keyset_at, id: last.id } };
  }

  /** Unresolved rows counted by kind and state (the labflow_stranded_orders gauge). */
  async countOpen(): Promise<Array<{ kind: StrandedKind; state: StrandedState; count: number }>> {
    return this.db.query(`SELECT kind, state, count(*)::int AS count FROM stranded_orders WHERE resolved_at IS NULL GROUP BY kind, state`);
  }
}
