import { Injectable, Optional } from '@nestjs/common';
import { types } from 'pg';
import type { EntityManager } from 'typeorm';
import { PhiCipher } from '../common/crypto';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { LabTestsRepository } from '../lab-tests/lab-tests.repository';
import { toLabTestView } from '../lab-tests/lab-catalog.views';
import type { LabTestEntity } from '../lab-tests/lab-catalog.entities';
import type { LabTestView } from '../lab-tests/lab-tests.dto';
import { clinicalNotesOf, icdCodesOf, type OrderEntity, type OrderEventEntity, type Physician, type Shipment } from './order.entities';
import type { PatientAddress, PatientDetails, ShippingAddress } from './orders.dto';
import { OrderListRepository } from './order-list.repository';
import { type OrderRead, OrderReadModel, type SiblingOrder } from './order-read-model';
import { OrdersRepository } from './orders.repository';
import { RequisitionLinks } from '../requisitions/requisition-links';

/** Lab-test versions kept in memory per process (the catalog has tens, teams add a few). */
const LAB_TEST_CACHE_SIZE = 1000;

type LabTestParts = { lab: Parameters<typeof toLabTestView>[1]; markers: Parameters<typeof toLabTestView>[2] };

/** pg's parser for timestamptz text (what a timestamptz column read yields). */
const parseTimestamptz = types.getTypeParser(1184, 'text') as (value: string) => Date;

/** Adds to a bounded map, evicting the oldest entry when full. */
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= LAB_TEST_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

export interface OrderEventView {
  id: number;
  created_at: string;
  status: string;
  status_detail: string | null;
}

/** Junction's ClientFacingOrder (with status_detail, last_event, origin and order_transaction). */
export interface OrderView {
  id: string;
  team_id: string;
  user_id: string;
  patient_details: Record<string, unknown> | null;
  patient_address: Record<string, unknown> | null;
  lab_test: LabTestView;
  /** Test kits: `data.shipment`; walk-in and at-home phlebotomy: `data.appointment_id` (the latest appointment). */
  details: {
    type: string;
    data: { id: string; shipment?: ShipmentView | null; appointment_id?: string; created_at: string; updated_at: string };
  };
  sample_id: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
  events: OrderEventView[];
  status: string;
  last_event: OrderEventView | null;
  physician: Physician | null;
  health_insurance_id: string | null;
  requisition_form_url: string | null;
  priority: boolean;
  shipping_details: ShippingAddress | null;
  activate_by: string | null;
  passthrough: string | null;
  billing_type: string | null;
  icd_codes: string[] | null;
  has_abn: boolean;
  interpretation: string | null;
  has_missing_results: boolean | null;
  expected_result_by_date: string | null;
  worst_case_result_by_date: string | null;
  origin: string;
  order_transaction: {
    id: string;
    status: string;
    orders: Array<{ id: string; created_at: string; updated_at: string; low_level_status: string; low_level_status_created_at: string | null; origin: string }>;
  } | null;
  clinical_notes: string | null;
  lab_account_id: string;
}

/** Junction's PostOrderResponse: the answer of every order command. */
export interface PostOrderResponse {
  order: OrderView;
  status: 'success';
  message: string;
}

export interface ShipmentView {
  id: string;
  outbound_tracking_number: string | null;
  outbound_tracking_url: string | null;
  outbound_courier: string | null;
  inbound_tracking_number: string | null;
  inbound_tracking_url: string | null;
  inbound_courier: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Builds order views from Postgres (never from the workflow), in bulk for lists; a created order's
 * view from what its insert wrote (`created`).
 */
@Injectable()
export class OrderViews {
  /** Lab and markers of each lab-test version seen (see labTestView). */
  private readonly labTestParts = new Map<string, LabTestParts>();
  /**
   * The row, lab and markers of each lab-test version seen by `fromRead` or by order creation
   * (labTestAt / rememberLabTest), keyed by id and updated_at to the microsecond: every change of
   * a lab test row bumps updated_at (TypeORM's UpdateDateColumn), so a version's row never
   * changes. Visibility is not cached: the read statement (readForView, createContext) checks it
   * for the team on every request.
   */
  private readonly labTestVersions = new Map<string, { test: LabTestEntity } & LabTestParts>();

  constructor(
    private readonly orders: OrdersRepository,
    private readonly orderList: OrderListRepository,
    private readonly readModel: OrderReadModel,
    private readonly tests: LabTestsRepository,
    private readonly catalog: LabCatalogRepository,
    private readonly cipher: PhiCipher,
    @Optional() private readonly requisitionLinks?: RequisitionLinks,
  ) {}

  /** The view of an order read by OrderReadModel.readForView (`GET /v3/order/{id}`). */
  async fromRead(read: OrderRead): Promise<OrderView> {
    const labTest = await this.versionedLabTestView(read.order, read.labTestVersion);
    return this.toView(read.order, read.events, labTest, read.transaction, read.statusTimes, read.appointmentId);
  }

