import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import type { ResultInterpretation } from '../results';
import type { Scope } from './orders.repository';

export interface OrderFilters {
  createdFrom?: Date;
  createdTo?: Date;
  updatedFrom?: Date;
  updatedTo?: Date;
  lowLevelStatuses?: OrderLowLevelStatus[];
  collectionMethods?: string[];
  interpretation?: ResultInterpretation;
  isCritical?: boolean;
  userId?: string;
  orderIds?: string[];
  orderTransactionId?: string;
  /** `scheduled`: the order's activate_by day (UTC) is still ahead, so it waits for it; `current`: not. */
  activationTypes?: Array<'current' | 'scheduled'>;
  orderBy: 'created_at' | 'updated_at';
  direction: 'ASC' | 'DESC';
}

/** What OrderListRepository.namesOf reads of an order. */
export interface OrderNames {
  id: string;
  sampleId: string | null;
  userId: string;
  patientDetailsEnc: string | null;
  shippingDetailsEnc: string | null;
}

/**
 * The condition of the order list's filters over `orders o`, the team's orders only (`GET
 * /v3/orders`); each value is appended to `values` and referred to by its position there.
 */
export function orderListWhereSql(scope: Scope, filters: OrderFilters, values: unknown[]): string {
  const param = (value: unknown, type: string) => `$${values.push(value)}::${type}`;
  const conditions = [`o.team_id = ${param(scope.teamId, 'uuid')}`, `o.environment = ${param(scope.environment, 'text')}`];
  if (filters.createdFrom) conditions.push(`o.created_at >= ${param(filters.createdFrom, 'timestamptz')}`);
  if (filters.createdTo) conditions.push(`o.created_at <= ${param(filters.createdTo, 'timestamptz')}`);
  if (filters.updatedFrom) conditions.push(`o.updated_at >= ${param(filters.updatedFrom, 'timestamptz')}`);
  if (filters.updatedTo) conditions.push(`o.updated_at <= ${param(filters.updatedTo, 'timestamptz')}`);
  if (filters.lowLevelStatuses?.length) conditions.push(`o.low_level_status = ANY(${param(filters.lowLevelStatuses, 'text[]')})`);
  if (filters.collectionMethods?.length) conditions.push(`o.collection_method = ANY(${param(filters.collectionMethods, 'text[]')})`);
  // unknown: results reported without an interpretation, or none yet.
  if (filters.interpretation === 'unknown') conditions.push(`(o.interpretation IS NULL OR o.interpretation = 'unknown')`);
  else if (filters.interpretation) conditions.push(`o.interpretation = ${param(filters.interpretation, 'text')}`);
  if (filters.isCritical === true) conditions.push(`o.interpretation = 'critical'`);
  if (filters.isCritical === false) conditions.push(`o.interpretation IS DISTINCT FROM 'critical'`);
  if (filters.userId) conditions.push(`o.user_id = ${param(filters.userId, 'uuid')}`);
  if (filters.orderIds?.length) conditions.push(`o.id = ANY(${param(filters.orderIds, 'uuid[]')})`);
  if (filters.orderTransactionId) conditions.push(`o.order_transaction_id = ${param(filters.orderTransactionId, 'uuid')}`);
  const activation = new Set(filters.activationTypes ?? []);
  // Both types, or neither: every order. The workflow activates an order at 00:00 UTC of that day.
  if (activation.size === 1) {
    const scheduled = `o.activate_by > (now() AT TIME ZONE 'UTC')::date`;
    conditions.push(activation.has('scheduled') ? scheduled : `(o.activate_by IS NULL OR NOT ${scheduled})`);
  }
  return conditions.join(' AND ');
}

/** The order list's order over `orders o`: by creation or last update, ties by id, both one way. */
export function orderListOrderSql(filters: Pick<OrderFilters, 'orderBy' | 'direction'>): string {
  const direction = filters.direction === 'ASC' ? 'ASC' : 'DESC';
  return `o.${filters.orderBy === 'updated_at' ? 'updated_at' : 'created_at'} ${direction}, o.id ${direction}`;
}

/** The order list (`GET /v3/orders`: filters, its read snapshot) and the status times the order views show. */
@Injectable()
export class OrderListRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Reads in one snapshot (REPEATABLE READ, read only): an order and its events are seen as of
   * one moment, never halfway through a transition committed between two queries.
   */
  snapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction('REPEATABLE READ', async (manager) => {
      await manager.query('SET TRANSACTION READ ONLY');
      return work(manager);
    });
  }

  /**
   * Every order of the team that matches `filters`, in the list's order, with its ids and its
   * encrypted patient and shipping details only: for the search and the filters and sort by
   * name, which are encrypted at rest and so compared after decryption (OrderQueriesService.list).
   */
  async namesOf(scope: Scope, filters: OrderFilters, manager: EntityManager = this.db.manager): Promise<OrderNames[]> {
    const values: unknown[] = [];
    const where = orderListWhereSql(scope, filters, values);
    const rows: Array<{ id: string; sample_id: string | null; user_id: string; patient_details_enc: string | null; shipping_details_enc: string | null }> =
      await manager.query(
        `SELECT o.id, o.sample_id, o.user_id, o.patient_details_enc, o.shipping_details_enc FROM orders o WHERE ${where} ORDER BY ${orderListOrderSql(filters)}`,
        values,
      );
    return rows.map((row) => ({
      id: row.id,
      sampleId: row.sample_id,
      userId: row.user_id,
      patientDetailsEnc: row.patient_details_enc,
      shippingDetailsEnc: row.shipping_details_enc,
    }));
  }

  /** When each order's current low-level status was reached (its latest event). */
  async lowLevelStatusTimes(orderIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, Date>> {
    if (orderIds.length === 0) return new Map();
    const rows: Array<{ order_id: string; created_at: Date }> = await manager.query(
      `SELECT DISTINCT ON (order_id) order_id, created_at FROM order_events WHERE order_id = ANY($1) ORDER BY order_id, seq DESC`,
      [orderIds],
    );
    return new Map(rows.map((row) => [row.order_id, row.created_at]));
  }
}
