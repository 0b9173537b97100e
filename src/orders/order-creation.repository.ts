/**
 * Order creation's two statements, each one round trip that also touches other modules' tables on
 * purpose (as the read model's do, see order-read-model.ts): createContext reads the user, the lab
 * test and the lab accounts the team can see before anything is written; insertOrder writes the
 * order with its transaction, events, insurance, requisition inputs, PHI audit row and outbox
 * event in one statement, so it commits whole or not at all.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import { recordEventsCtes } from '../events/outbox.repository';
import type { PreparedEvents } from '../events/outbox.service';
import type { LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import { labAccountsFromJson, visibleLabAccountsJson } from '../lab-tests/lab-accounts.repository';
import { OrderEntity, type OrderTransactionEntity } from './order.entities';
import type { Scope } from './orders.repository';

/**
 * Order creation's write in one statement (OrderCreationRepository.insertOrder): the order transaction,
 * the order (every column, $1…$n in `columns` order), its first events, its health insurance
 * when it has one (the row orders.health_insurance_id names) and its requisition inputs when it
 * has any, the PHI write audit row and its
 * `labtest.order.created` outbox event with its deliveries (recordEventsCtes, the outbox's own statement).
 * One statement is atomic by itself: all of it commits or none (a unique sample id taken, a
 * foreign key), with no BEGIN/COMMIT round trips around it. Foreign keys are checked at the end
 * of the statement, when every row is in. The events take the ids createContext drew from
 * order_events' identity (OVERRIDING SYSTEM VALUE) and the order's creation time: the outbox
 * event carries the order's view, events included, so they are known before the statement.
 */
const insertOrderSql = (columns: string[]) => {
  const param = (name: string) => {
    const index = columns.indexOf(`"${name}"`);
    if (index < 0) throw new Error(`orders has no column ${name}`);
    return `$${index + 1}`;
  };
  const p = (index: number) => `$${columns.length + index}`;
  const orderId = `${param('id')}::uuid`;
  return `
  WITH t AS (
    INSERT INTO order_transactions (id, team_id, status, created_at, updated_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)})
  ), o AS (
    INSERT INTO orders (${columns.join(', ')}) VALUES (${columns.map((_, index) => `$${index + 1}`).join(', ')})
  ), e AS (
    INSERT INTO order_events (id, order_id, seq, status, created_at) OVERRIDING SYSTEM VALUE
    SELECT s.id, ${orderId}, s.seq, s.status, ${p(8)}::timestamptz
      FROM unnest(${p(6)}::bigint[], ${p(7)}::text[]) WITH ORDINALITY AS s(id, status, seq) ORDER BY s.seq
  ), audit AS (
    INSERT INTO phi_access_log (team_id, api_key_id, action, resource, resource_id) VALUES (${p(9)}, ${p(10)}, 'write', 'order', ${orderId})
  ), insurance AS (
    INSERT INTO order_health_insurances (id, user_id, insurance_enc)
    SELECT ${p(11)}::uuid, ${param('user_id')}::uuid, ${p(12)}::text WHERE ${p(12)}::text IS NOT NULL
  ), requisition_inputs AS (
    INSERT INTO order_requisition_inputs (order_id, inputs_enc) SELECT ${orderId}, ${p(13)}::text WHERE ${p(13)}::text IS NOT NULL
  ), ${recordEventsCtes(columns.length + 14)}
  SELECT 1 AS written`;
};

const INSERT_ORDER_STATEMENT = 'labflow_orders_insert_order';

/**
 * Order creation's reads (OrderCreationRepository.createContext), and the ids of the order's first events:
 * drawn only when the user is live (a 404 draws none); a request refused later leaves a gap in
 * the identity, as a rolled-back insert did. With the lab test (when the team can see it): the
 * lab accounts the team can see at its lab (visibleLabAccountsJson: LabAccountsRepository's
 * visibility and order), which LabAccountsService.resolveForOrder chooses from, so that it does
 * not read them in a statement of its own.
 */
const createContextSql = `
  SELECT u.id IS NOT NULL AS user_live, u.client_user_id,
         lt.updated_at::text AS lab_test_version, lt.lab_id AS lab_test_lab_id,
         CASE WHEN lt.id IS NULL THEN NULL ELSE ${visibleLabAccountsJson('lt.lab_id', '$3::text', '$2::uuid')} END AS lab_accounts,
         ARRAY(SELECT nextval(pg_get_serial_sequence('order_events', 'id'))
                 FROM generate_series(1, CASE WHEN u.id IS NULL THEN 0 ELSE $5::int END) ORDER BY 1)::text[] AS event_ids
    FROM (SELECT 1) AS one
    LEFT JOIN users u ON u.id = $1::uuid AND u.team_id = $2::uuid AND u.environment = $3::text AND u.deletion_requested_at IS NULL
    LEFT JOIN lab_tests lt ON lt.id = $4::uuid AND (lt.team_id IS NULL OR (lt.team_id = $2::uuid AND lt.environment = $3::text))`;

