import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SESSION_LOCKS, withSessionLock } from '../common/session-lock';
import { ORDER_LOW_LEVEL_STATUSES } from '../../workflows/order/order-statuses';
import { isTerminal } from '../../workflows/order/order-lifecycle';
import { OrderEntity } from './order.entities';

/** Where the reconciler's scan of non-terminal orders stands (OrderScanRepository.nonTerminalPage). */
export interface OrderScanPosition {
  /** created_at as Postgres prints a timestamptz (to the microsecond). */
  createdAt: string;
  id: string;
}

/** The terminal low-level statuses as sorted SQL literals (constants of the lifecycle, no input). */
const TERMINAL_LITERALS = ORDER_LOW_LEVEL_STATUSES.filter(isTerminal)
  .sort()
  .map((low) => `'${low}'`)
  .join(', ');

/** The reconciler's scans over orders (order-reconciler.ts): unstarted workflows, orders not yet ended. */
@Injectable()
export class OrderScanRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs one reconciler pass holding the reconciler's session lock, so that of several workers
   * (replicas) one reconciles at a time; `{ran: false}` when another process holds it.
   */
  exclusively<T>(pass: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return withSessionLock(this.db, SESSION_LOCKS.orderReconciler, pass);
  }

  /** Orders whose workflow start is not confirmed, oldest first. */
  unstarted(olderThan: Date, limit: number): Promise<OrderEntity[]> {
    return this.db
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .where('o.workflow_started_at IS NULL AND o.created_at < :olderThan', { olderThan })
      .orderBy('o.created_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * One keyset page of the orders that have not ended (their status is not terminal), by
   * (created_at, id), strictly after `after`, and the position after its last row (null once the
   * page is the last: fewer than `limit` rows). The position keeps created_at as Postgres text
   * (microseconds; a Date would lose them and repeat rows). The terminal list is written out as
   * literals, sorted, as the partial index orders_not_terminal has it.
   */
  async nonTerminalPage(after: OrderScanPosition | null, limit: number): Promise<{ orders: OrderEntity[]; next: OrderScanPosition | null }> {
    const query = this.db
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .addSelect('o.created_at::text', 'scan_at')
      .where(`o.low_level_status NOT IN (${TERMINAL_LITERALS})`)
      .orderBy('o.created_at', 'ASC')
      .addOrderBy('o.id', 'ASC')
      .limit(limit);
    if (after) query.andWhere('(o.created_at, o.id) > (CAST(:scanAt AS timestamptz), CAST(:scanId AS uuid))', { scanAt: after.createdAt, scanId: after.id });
    const { entities, raw } = await query.getRawAndEntities<{ scan_at: string }>();
    const last = entities.length;
    return { orders: entities, next: last < limit ? null : { createdAt: raw[last - 1].scan_at, id: entities[last - 1].id } };
  }
}
