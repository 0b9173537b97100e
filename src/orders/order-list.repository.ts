import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { OrderLowLevelStatus } from '../../workflows/order-lifecycle';
import { OrderEntity } from './order.entities';
import type { Scope } from './orders.repository';

export interface OrderFilters {
  createdFrom?: Date;
  createdTo?: Date;
  updatedFrom?: Date;
  updatedTo?: Date;
  lowLevelStatuses?: OrderLowLevelStatus[];
  collectionMethods?: string[];
  interpretation?: 'normal' | 'abnormal' | 'critical' | 'unknown';
  isCritical?: boolean;
  userId?: string;
  orderIds?: string[];
  orderTransactionId?: string;
  /** Matches an order id, sample id or user id (prefix). */
  searchInput?: string;
  orderBy: 'created_at' | 'updated_at';
  direction: 'ASC' | 'DESC';
}

/** The order list (`GET /v3/orders`: filters, pages, its read snapshot) and the status times the order views show. */
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

  async list(
    scope: Scope,
    filters: OrderFilters,
    page?: { offset: number; limit: number },
    manager: EntityManager = this.db.manager,
  ): Promise<{ orders: OrderEntity[]; total: number }> {
    const query = manager
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .where('o.team_id = :teamId AND o.environment = :environment', { teamId: scope.teamId, environment: scope.environment });
    if (filters.createdFrom) query.andWhere('o.created_at >= :createdFrom', { createdFrom: filters.createdFrom });
    if (filters.createdTo) query.andWhere('o.created_at <= :createdTo', { createdTo: filters.createdTo });
    if (filters.updatedFrom) query.andWhere('o.updated_at >= :updatedFrom', { updatedFrom: filters.updatedFrom });
    if (filters.updatedTo) query.andWhere('o.updated_at <= :updatedTo', { updatedTo: filters.updatedTo });
    if (filters.lowLevelStatuses?.length) query.andWhere('o.low_level_status = ANY(:lows)', { lows: filters.lowLevelStatuses });
    if (filters.collectionMethods?.length) query.andWhere('o.collection_method = ANY(:methods)', { methods: filters.collectionMethods });
    if (filters.interpretation === 'unknown') query.andWhere('o.interpretation IS NULL');
    else if (filters.interpretation) query.andWhere('o.interpretation = :interpretation', { interpretation: filters.interpretation });
    if (filters.isCritical === true) query.andWhere(`o.interpretation = 'critical'`);
    if (filters.isCritical === false) query.andWhere(`o.interpretation IS DISTINCT FROM 'critical'`);
    if (filters.userId) query.andWhere('o.user_id = :userId', { userId: filters.userId });
    if (filters.orderIds?.length) query.andWhere('o.id = ANY(:ids)', { ids: filters.orderIds });
    if (filters.orderTransactionId) query.andWhere('o.order_transaction_id = :tx', { tx: filters.orderTransactionId });
    if (filters.searchInput) {
      query.andWhere(`(o.id::text LIKE :search OR o.sample_id LIKE :search OR o.user_id::text LIKE :search)`, {
        search: `${filters.searchInput.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`,
      });
    }
    query.orderBy(filters.orderBy === 'updated_at' ? 'o.updatedAt' : 'o.createdAt', filters.direction).addOrderBy('o.id', filters.direction);
    if (page) query.skip(page.offset).take(page.limit);
    const [orders, total] = await query.getManyAndCount();
    return { orders, total };
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
