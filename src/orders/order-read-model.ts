/**
 * The order read model: reads of orders that also read other modules' tables (users,
 * appointments, lab_tests), on purpose. Order creation's statements, which do the same for its
 * write, are in order-creation.repository.ts.
 *
 * Every other order repository touches only the orders module's tables (orders, order_events,
 * order_transactions, order_results); a read of another module goes through that module's
 * repository. These do not, for two reasons:
 * - Speed: `GET /v3/order/{id}` (readForView) reads what it needs of users, appointments and
 *   lab_tests in the same statement as the order rows: one round trip instead of one per module,
 *   and one snapshot. (Its PHI audit row is PhiReadAudit's: group commit, see
 *   src/common/phi-access-log.ts.)
 * - Direction: appointments import orders, so orders cannot ask the appointments repository for
 *   an order's latest appointment (latestAppointmentIds, resumeOf) without a folder cycle.
 * Keep it to reads an order view or an order workflow needs; it writes nothing.
 */
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { types } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { DateUtils } from 'typeorm/util/DateUtils';
import { runPrepared } from '../common/prepared-statement';
import type { AppointmentStatus, OrderResume } from '../../workflows/contract';
import type { OrderLowLevelStatus } from '../../workflows/order/order-statuses';
import { OrderEntity, OrderEventEntity, type OrderTransactionEntity, type OrderTransactionStatus } from './order.entities';
import { type OrderFilters, orderListOrderSql, orderListWhereSql } from './order-list.repository';
import type { Scope } from './orders.repository';

/** A sibling of an order in its order transaction, as the order view shows it. */
export type SiblingOrder = Pick<OrderEntity, 'id' | 'createdAt' | 'updatedAt' | 'lowLevelStatus' | 'origin'>;

/** Everything `GET /v3/order/{id}` shows, read by one statement (OrderReadModel.readForView). */
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
 * What an order view needs besides the order's own columns, for the order `o` of the statement
 * around it: its events, its order transaction with every sibling and when each reached its
 * status, its latest appointment (not for kits), and its lab test's version. Timestamps inside
 * the JSON are Postgres' text output, parsed by pg's own timestamptz parser: the same Dates as a
 * column read. Every JSON aggregate is ordered as the per-part queries were (events by seq;
 * siblings by created_at, then id so that ties are stable).
 */
const VIEW_PARTS_SQL = `
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
      WHERE lt.id = o.lab_test_id AND (lt.team_id IS NULL OR (lt.team_id = o.team_id AND lt.environment = o.environment))) AS read_lab_test_version`;

/**
 * `GET /v3/order/{id}` in one statement, so in one snapshot: the team's order and its view's
 * parts. A read only: the PHI read audit row is written by PhiReadAudit
 * (src/common/phi-access-log.ts), which the read waits for before it answers.
 */
const readForViewSql = (columns: string) => `
  WITH o AS (
    SELECT ${columns} FROM orders WHERE id = $1::uuid AND team_id = $2::uuid AND environment = $3::text
  )
  SELECT ${columns},${VIEW_PARTS_SQL}
  FROM o`;

/**
 * A page of the order list with everything each order's view needs (VIEW_PARTS_SQL) and the
 * number of orders that match, in one statement: `where` and `orderBy` over `orders o`
 * (orderListWhereSql, orderListOrderSql), the page's offset and limit as parameters
 * `offsetParam` and `offsetParam + 1`. With no order on the page (past the last one) the one
 * row has the total and nulls.
 */
const readPageSql = (columns: string[], where: string, orderBy: string, offsetParam: number) => `
  WITH page AS (
    SELECT ${columns.map((column) => `o.${column}`).join(', ')} FROM orders o
     WHERE ${where} ORDER BY ${orderBy} OFFSET $${offsetParam}::int LIMIT $${offsetParam + 1}::int
  )
  SELECT t.read_total, ${columns.map((column) => `o.${column}`).join(', ')},${VIEW_PARTS_SQL}
  FROM (SELECT count(*)::int AS read_total FROM orders o WHERE ${where}) t
  LEFT JOIN page o ON true
  ORDER BY ${orderBy}`;

const READ_FOR_VIEW_STATEMENT = 'labflow_orders_read_for_view_v2';

/**
 * The named statement `GET /v3/order/{id}` reads with (readForViewSql over OrderEntity's columns;
 * parameters: order id, team id, environment). Exported for bench:reads, whose floor runs it too.
 */