  /**
   * The view of an order just inserted (OrderCreationRepository.insertOrder) in an order transaction of
   * its own, from what was written: its events as returned by the insert, its lab test as
   * ordered, the transaction with the order as its only order (its status reached at its latest
   * event), and no appointment yet (one is booked only after the order exists). The same view
   * `one` reads back inside the transaction, without reading it back. `opened`: the PHI columns as
   * the creator sealed them (parsed back from the very JSON it encrypted), so they are not
   * decrypted again.
   */
  created(order: OrderEntity, transaction: { id: string; status: string }, events: OrderEventEntity[], labTest: LabTestView, opened?: OpenedPhi): OrderView {
    const latest = events.at(-1);
    const statusTimes = new Map<string, Date>(latest ? [[order.id, latest.createdAt]] : []);
    return this.toView(order, events, labTest, { transaction, orders: [order] }, statusTimes, undefined, opened);
  }

  /** The row, lab and markers of lab test `labTestId` at `version` (updated_at as text), if seen before. */
  labTestAt(labTestId: string, version: string): ({ test: LabTestEntity } & LabTestParts) | undefined {
    return this.labTestVersions.get(`${labTestId}@${version}`);
  }

  /**
   * Keeps a lab test row (with its lab and markers) read after a statement saw it at `version`,
   * only when the row read is that version (else it changed in between: not kept).
   */
  rememberLabTest(version: string, entry: { test: LabTestEntity } & LabTestParts): void {
    if (entry.test.updatedAt.getTime() === parseTimestamptz(version).getTime()) remember(this.labTestVersions, `${entry.test.id}@${version}`, entry);
  }

  /** The view of an order read by itself (transitions, recreation, requisitions), on the caller's transaction when given. */
  async one(order: OrderEntity, manager?: EntityManager): Promise<OrderView> {
    const events = (await this.orders.eventsOf([order.id], manager)).get(order.id) ?? [];
    const transaction = (await this.orders.transactionsOf([order.orderTransactionId], manager)).get(order.orderTransactionId);
    const statusTimes = await this.orderList.lowLevelStatusTimes(transaction?.orders.map((sibling) => sibling.id) ?? [], manager);
    const appointmentId = order.collectionMethod === 'testkit' ? undefined : (await this.readModel.latestAppointmentIds([order.id], manager)).get(order.id);
    const labTest = await this.labTestView(order, manager);
    return this.toView(order, events, labTest, transaction, statusTimes, appointmentId);
  }

  /**
   * `manager`: the caller's transaction, whose connection every read here uses. A transaction
   * that waited for a second connection of the pool while holding one could wait forever once
   * every connection is held by such transactions (seen in the fault run: transitions hung).
   */
  private async labTestView(order: OrderEntity, manager?: EntityManager): Promise<LabTestView> {
    const test = await this.tests.findVisible({ teamId: order.teamId, environment: order.environment }, order.labTestId, manager);
    if (!test) throw new Error(`lab test ${order.labTestId} of order ${order.id} is missing`);
    const parts = await this.labTestPartsOf(test, manager);
    return toLabTestView(test, parts.lab, parts.markers);
  }

  /**
   * The lab test of an order read with its version (null: not visible to the order's team, which
   * labTestView reports). A version seen before costs no query; a new one is read once and kept
   * when the row read is the version the statement saw (else it was changed in between: used for
   * this response only, as the per-part read did).
   */
  private async versionedLabTestView(order: OrderEntity, version: string | null): Promise<LabTestView> {
    if (version === null) return this.labTestView(order);
    const key = `${order.labTestId}@${version}`;
    const cached = this.labTestVersions.get(key);
    if (cached) return toLabTestView(cached.test, cached.lab, cached.markers);
    const test = await this.tests.findVisible({ teamId: order.teamId, environment: order.environment }, order.labTestId);
    if (!test) throw new Error(`lab test ${order.labTestId} of order ${order.id} is missing`);
    const parts = await this.labTestPartsOf(test);
    if (test.updatedAt.getTime() === parseTimestamptz(version).getTime()) remember(this.labTestVersions, key, { test, ...parts });
    return toLabTestView(test, parts.lab, parts.markers);
  }

