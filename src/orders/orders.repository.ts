import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { logPhiAccess, type PhiAccess } from '../common/phi-access-log';
import { runPrepared } from '../common/prepared-statement';
import type { OrderLowLevelStatus, OrderTopLevelStatus } from '../../workflows/order/order-statuses';
import { OrderEntity, OrderEventEntity, OrderResultEntity, OrderTransactionEntity, type OrderTransactionStatus, type Shipment } from './order.entities';
import { changedRows } from '../common/write-statements';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

const MARK_WORKFLOWS_STARTED = {
  name: 'labflow_orders_mark_workflows_started',
  text: `UPDATE orders SET workflow_started_at = clock_timestamp() WHERE id = ANY($1::uuid[]) AND workflow_started_at IS NULL`,
};

/** An order as the HL7 hand-off signals it: whether its results are stored, whether its workflow was started. */
export type OrderSignalState = Pick<OrderEntity, 'id' | 'lowLevelStatus' | 'workflowStartedAt'>;

const ORDER_SIGNAL_STATE = {
  name: 'labflow_orders_signal_state',
  text: `SELECT id, low_level_status AS "lowLevelStatus", workflow_started_at AS "workflowStartedAt" FROM orders WHERE id = $1`,
};

export interface NewTransitionRow {
  orderId: string;
  seq: number;
  status: string;
  statusDetail: string | null;
  top: OrderTopLevelStatus;
  low: OrderLowLevelStatus;
}

/**
 * Intent-named queries over an order's rows: the order, its events, its order transaction and its
 * results (and the PHI audit row of an order read or write). Beside it, over the same tables:
 * OrderListRepository (the list and its snapshot), OrderScanRepository (the reconciler's scans)
 * and OrderReadModel (the statements that also read users, appointments and lab_tests).
 */
