import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { types } from 'pg';
import { DataSource, type EntityManager, In } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { PhiAccessLogEntity } from '../common/phi-access-log.entity';
import { runPrepared } from '../db/prepared-statement';
import { UserEntity } from '../users/user.entity';
import type { AppointmentStatus, OrderResume } from '../../workflows/contract';
import { isTerminal, ORDER_LOW_LEVEL_STATUSES, type OrderLowLevelStatus, type OrderTopLevelStatus } from '../../workflows/order-lifecycle';
import {
  OrderEntity,
  OrderEventEntity,
  OrderResultEntity,
  OrderTransactionEntity,
  type OrderTransactionStatus,
  type Shipment,
} from './order.entities';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

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

export interface NewTransitionRow {
  orderId: string;
  seq: number;
  status: string;
  statusDetail: string | null;
  top: OrderTopLevelStatus;
  low: OrderLowLevelStatus;
}

/** A sibling of an order in its order transaction, as the order view shows it. */
export type SiblingOrder = Pick<OrderEntity, 'id' | 'createdAt' | 'updatedAt' | 'lowLevelStatus' | 'origin'>;

/** Everything `GET /v3/order/{id}` shows, read by one statement (OrdersRepository.readForView). */
export interface OrderRead {
  order: OrderEntity;
  events: OrderEventEntity[];
  transaction: { transaction: Pick<OrderTransactionEntity, 'id' | 'status'>; orders: SiblingOrder[] } | undefined;
  /** When each sibling (the order included) reached its current low-level status. */
  statusTimes: Map<string, Date>;
  /** The latest appointment of a walk-in or at-home order. */
  appointmentId: string | undefined;
  /** updated_at of the order's lab test (as text, to the microsecond) when visible to the order's team; null otherwise. */
  labTestVersion: string | null;
}

/**
 * `GET /v3/order/{id}` in one statement, so in one snapshot: the team's order, its events, its
 * order transaction with every sibling and when each reached its status, its latest appointment
 * (not for kits), its lab test's version, and the PHI read audit row. The audit row is inserted by
 * the same statement that reads the ciphertext, only when the team's order exists: no PHI leaves
 * the database unaudited, and a failed audit insert fails the read. Timestamps inside the JSON are
 * Postgres' text output, parsed by pg's own timestamptz parser: the same Dates as a column read.
 * Every JSON aggregate is ordered as the per-part queries were (events by seq; siblings by
 * created_at, then id so that ties are stable).
 */
const readForViewSql = (columns: string) => `
  WITH o AS (
    SELECT ${columns} FROM orders WHERE id = $1::uuid AND team_id = $2::uuid AND environment = $3::text
  ), audit AS (
    INSERT INTO phi_access_log (team_id, api_key_id, action, resource, resource_id)
    SELECT $2::uuid, $4::uuid, 'read', 'order', o.id FROM o
  )
  SELECT ${columns},
    (SELECT json_agg(json_build_array(e.id::text, e.seq, e.created_at::text, e.status, e.status_detail) ORDER BY e.seq)
       FROM order_events e WHERE e.order_id = o.id) AS read_events,
    (SELECT json_build_array(t.id, t.status) FROM order_transactions t WHERE t.id = o.order_transaction_id) AS read_transaction,
    (SELECT json_agg(json_build_array(s.id, s.created_at::text, s.updated_at::text, s.low_level_status, s.origin,
              (SELECT l.created_at::text FROM order_events l WHERE l.order_id = s.id ORDER BY l.seq DESC LIMIT 1))
            ORDER BY s.created_at, s.id)
       FROM orders s WHERE s.order_transaction_id = o.order_transaction_id) AS read_siblings,
    CASE WHEN o.collection_method <> 'testkit'
      THEN (SELECT a.id FROM appointments a WHERE a.order_id = o.id ORDER BY a.n DESC LIMIT 1) END AS read_appointment_id,
    (SELECT lt.updated_at::text FROM lab_tests lt
      WHERE lt.id = o.lab_test_id AND (lt.team_id IS NULL OR (lt.team_id = o.team_id AND lt.environment = o.environment))) AS read_lab_test_version
  FROM o`;

const READ_FOR_VIEW_STATEMENT = 'labflow_orders_read_for_view';