const CREATE_CONTEXT_STATEMENT = 'labflow_orders_create_context';

/** What createContext read for order creation. */
export interface CreateContext {
  userLive: boolean;
  /** The live user's client_user_id (null when not live). */
  clientUserId: string | null;
  /** updated_at (text) of the lab test asked for when visible to the team; null otherwise. */
  labTestVersion: string | null;
  /** Ids for the order's first events, ascending (none when the user is not live). */
  eventIds: string[];
  /** The lab accounts the team can see at the lab test's lab, in LabAccountsRepository's order (null: no lab test read). */
  labAccounts: { labId: number; accounts: LabAccountEntity[] } | null;
}

/** The first events of a new order (insertOrder): ids from createContext, in seq order. */
export interface NewOrderEvents {
  ids: string[];
  statuses: string[];
  createdAt: Date;
}

/** Writes and reads of order creation that span modules (see the top of this file). */
@Injectable()
export class OrderCreationRepository {
  /** insertOrderSql with OrderEntity's columns, built on first use. */
  private insertOrderText?: string;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Writes a new order, its order transaction, its first events, the PHI write audit row and its
   * outbox event (`outbox`, OutboxService.prepare) in one statement (insertOrderSql). `manager`:
   * the caller's transaction (order creation with an idempotency key stores its answer in it);
   * null: the statement alone, a named one (runPrepared) on a pool connection, which commits it.
   * Every order column is written with the value TypeORM's own insert would send
   * (preparePersistentValue per column). A failure (the unique sample id, a foreign key) is
   * thrown as TypeORM's QueryFailedError either way, as the per-row inserts did.
   */
  async insertOrder(
    manager: EntityManager | null,
    order: OrderEntity,
    transaction: OrderTransactionEntity,
    events: NewOrderEvents,
    audit: { teamId: string; apiKeyId: string | null },
    outbox: PreparedEvents,
    /**
     * Encrypted, null when there is none: the order's health insurance (its id is
     * order.healthInsuranceId) and its requisition inputs (AoE answers, physician signature).
     */
    { healthInsuranceEnc, requisitionInputsEnc }: { healthInsuranceEnc: string | null; requisitionInputsEnc: string | null },
  ): Promise<void> {
    if ((healthInsuranceEnc === null) !== (order.healthInsuranceId === null))
      throw new Error(`insertOrder: order ${order.id}: health insurance and its id go together`);
    const columns = this.db.getMetadata(OrderEntity).columns;
    const text = (this.insertOrderText ??= insertOrderSql(columns.map((column) => `"${column.databaseName}"`)));
    const values: unknown[] = columns.map((column) => {
      const value = column.getEntityValue(order);
      // TypeORM's insert would write DEFAULT for an undefined property; every order sets them all.
      if (value === undefined) throw new Error(`insertOrder: order.${column.propertyName} is undefined`);
      return this.db.driver.preparePersistentValue(value, column);
    });
    values.push(transaction.id, transaction.teamId, transaction.status, transaction.createdAt, transaction.updatedAt);
    values.push(
      events.ids,
      events.statuses,
      events.createdAt,
      audit.teamId,
      audit.apiKeyId,
      order.healthInsuranceId,
      healthInsuranceEnc,
      requisitionInputsEnc,
      ...outbox.columns,
      outbox.traceParent,
    );
    if (manager) {
      await manager.query(text, values);
      return;
    }
    try {
      await runPrepared(this.db, INSERT_ORDER_STATEMENT, text, values);
    } catch (error) {
      throw new QueryFailedError(text, values, error as Error);
    }
  }

  /**
   * Order creation's reads in one round trip, before it writes: whether the user is a live user
   * of the team (its id, team and environment; not pending deletion) and its client_user_id, the
   * version (updated_at, as text to the microsecond) of lab test `labTestId` when the team can
   * see it (global, or its own in its environment; null when it cannot, or when `labTestId` is
   * null), with the lab accounts the team can see at that lab test's lab, and `eventCount` ids
   * for the order's first events. A named statement (runPrepared), like the team key lookup.
   */
  async createContext(scope: Scope, userId: string, labTestId: string | null, eventCount: number): Promise<CreateContext> {
    const [row] = await runPrepared<{
      user_live: boolean;
      client_user_id: string | null;
      lab_test_version: string | null;
      lab_test_lab_id: number | null;
      lab_accounts: unknown[][] | null;
      event_ids: string[];
    }>(this.db, CREATE_CONTEXT_STATEMENT, createContextSql, [userId, scope.teamId, scope.environment, labTestId, eventCount]);
    const labAccounts =
      row.lab_test_lab_id === null || row.lab_accounts === null ? null : { labId: row.lab_test_lab_id, accounts: labAccountsFromJson(row.lab_accounts) };
    return { userLive: row.user_live, clientUserId: row.client_user_id, labTestVersion: row.lab_test_version, eventIds: row.event_ids, labAccounts };
  }
}