@Injectable()
export class OrdersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  findScoped(scope: Scope, id: string, manager: EntityManager = this.db.manager): Promise<OrderEntity | null> {
    return manager.getRepository(OrderEntity).findOneBy({ id, teamId: scope.teamId, environment: scope.environment });
  }

  /** A user's orders, newest first (the patient portal's list and its demographics check). */
  ordersOfUser(scope: Scope, userId: string, limit = 50): Promise<OrderEntity[]> {
    return this.db.getRepository(OrderEntity).find({
      where: { teamId: scope.teamId, environment: scope.environment, userId },
      order: { createdAt: 'DESC' },
      take: limit,
    });
  }

  /** How many orders the team has placed in this environment. */
  async countOf(scope: Scope): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.db.query('SELECT count(*)::int AS n FROM orders WHERE team_id = $1 AND environment = $2', [
      scope.teamId,
      scope.environment,
    ]);
    return n;
  }

  /**
   * The physicians the team's orders named (first name, last name, NPI), each once, by name.
   * Reads every order of the team's environment: a rare call (`GET /v2/team/{team_id}/physicians`).
   */
  physiciansOf(scope: Scope): Promise<Array<{ first_name: string; last_name: string; npi: string }>> {
    return this.db.query(
      `SELECT DISTINCT physician->>'first_name' AS first_name, physician->>'last_name' AS last_name, physician->>'npi' AS npi
         FROM orders WHERE team_id = $1 AND environment = $2 AND physician IS NOT NULL
        ORDER BY last_name, first_name, npi`,
      [scope.teamId, scope.environment],
    );
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<OrderEntity | null> {
    return manager.getRepository(OrderEntity).findOneBy({ id });
  }

  /**
   * What the HL7 hand-off needs of an order to signal it (src/orders/order-hl7-reports.ts), for
   * every order of every batch it hands over: three columns by a prepared statement, not the
   * entity through TypeORM, whose building of it showed as a quarter of the hand-off's CPU.
   */
  async signalStateOf(id: string): Promise<OrderSignalState | null> {
    const [row] = await runPrepared<OrderSignalState>(this.db, ORDER_SIGNAL_STATE.name, ORDER_SIGNAL_STATE.text, [id]);
    return row ?? null;
  }

  /** Locks the order row for the rest of the transaction. */
  lockById(manager: EntityManager, id: string): Promise<OrderEntity | null> {
    return manager.getRepository(OrderEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findBySampleId(scope: Scope, sampleId: string): Promise<OrderEntity | null> {
    return this.db.getRepository(OrderEntity).findOneBy({ teamId: scope.teamId, environment: scope.environment, sampleId });
  }

  /** The order whose kit carries this outbound or return tracking number. */
  async findByTrackingNumber(trackingNumber: string): Promise<OrderEntity | null> {
    return this.db
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .where(`o.shipment->>'outbound_tracking_number' = :n OR o.shipment->>'inbound_tracking_number' = :n`, { n: trackingNumber })
      .getOne();
  }

  async sampleIdTaken(scope: Scope, sampleId: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    return manager.getRepository(OrderEntity).existsBy({ teamId: scope.teamId, environment: scope.environment, sampleId });
  }

  /** Each order's events in order. */
  async eventsOf(orderIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, OrderEventEntity[]>> {
    const byOrder = new Map<string, OrderEventEntity[]>(orderIds.map((id) => [id, []]));
    if (orderIds.length === 0) return byOrder;
    const events = await manager.getRepository(OrderEventEntity).find({ where: { orderId: In(orderIds) }, order: { orderId: 'ASC', seq: 'ASC' } });
    for (const event of events) byOrder.get(event.orderId)?.push(event);
    return byOrder;
  }

  async transactionsOf(
    ids: string[],
    manager: EntityManager = this.db.manager,
  ): Promise<Map<string, { transaction: OrderTransactionEntity; orders: OrderEntity[] }>> {
    const result = new Map<string, { transaction: OrderTransactionEntity; orders: OrderEntity[] }>();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return result;
    const transactions = await manager.getRepository(OrderTransactionEntity).findBy({ id: In(unique) });
    const orders = await manager.getRepository(OrderEntity).find({ where: { orderTransactionId: In(unique) }, order: { createdAt: 'ASC' } });
    for (const transaction of transactions) {
      result.set(transaction.id, { transaction, orders: orders.filter((order) => order.orderTransactionId === transaction.id) });
    }
    return result;
  }

  /**
   * Writes transition `seq` of an order: the event (nothing when it exists: a retry), the
   * order's status, and the transaction's status once the order ends. Returns the event id and
   * whether this call wrote it.
   */
  async recordTransition(manager: EntityManager, row: NewTransitionRow): Promise<{ eventId: number; recorded: boolean }> {
    const inserted: Array<{ id: string }> = await manager.query(
      `INSERT INTO order_events (order_id, seq, status, status_detail, created_at) VALUES ($1, $2, $3, $4, clock_timestamp())
       ON CONFLICT (order_id, seq) DO NOTHING RETURNING id`,
      [row.orderId, row.seq, row.status, row.statusDetail],
    );
    if (inserted.length === 0) {
      const [existing]: Array<{ id: string }> = await manager.query(`SELECT id FROM order_events WHERE order_id = $1 AND seq = $2`, [row.orderId, row.seq]);
      return { eventId: Number(existing.id), recorded: false };
    }
    await manager.query(`UPDATE orders SET status = $2, low_level_status = $3, updated_at = clock_timestamp() WHERE id = $1`, [row.orderId, row.top, row.low]);
    const transactionStatus: OrderTransactionStatus | null = row.top === 'completed' ? 'completed' : row.top === 'cancelled' ? 'cancelled' : null;
    if (transactionStatus) {
      await manager.query(
        `UPDATE order_transactions SET status = $2, updated_at = clock_timestamp()
          WHERE id = (SELECT order_transaction_id FROM orders WHERE id = $1)`,
        [row.orderId, transactionStatus],
      );
    }
    return { eventId: Number(inserted[0].id), recorded: true };
  }

  /**
   * Locks `original`'s order transaction for the rest of the transaction and returns the id of
   * an order of it created at or after `original` (its recreation), or null.
   */
  async lockForRecreation(manager: EntityManager, original: Pick<OrderEntity, 'id' | 'orderTransactionId' | 'createdAt'>): Promise<string | null> {
    await manager.query(`SELECT id FROM order_transactions WHERE id = $1 FOR UPDATE`, [original.orderTransactionId]);
    const newer: Array<{ id: string }> = await manager.query(
      `SELECT id FROM orders WHERE order_transaction_id = $1 AND id <> $2 AND created_at >= $3 LIMIT 1`,
      [original.orderTransactionId, original.id, original.createdAt],
    );
    return newer[0]?.id ?? null;
  }

  /** Writes a recreated order, its first event (`status`, seq 1) and its order transaction active again. */
  /** The recreation of `originalId`: the order, its first event, a copy of the original's requisition inputs; its transaction is active again. */
  async insertRecreated(manager: EntityManager, order: OrderEntity, status: string, originalId: string): Promise<void> {
    await manager.getRepository(OrderEntity).insert(order as never);
    await manager.query(`INSERT INTO order_requisition_inputs (order_id, inputs_enc) SELECT $1, inputs_enc FROM order_requisition_inputs WHERE order_id = $2`, [
      order.id,
      originalId,
    ]);
    await manager.query(`INSERT INTO order_events (order_id, seq, status, created_at) VALUES ($1, 1, $2, clock_timestamp())`, [order.id, status]);
    await manager.query(`UPDATE order_transactions SET status = 'active', updated_at = clock_timestamp() WHERE id = $1`, [order.orderTransactionId]);
  }

  /** Replaces the order's notes (encrypted) and audits the write, in one transaction. */
  async setNotes(orderId: string, notesEnc: string, by: { teamId: string; apiKeyId: string | null }): Promise<void> {
    await this.db.transaction(async (manager) => {
      await this.update(manager, orderId, { notesEnc });
      await logPhiAccess(manager, by, 'write', 'order', [orderId]);
    });
  }

  async update(manager: EntityManager, orderId: string, fields: Partial<OrderEntity>): Promise<void> {
    await manager.getRepository(OrderEntity).update({ id: orderId }, { ...fields, updatedAt: () => 'clock_timestamp()' } as never);
  }

  /** Stores the shipment unless one is already stored; returns the stored one. */
  async setShipmentOnce(orderId: string, shipment: Shipment): Promise<Shipment | null> {
    const rows = await changedRows<{ shipment: Shipment }>(
      this.db,
      `UPDATE orders SET shipment = COALESCE(shipment, $2::jsonb), updated_at = clock_timestamp() WHERE id = $1 RETURNING shipment`,
      [orderId, JSON.stringify(shipment)],
    );
    return rows[0]?.shipment ?? null;
  }

  async setPendingRegistration(orderId: string, sealed: string): Promise<boolean> {
    const result = await this.db.getRepository(OrderEntity).update({ id: orderId }, { pendingRegistrationEnc: sealed });
    return (result.affected ?? 0) > 0;
  }

  async setActivateBy(orderId: string, activateBy: string | null): Promise<void> {
    await this.db.query(`UPDATE orders SET activate_by = $2, updated_at = clock_timestamp() WHERE id = $1`, [orderId, activateBy]);
  }

  /**
   * Records that these orders' workflow starts are confirmed (OrderWorkflows, which groups the
   * orders started while the previous statement ran). Once per order created: a named statement
   * (runPrepared), not TypeORM's query runner, whose bookkeeping cost more API CPU than the
   * statement (profile of POST /v3/order).
   */
  async markWorkflowsStarted(orderIds: string[]): Promise<void> {
    await runPrepared(this.db, MARK_WORKFLOWS_STARTED.name, MARK_WORKFLOWS_STARTED.text, [orderIds]);
  }

  /** The latest event's sequence number and low-level status. */
  async latestSeq(orderId: string, manager: EntityManager = this.db.manager): Promise<number> {
    const [row]: Array<{ seq: number | null }> = await manager.query(`SELECT max(seq) AS seq FROM order_events WHERE order_id = $1`, [orderId]);
    return row?.seq ?? 0;
  }

  /** The encrypted health insurance an order names (orders.health_insurance_id); null when there is none. */
  async healthInsuranceOf(order: Pick<OrderEntity, 'healthInsuranceId'>): Promise<string | null> {
    if (order.healthInsuranceId === null) return null;
    const [row] = await this.db.query<{ insurance_enc: string }[]>('SELECT insurance_enc FROM order_health_insurances WHERE id = $1', [
      order.healthInsuranceId,
    ]);
    return row?.insurance_enc ?? null;
  }

  /** The encrypted requisition inputs of an order (AoE answers, physician signature); null when it has none. */
  async requisitionInputsOf(orderId: string): Promise<string | null> {
    const [row] = await this.db.query<{ inputs_enc: string }[]>('SELECT inputs_enc FROM order_requisition_inputs WHERE order_id = $1', [orderId]);
    return row?.inputs_enc ?? null;
  }

  /** Sets an order's requisition inputs (a kit registration's physician signature). */
  async setRequisitionInputs(manager: EntityManager, orderId: string, sealed: string): Promise<void> {
    await manager.query(
      'INSERT INTO order_requisition_inputs (order_id, inputs_enc) VALUES ($1, $2) ON CONFLICT (order_id) DO UPDATE SET inputs_enc = EXCLUDED.inputs_enc',
      [orderId, sealed],
    );
  }

  /** Stores a health insurance an order will name (once per id). */
  async insertHealthInsurance(manager: EntityManager, insurance: { id: string; userId: string; sealed: string }): Promise<void> {
    await manager.query('INSERT INTO order_health_insurances (id, user_id, insurance_enc) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
      insurance.id,
      insurance.userId,
      insurance.sealed,
    ]);
  }

  resultsOf(orderId: string, manager: EntityManager = this.db.manager): Promise<OrderResultEntity | null> {
    return manager.getRepository(OrderResultEntity).findOneBy({ orderId });
  }

  /** Stores results once (a retried activity keeps the first). */
  async insertResultsOnce(manager: EntityManager, results: OrderResultEntity): Promise<OrderResultEntity> {
    await manager
      .getRepository(OrderResultEntity)
      .createQueryBuilder()
      .insert()
      .values(results as never)
      .orIgnore()
      .execute();
    return (await this.resultsOf(results.orderId, manager)) as OrderResultEntity;
  }

  /**
   * Replaces the stored results by a lab's correction, once per correcting report: false when
   * `reportId` was applied already (a repeat) or the order has no stored results.
   */
  async correctResults(
    manager: EntityManager,
    orderId: string,
    reportId: string,
    results: Pick<OrderResultEntity, 'status' | 'interpretation' | 'resultsEnc' | 'missingResults'>,
  ): Promise<boolean> {
    const rows = await changedRows<unknown>(
      manager,
      `UPDATE order_results SET status = $3, interpretation = $4, results_enc = $5, missing_results = $6, date_reported = clock_timestamp(),
              corrections = array_append(corrections, $2)
        WHERE order_id = $1 AND NOT ($2 = ANY (corrections)) RETURNING order_id`,
      [orderId, reportId, results.status, results.interpretation, results.resultsEnc, JSON.stringify(results.missingResults)],
    );
    return rows.length > 0;
  }

  /** The PHI audit rows of a read or write of these orders (common/phi-access-log.ts). */
  logPhiAccess(by: PhiAccess, action: 'read' | 'write', orderIds: string[], manager: EntityManager = this.db.manager): Promise<void> {
    return logPhiAccess(manager, by, action, 'order', orderIds);
  }
}