  private async labTestPartsOf(test: LabTestEntity, manager?: EntityManager): Promise<LabTestParts> {
    // A test's lab and markers are fixed at creation (PATCH changes only name/active and bumps
    // updated_at), so they are cached per version: three queries fewer on every order read.
    const version = `${test.id}@${test.updatedAt.getTime()}`;
    let parts = this.labTestParts.get(version);
    if (!parts) {
      const [lab] = await this.catalog.labsByIds([test.labId], manager);
      const markerIds = (await this.tests.markerIdsOf([test.id], manager)).get(test.id) ?? [];
      const byId = new Map((await this.catalog.markersByIds(markerIds, manager)).map((marker) => [marker.id, marker]));
      parts = { lab, markers: markerIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])) };
      remember(this.labTestParts, version, parts);
    }
    return parts;
  }

  private toView(
    order: OrderEntity,
    events: OrderEventEntity[],
    labTest: LabTestView,
    transaction: { transaction: { id: string; status: string }; orders: SiblingOrder[] } | undefined,
    statusTimes: Map<string, Date>,
    appointmentId: string | undefined,
    opened?: OpenedPhi,
  ): OrderView {
    const eventViews = events.map(toEventView);
    const details = opened ? opened.patientDetails : this.open<PatientDetails>(order.patientDetailsEnc);
    const address = opened ? opened.patientAddress : this.open<PatientAddress>(order.patientAddressEnc);
    const tat = (days: number | null | undefined) => (days ? addDays(order.createdAt, days) : null);
    return {
      id: order.id,
      team_id: order.teamId,
      user_id: order.userId,
      patient_details: details ? { ...details } : null,
      patient_address: address ? { ...address } : null,
      lab_test: labTest,
      details: {
        type: order.collectionMethod,
        data: {
          id: order.id,
          ...(order.collectionMethod === 'testkit'
            ? { shipment: order.shipment ? toShipmentView(order.shipment) : null }
            : appointmentId
              ? { appointment_id: appointmentId }
              : {}),
          created_at: order.createdAt.toISOString(),
          updated_at: order.updatedAt.toISOString(),
        },
      },
      sample_id: order.sampleId,
      notes: order.notesEnc ? this.cipher.decryptJson<string>(order.notesEnc) : null,
      created_at: order.createdAt.toISOString(),
      updated_at: order.updatedAt.toISOString(),
      events: eventViews,
      status: order.status,
      last_event: eventViews.at(-1) ?? null,
      physician: order.physician,
      health_insurance_id: order.healthInsuranceId,
      // A signed, expiring link (no API key needed), fresh on every read.
      requisition_form_url: order.requisitionFormUrl && this.requisitionLinks ? this.requisitionLinks.url(order.id) : order.requisitionFormUrl,
      priority: order.priority,
      shipping_details: opened ? opened.shippingDetails : this.open<ShippingAddress>(order.shippingDetailsEnc),
      activate_by: order.activateBy,
      passthrough: order.passthrough,
      billing_type: order.billingType,
      icd_codes: opened ? opened.icdCodes : icdCodesOf(order, this.cipher),
      has_abn: order.hasAbn,
      interpretation: order.interpretation,
      has_missing_results: order.hasMissingResults,
      expected_result_by_date: tat(labTest.common_tat_days),
      worst_case_result_by_date: tat(labTest.worst_case_tat_days),
      origin: order.origin,
      order_transaction: transaction
        ? {
            id: transaction.transaction.id,
            status: transaction.transaction.status,
            orders: transaction.orders.map((sibling) => ({
              id: sibling.id,
              created_at: sibling.createdAt.toISOString(),
              updated_at: sibling.updatedAt.toISOString(),
              low_level_status: sibling.lowLevelStatus,
              low_level_status_created_at: statusTimes.get(sibling.id)?.toISOString() ?? null,
              origin: sibling.origin,
            })),
          }
        : null,
      clinical_notes: opened ? opened.clinicalNotes : clinicalNotesOf(order, this.cipher),
      lab_account_id: order.labAccountId,
    };
  }

  private open<T>(sealed: string | null): T | null {
    return sealed ? this.cipher.decryptJson<T>(sealed) : null;
  }
}

/** An order's sealed PHI columns, opened: what decrypting them gives. */
export interface OpenedPhi {
  patientDetails: PatientDetails | null;
  patientAddress: PatientAddress | null;
  shippingDetails: ShippingAddress | null;
  clinicalNotes: string | null;
  icdCodes: string[] | null;
}

export function toEventView(event: OrderEventEntity): OrderEventView {
  return { id: Number(event.id), created_at: event.createdAt.toISOString(), status: event.status, status_detail: event.statusDetail };
}

function toShipmentView(shipment: Shipment): ShipmentView {
  return {
    id: shipment.id,
    outbound_tracking_number: shipment.outbound_tracking_number,
    outbound_tracking_url: shipment.outbound_tracking_url,
    outbound_courier: shipment.outbound_courier,
    inbound_tracking_number: shipment.inbound_tracking_number,
    inbound_tracking_url: shipment.inbound_tracking_url,
    inbound_courier: shipment.inbound_courier,
    notes: shipment.notes,
    created_at: shipment.created_at,
    updated_at: shipment.updated_at,
  };
}

function addDays(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