/**
 * Order creation's write in one statement (OrdersRepository.insertOrder): the order transaction,
 * the order (every column, $1…$n in `columns` order), its first events and the PHI write audit
 * row; returns the events (id, seq, status, created_at) in seq order, each with the user's
 * client_user_id (the outbox event's). Foreign keys are checked at the end of the statement, when
 * every row is in. The events are inserted in seq order, each taking its own clock_timestamp()
 * and the next id, as one INSERT per event did.
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
    INSERT INTO order_events (order_id, seq, status, created_at)
    SELECT ${orderId}, s.seq, s.status, clock_timestamp() FROM unnest(${p(6)}::text[]) WITH ORDINALITY AS s(status, seq) ORDER BY s.seq
    RETURNING id, seq, status, created_at
  ), audit AS (
    INSERT INTO phi_access_log (team_id, api_key_id, action, resource, resource_id) VALUES (${p(7)}, ${p(8)}, 'write', 'order', ${orderId})
  )
  SELECT e.id, e.seq, e.status, e.created_at, (SELECT u.client_user_id FROM users u WHERE u.id = ${param('user_id')}::uuid) AS client_user_id
    FROM (SELECT 1) AS one LEFT JOIN e ON true
   ORDER BY e.seq`;
};

/** Order creation's reads (OrdersRepository.createContext). */
const createContextSql = `
  SELECT EXISTS (
           SELECT 1 FROM users u
            WHERE u.id = $1::uuid AND u.team_id = $2::uuid AND u.environment = $3::text AND u.deletion_requested_at IS NULL
         ) AS user_live,
         (SELECT lt.updated_at::text FROM lab_tests lt
           WHERE lt.id = $4::uuid AND (lt.team_id IS NULL OR (lt.team_id = $2::uuid AND lt.environment = $3::text))) AS lab_test_version`;

const CREATE_CONTEXT_STATEMENT = 'labflow_orders_create_context';

/** Where the reconciler's scan of non-terminal orders stands (OrdersRepository.nonTerminalPage). */
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

/** pg's parser for timestamptz text: what a timestamptz column read yields. */
const parseTimestamptz = types.getTypeParser(1184, 'text') as (value: string) => Date;