export function orderViewStatement(db: DataSource): { name: string; text: string } {
  const columns = db.getMetadata(OrderEntity).columns.map((column) => `"${column.databaseName}"`);
  return { name: READ_FOR_VIEW_STATEMENT, text: readForViewSql(columns.join(', ')) };
}

/**
 * The named statement a page of `GET /v3/orders` reads with (readPageSql; one name per shape of
 * the filters, which is what the text depends on) and its parameters. Exported for bench:reads,
 * whose floor runs it too.
 */
export function orderPageStatement(
  db: DataSource,
  scope: Scope,
  filters: OrderFilters,
  page: { offset: number; limit: number },
): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = orderListWhereSql(scope, filters, values);
  const orderBy = orderListOrderSql(filters);
  const offsetParam = values.length + 1;
  const key = `${where}\n${orderBy}\n${offsetParam}`;
  let statement = pageStatements.get(key);
  if (!statement) {
    const columns = db.getMetadata(OrderEntity).columns.map((column) => `"${column.databaseName}"`);
    const text = readPageSql(columns, where, orderBy, offsetParam);
    statement = { name: `labflow_orders_page_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
    // The shapes of the filters are few (each filter present or not); the bound only guards memory.
    if (pageStatements.size >= 1000) pageStatements.clear();
    pageStatements.set(key, statement);
  }
  values.push(page.offset, page.limit);
  return { ...statement, values };
}

/**
 * The page statement of each shape of the filters (orderListWhereSql's and orderListOrderSql's
 * text, which hold no values, only their positions), built and named once: the text is some 3 kB
 * over ~40 columns and was rebuilt and hashed on every `GET /v3/orders`.
 */
const pageStatements = new Map<string, { name: string; text: string }>();

/**
 * An orders row as OrderReadModel's statements read it (every column of OrderEntity by its
 * database name, as pg parses it) as an OrderEntity, with the very values TypeORM's hydration
 * gives (PostgresDriver.prepareHydratedValue): pg's values as they are for every column type
 * orders has, but the `date` column, which pg parses to a local midnight and TypeORM prints back
 * as YYYY-MM-DD, and timestamps, which TypeORM would parse were they text. By hand, as users are
 * (userFromRow): TypeORM's per-column loop (metadata lookups, a type switch and a transformer
 * check for each of ~40 columns) was a measurable part of reading a page of orders.
 * test/unit/order-row.test.ts compares it with TypeORM's hydration column by column, so a column
 * added to OrderEntity and not here fails there.
 */
export function orderFromRow(row: Record<string, unknown>): OrderEntity {
  const timestamp = (value: unknown) => DateUtils.normalizeHydratedDate(value as Date | string | undefined) as Date;
  const date = (value: unknown) => (value === null || value === undefined ? (value as null) : DateUtils.mixedDateToDateString(value as Date | string));
  return Object.assign(new OrderEntity(), {
    id: row.id,
    teamId: row.team_id,
    environment: row.environment,
    userId: row.user_id,
    labTestId: row.lab_test_id,
    labId: row.lab_id,
    labAccountId: row.lab_account_id,
    collectionMethod: row.collection_method,
    flow: row.flow,
    status: row.status,
    lowLevelStatus: row.low_level_status,
    origin: row.origin,
    orderTransactionId: row.order_transaction_id,
    registrable: row.registrable,
    sampleId: row.sample_id,
    patientDetailsEnc: row.patient_details_enc,
    patientAddressEnc: row.patient_address_enc,
    shippingDetailsEnc: row.shipping_details_enc,
    pendingRegistrationEnc: row.pending_registration_enc,
    registeredAt: timestamp(row.registered_at),
    physician: row.physician,
    clinicalNotesEnc: row.clinical_notes_enc,
    clinicalNotes: row.clinical_notes,
    healthInsuranceId: row.health_insurance_id,
    priority: row.priority,
    billingType: row.billing_type,
    icdCodesEnc: row.icd_codes_enc,
    icdCodes: row.icd_codes,
    consents: row.consents,
    activateBy: date(row.activate_by),
    passthrough: row.passthrough,
    interpretation: row.interpretation,
    hasAbn: row.has_abn,
    hasMissingResults: row.has_missing_results,
    requisitionFormUrl: row.requisition_form_url,
    shipment: row.shipment,
    workflowStartedAt: timestamp(row.workflow_started_at),
    notesEnc: row.notes_enc,
    createdAt: timestamp(row.created_at),
    updatedAt: timestamp(row.updated_at),
  } as Partial<OrderEntity>);
}

/** pg's parser for timestamptz text: what a timestamptz column read yields. */
const parseTimestamptz = types.getTypeParser(1184, 'text') as (value: string) => Date;

/** The order statements that read users, appointments and lab_tests with the order (see the top of this file). */
@Injectable()
export class OrderReadModel {
  /** orderViewStatement, built on first use. */
  private viewStatement?: { name: string; text: string };

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The team's order and everything its view needs in one round trip (readForViewSql); null when
   * the team has no such order. The caller audits the read (PhiReadAudit) before it answers.
   */
  async readForView(scope: Scope, id: string): Promise<OrderRead | null> {
    const statement = (this.viewStatement ??= orderViewStatement(this.db));
    const rows = await runPrepared<Record<string, unknown>>(this.db, statement.name, statement.text, [id, scope.teamId, scope.environment]);
    return rows.length === 0 ? null : this.readOf(rows[0]);
  }

  /**
   * A page of the team's orders that match `filters` (`GET /v3/orders`), each with everything
   * its view needs, and how many match, in one round trip and so one snapshot (readPageSql).
   * `manager`: a transaction of the caller's, else a named statement (one per shape of the
   * filters) on a pool connection. The caller audits the read (PhiReadAudit) before it answers.
   */
  async readPage(
    scope: Scope,
    filters: OrderFilters,
    page: { offset: number; limit: number },
    manager?: EntityManager,
  ): Promise<{ reads: OrderRead[]; total: number }> {
    const { name, text, values } = orderPageStatement(this.db, scope, filters, page);
    const rows: Array<Record<string, unknown>> = manager ? await manager.query(text, values) : await runPrepared(this.db, name, text, values);
    const total = rows.length === 0 ? 0 : (rows[0].read_total as number);
    return { reads: rows.filter((row) => row.id !== null).map((row) => this.readOf(row)), total };
  }

  /** An order view's row (readForViewSql, readPageSql) as an OrderRead. */
  private readOf(row: Record<string, unknown>): OrderRead {
    const order = orderFromRow(row);
    const events = ((row.read_events as Array<[string, number, string, string, string | null]> | null) ?? []).map(
      ([eventId, seq, createdAt, status, statusDetail]) =>
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

  /** The id of each order's latest appointment (walk-in and at-home orders), for the order views. */
  async latestAppointmentIds(orderIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, string>> {
    if (orderIds.length === 0) return new Map();
    const rows: Array<{ order_id: string; id: string }> = await manager.query(
      `SELECT DISTINCT ON (order_id) order_id, id FROM appointments WHERE order_id = ANY($1::uuid[]) ORDER BY order_id, n DESC`,
      [orderIds],
    );
    return new Map(rows.map((row) => [row.order_id, row.id]));
  }

  /** What Postgres knows of an order's appointments, for a new run of its workflow (OrderResume). */
  async resumeOf(orderId: string): Promise<OrderResume> {
    const rows: Array<{
      count: number;
      n: number | null;
      id: string | null;
      status: AppointmentStatus | null;
      version: number | null;
      start_at: Date | null;
      end_at: Date | null;
      ack_code: string | null;
      ack_text: string | null;
      control_id: string | null;
    }> = await this.db.query(
      `SELECT (SELECT count(*)::int FROM appointments WHERE order_id = $1) AS count,
                a.n, a.id, a.status, cardinality(a.applied_changes) AS version, a.start_at, a.end_at,
                h.ack_code, h.ack_text, h.control_id
           FROM (SELECT 1) AS one
           LEFT JOIN LATERAL (SELECT * FROM appointments WHERE order_id = $1 ORDER BY n DESC LIMIT 1) a ON true
           LEFT JOIN LATERAL (SELECT ack_code, ack_text, control_id FROM hl7_messages
                               WHERE order_id = $1 AND direction = 'out' AND state = 'accepted' ORDER BY created_at DESC, id DESC LIMIT 1) h ON true`,
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
      // The lab reached by message took the order message: the new run still tells it of a cancellation.
      labOrderAccepted: row.control_id === null ? null : { code: row.ack_code ?? 'AA', text: row.ack_text ?? '', controlId: row.control_id },
    };
  }
}