/** Intent-named queries over orders, their events, transactions and results. */
@Injectable()
export class OrdersRepository {
  /** readForViewSql with OrderEntity's columns, built on first use. */
  private readForViewText?: string;
  /** insertOrderSql with OrderEntity's columns, built on first use. */
  private insertOrderText?: string;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

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
   * Writes a new order, its order transaction, its first events (seq 1, 2, …, each at
   * clock_timestamp() as its own INSERT used to) and the PHI write audit row, in one statement
   * (insertOrderSql) on the caller's transaction. Returns the events as written and the user's
   * client_user_id, read by the same statement. Every order column is written with the value
   * TypeORM's own insert would send (preparePersistentValue per column). A failure (the unique
   * sample id, a foreign key) is thrown as TypeORM's QueryFailedError, as the per-row inserts did.
   */
  async insertOrder(
    manager: EntityManager,
    order: OrderEntity,
    transaction: OrderTransactionEntity,
    statuses: string[],
    audit: { teamId: string; apiKeyId: string | null },
  ): Promise<{ events: OrderEventEntity[]; clientUserId: string | null }> {
    const columns = this.orderColumns();
    this.insertOrderText ??= insertOrderSql(columns.map((column) => `"${column.databaseName}"`));
    const values: unknown[] = columns.map((column) => {
      const value = column.getEntityValue(order);
      // TypeORM's insert would write DEFAULT for an undefined property; every order sets them all.
      if (value === undefined) throw new Error(`insertOrder: order.${column.propertyName} is undefined`);
      return this.db.driver.preparePersistentValue(value, column);
    });
    values.push(transaction.id, transaction.teamId, transaction.status, transaction.createdAt, transaction.updatedAt, statuses, audit.teamId, audit.apiKeyId);
    const rows: Array<{ id: string | null; seq: number | null; status: string | null; created_at: Date | null; client_user_id: string | null }> = await manager.query(
      this.insertOrderText,
      values,
    );
    const events = rows
      .filter((row) => row.id !== null)
      .map((row) => Object.assign(new OrderEventEntity(), { id: row.id, orderId: order.id, seq: row.seq, status: row.status, statusDetail: null, createdAt: row.created_at }));
    return { events, clientUserId: rows[0]?.client_user_id ?? null };
  }

  /** OrderEntity's columns, in metadata order. */
  private orderColumns() {
    return this.db.getMetadata(OrderEntity).columns;
  }

  /**
   * Order creation's reads in one round trip, before its transaction: whether the user is a live
   * user of the team (its id, team and environment; not pending deletion), and the version
   * (updated_at, as text to the microsecond) of lab test `labTestId` when the team can see it
   * (global, or its own in its environment); null when it cannot, or when `labTestId` is null.
   * A named statement (runPrepared), like the team key lookup.
   */
  async createContext(scope: Scope, userId: string, labTestId: string | null): Promise<{ userLive: boolean; labTestVersion: string | null }> {
    const [row] = await runPrepared<{ user_live: boolean; lab_test_version: string | null }>(this.db, CREATE_CONTEXT_STATEMENT, createContextSql, [
      userId,
      scope.teamId,
      scope.environment,
      labTestId,
    ]);
    return { userLive: row.user_live, labTestVersion: row.lab_test_version };
  }

  findScoped(scope: Scope, id: string, manager: EntityManager = this.db.manager): Promise<OrderEntity | null> {
    return manager.getRepository(OrderEntity).findOneBy({ id, teamId: scope.teamId, environment: scope.environment });
  }

  /**
   * The team's order and everything its view needs, with the PHI read audit row, in one round
   * trip (readForViewSql); null (and no audit row) when the team has no such order.
   */
  async readForView(scope: Scope, apiKeyId: string | null, id: string): Promise<OrderRead | null> {
    const metadata = this.db.getMetadata(OrderEntity);
    this.readForViewText ??= readForViewSql(metadata.columns.map((column) => `"${column.databaseName}"`).join(', '));
    const rows = await runPrepared<Record<string, unknown>>(this.db, READ_FOR_VIEW_STATEMENT, this.readForViewText, [id, scope.teamId, scope.environment, apiKeyId]);
    if (rows.length === 0) return null;
    const row = rows[0];
    // Hydrated column by column exactly as TypeORM hydrates a queried entity.
    const order = metadata.create(undefined, { fromDeserializer: true }) as OrderEntity;
    for (const column of metadata.columns) {
      const value = row[column.databaseName];
      if (value !== undefined) column.setEntityValue(order, this.db.driver.prepareHydratedValue(value, column));
    }
    const events = ((row.read_events as Array<[string, number, string, string, string | null]> | null) ?? []).map(([eventId, seq, createdAt, status, statusDetail]) =>
      Object.assign(new OrderEventEntity(), { id: eventId, orderId: order.id, seq, status, statusDetail, createdAt: parseTimestamptz(createdAt) }),
    );
    const statusTimes = new Map<string, Date>();
    const siblings = ((row.read_siblings as Array<[string, string, string, OrderLowLevelStatus, OrderEntity['origin'], string | null]> | null) ?? []).map(
      ([siblingId, createdAt, updatedAt, lowLevelStatus, origin, statusAt]) => {
        if (statusAt !== null) statusTimes.set(siblingId, parseTimestamptz(statusAt));
        return { id: siblingId, createdAt: parseTimestamptz(createdAt), updatedAt: parseTimestamptz(updatedAt), lowLevelStatus, origin };
      },
    );
    const transaction = row.read_transaction as [string, OrderTransactionStatus] | null;
    return {
      order,
      events,
      transaction: transaction ? { transaction: { id: transaction[0], status: transaction[1] }, orders: siblings } : undefined,
      statusTimes,
      appointmentId: (row.read_appointment_id as string | null) ?? undefined,
      labTestVersion: row.read_lab_test_version as string | null,
    };
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<OrderEntity | null> {
    return manager.getRepository(OrderEntity).findOneBy({ id });
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

  async transactionsOf(ids: string[], manager: EntityManager = this.db.manager): Promise<Map<string, { transaction: OrderTransactionEntity; orders: OrderEntity[] }>> {
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

  /** When each order's current low-level status was reached (its latest event). */
  async lowLevelStatusTimes(orderIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, Date>> {
    if (orderIds.length === 0) return new Map();
    const rows: Array<{ order_id: string; created_at: Date }> = await manager.query(
      `SELECT DISTINCT ON (order_id) order_id, created_at FROM order_events WHERE order_id = ANY($1) ORDER BY order_id, seq DESC`,
      [orderIds],
    );
    return new Map(rows.map((row) => [row.order_id, row.created_at]));
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
  async insertRecreated(manager: EntityManager, order: OrderEntity, status: string): Promise<void> {
    await manager.getRepository(OrderEntity).insert(order as never);
    await manager.query(`INSERT INTO order_events (order_id, seq, status, created_at) VALUES ($1, 1, $2, clock_timestamp())`, [order.id, status]);
    await manager.query(`UPDATE order_transactions SET status = 'active', updated_at = clock_timestamp() WHERE id = $1`, [order.orderTransactionId]);
  }

  async update(manager: EntityManager, orderId: string, fields: Partial<OrderEntity>): Promise<void> {
    await manager.getRepository(OrderEntity).update({ id: orderId }, { ...fields, updatedAt: () => 'clock_timestamp()' } as never);
  }

  /** Stores the shipment unless one is already stored; returns the stored one. */
  async setShipmentOnce(orderId: string, shipment: Shipment): Promise<Shipment | null> {
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [rows]: [Array<{ shipment: Shipment }>, number] = await this.db.query(
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

  /** What Postgres knows of an order's appointments, for a new run of its workflow (OrderResume). */
  async resumeOf(orderId: string): Promise<OrderResume> {
    const rows: Array<{ count: number; n: number | null; id: string | null; status: AppointmentStatus | null; version: number | null; start_at: Date | null; end_at: Date | null }> =
      await this.db.query(
        `SELECT (SELECT count(*)::int FROM appointments WHERE order_id = $1) AS count,
                a.n, a.id, a.status, cardinality(a.applied_changes) AS version, a.start_at, a.end_at
           FROM (SELECT 1) AS one
           LEFT JOIN LATERAL (SELECT * FROM appointments WHERE order_id = $1 ORDER BY n DESC LIMIT 1) a ON true`,
        [orderId],
      );
    const row = rows[0];
    return {
      appointmentCount: row.count,
      appointment:
        row.id === null
          ? null
          : {
              n: row.n as number,
              appointmentId: row.id,
              status: row.status as AppointmentStatus,
              version: row.version as number,
              startAt: row.start_at ? row.start_at.toISOString() : null,
              endAt: row.end_at ? row.end_at.toISOString() : null,
            },
    };
  }

  async markWorkflowStarted(orderId: string): Promise<void> {
    await this.db.query(`UPDATE orders SET workflow_started_at = clock_timestamp() WHERE id = $1 AND workflow_started_at IS NULL`, [orderId]);
  }

  /** The latest event's sequence number and low-level status. */
  async latestSeq(orderId: string, manager: EntityManager = this.db.manager): Promise<number> {
    const [row]: Array<{ seq: number | null }> = await manager.query(`SELECT max(seq) AS seq FROM order_events WHERE order_id = $1`, [orderId]);
    return row?.seq ?? 0;
  }

  /** Whether the team asked for `partial_results` order webhooks (management API). */
  async partialWebhooksEnabled(teamId: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    const [row]: Array<{ enabled: boolean }> = await manager.query(`SELECT partial_webhooks_enabled AS enabled FROM teams WHERE id = $1`, [teamId]);
    return row?.enabled ?? false;
  }

  /** The id of each order's latest appointment (walk-in and at-home orders). */
  async latestAppointmentIds(orderIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, string>> {
    if (orderIds.length === 0) return new Map();
    const rows: Array<{ order_id: string; id: string }> = await manager.query(
      `SELECT DISTINCT ON (order_id) order_id, id FROM appointments WHERE order_id = ANY($1::uuid[]) ORDER BY order_id, n DESC`,
      [orderIds],
    );
    return new Map(rows.map((row) => [row.order_id, row.id]));
  }

  async clientUserIdOf(userId: string, manager: EntityManager = this.db.manager): Promise<string | null> {
    const user = await manager.getRepository(UserEntity).findOneBy({ id: userId });
    return user?.clientUserId ?? null;
  }

  resultsOf(orderId: string, manager: EntityManager = this.db.manager): Promise<OrderResultEntity | null> {
    return manager.getRepository(OrderResultEntity).findOneBy({ orderId });
  }

  /** Stores results once (a retried activity keeps the first). */
  async insertResultsOnce(manager: EntityManager, results: OrderResultEntity): Promise<OrderResultEntity> {
    await manager.getRepository(OrderResultEntity).createQueryBuilder().insert().values(results as never).orIgnore().execute();
    return (await this.resultsOf(results.orderId, manager)) as OrderResultEntity;
  }

  async logPhiAccess(by: { teamId: string; apiKeyId: string | null }, action: 'read' | 'write', orderIds: string[], manager: EntityManager = this.db.manager): Promise<void> {
    if (orderIds.length === 0) return;
    await manager
      .getRepository(PhiAccessLogEntity)
      .insert(orderIds.map((resourceId) => ({ teamId: by.teamId, apiKeyId: by.apiKeyId, action, resource: 'order', resourceId })));
  }
}
