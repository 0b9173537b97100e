import { type CorrectionOutcome, OrderLabResults } from './order-lab-results';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { COURIER_ADAPTER, type CourierAdapter } from '../adapters/courier/courier.adapter';
import {
  LAB_ADAPTER,
  type LabAdapter,
  type RequisitionRequest,
  type ResultInterpretation,
  type ResultMarker,
  type ResultType,
} from '../adapters/lab/lab.adapter';
import { PhiCipher } from '../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { OutboxService } from '../events/outbox.service';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { LabTestsRepository } from '../lab-tests/lab-tests.repository';
import { LabAccountsRepository } from '../lab-tests/lab-accounts.repository';
import { requisitionComment } from '../requisitions';
import type { LabOrderAck, RecordOrderTransitionInput, RecordOrderTransitionResult } from '../../workflows/contract';
import { parseEventStatus, sourceOf } from '../../workflows/order/order-statuses';
import { clinicalNotesOf, icdCodesOf, type OrderEntity, OrderResultEntity, type Shipment } from './order.entities';
import type { KitShippingAddress } from '../adapters/courier/courier.adapter';
import { biomarkersOfOrder } from './order-biomarkers';
import { orderMetrics } from './order-metrics';
import { OrderViews } from './order-views';
import type { Base64Image, HealthInsurance, PatientAddress, PatientDetails } from './orders.dto';
import type { RequisitionInputs } from './new-order';
import { OrdersRepository } from './orders.repository';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { UsersRepository } from '../users/users.repository';

/** The order row is gone (its user was erased). */
export class OrderGoneError extends Error {}
/** A registration's pending details were replaced by a later registration request. */
export class RegistrationSupersededError extends Error {}

/** What the API stores for a kit registration until the workflow accepts it. */
export interface PendingRegistration {
  id: string;
  patient_details: PatientDetails;
  patient_address: PatientAddress;
  physician: OrderEntity['physician'];
  consents: Array<Record<string, unknown>> | null;
  /** Absent in registrations stored before health insurance was kept. */
  health_insurance?: HealthInsurance | null;
  /** The physician's signature image (absent in registrations stored before it was kept). */
  physician_signature?: Base64Image | null;
}

/**
 * The order side of the workflow's activities: records the workflow's transitions (event, status,
 * outbox) and makes the order's requisition, kit shipment and results. Not to be confused with
 * workflows/order/order-statuses.ts and order-lifecycle.ts, the pure status tables the workflow and the API ask. Each method is idempotent, so Temporal's retries
 * never repeat an effect (a transition is unique per order and sequence number; a requisition, a
 * shipment and results are made once).
 */
@Injectable()
export class OrderTransitionsService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly users: UsersRepository,
    private readonly teamSettings: TeamSettingsRepository,
    private readonly views: OrderViews,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    private readonly tests: LabTestsRepository,
    private readonly catalog: LabCatalogRepository,
    private readonly accounts: LabAccountsRepository,
    @Inject(COURIER_ADAPTER) private readonly courier: CourierAdapter,
    @Inject(LAB_ADAPTER) private readonly lab: LabAdapter,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    private readonly labResults: OrderLabResults,
  ) {}

  /** A lab correction that reached the order's run after it completed: applied to the stored results (once per message). */
  async correctLabResults(orderId: string, reportId: string): Promise<{ outcome: CorrectionOutcome }> {
    return { outcome: await this.labResults.correct(orderId, reportId) };
  }

  /**
   * One transaction: the order event (nothing if this seq exists), the order's status, a pending
   * registration applied, and `labtest.order.updated` in the outbox carrying the order as
   * `GET /v3/order/{id}` shows it now.
   */
  async recordTransition(input: RecordOrderTransitionInput): Promise<RecordOrderTransitionResult> {
    const parsed = parseEventStatus(input.status);
    if (!parsed) throw new Error(`Not an order event status: ${input.status}`);
    const outcome = await this.orders.transaction(async (manager) => {
      const order = await this.orders.lockById(manager, input.orderId);
      if (!order) throw new OrderGoneError(`Order ${input.orderId} no longer exists.`);
      const result = await this.orders.recordTransition(manager, {
        orderId: order.id,
        seq: input.seq,
        status: input.status,
        statusDetail: input.statusDetail ?? null,
        top: parsed.top,
        low: parsed.low,
      });
      if (!result.recorded) return result;
      if (input.registrationId) await this.applyRegistration(manager, order, input.registrationId);
      // What the courier said with its latest fact (a delay, a wrong address) is the shipment's notes.
      if (order.shipment && input.statusDetail && sourceOf(parsed.low) === 'courier') {
        await this.orders.update(manager, order.id, { shipment: { ...order.shipment, notes: input.statusDetail, updated_at: new Date().toISOString() } });
      }
      // A partial result is an order event for everyone, a webhook only for teams that enabled it.
      const emit = input.emit && (parsed.low !== 'partial_results' || (await this.teamSettings.partialWebhooksEnabled(order.teamId, manager)));
      if (emit) {
        const updated = (await this.orders.findById(order.id, manager)) as OrderEntity;
        const clientUserId = (await this.users.clientUserIdOf(order.userId, manager)) ?? '';
        await this.outbox.record(manager, [
          {
            eventType: 'labtest.order.updated',
            idempotencyKey: `order:${order.id}:${input.seq}`,
            teamId: order.teamId,
            environment: order.environment,
            userId: order.userId,
            clientUserId,
            data: await this.views.one(updated, manager),
          },
        ]);
      }
      return result;
    });
    if (outcome.recorded) orderMetrics.transitionRecorded(parsed);
    return outcome;
  }

  /**
   * Submits the requisition once; the form is served at `/v3/order/{id}/requisition/pdf`. A lab
   * that answers with an ACK (HL7) and refuses (AE/AR) leaves the order without its form: the ACK
   * goes back to the workflow, which waits for a resend.
   */
  async createRequisition(orderId: string): Promise<{ requisitionFormUrl: string | null; labAck?: LabOrderAck }> {
    const order = await this.require(orderId);
    if (order.requisitionFormUrl) return { requisitionFormUrl: order.requisitionFormUrl };
    const submitted = await this.lab.submitRequisition(await this.requisitionRequestOf(order));
    const labAck = submitted.ack;
    if (labAck && labAck.code !== 'AA' && labAck.code !== 'CA') return { requisitionFormUrl: null, labAck };
    const requisitionFormUrl = `${this.config.api.publicUrl}/v3/order/${order.id}/requisition/pdf`;
    await this.orders.transaction((manager) => this.orders.update(manager, order.id, { requisitionFormUrl }));
    return labAck ? { requisitionFormUrl, labAck } : { requisitionFormUrl };
  }

  /**
   * Tells the lab the order is cancelled, when it was sent one (a requisition was made): a lab
   * reached by message gets ORC CA and answers with an ACK, which goes back to the workflow; the
   * sandbox lab has nothing to stop. Idempotent: a retry repeats the same message (same control id).
   */
  async cancelLabOrder(orderId: string): Promise<{ labAck?: LabOrderAck }> {
    const order = await this.require(orderId);
    if (!order.requisitionFormUrl) return {};
    const cancelled = await this.lab.cancelRequisition(await this.requisitionRequestOf(order));
    return cancelled.ack ? { labAck: cancelled.ack } : {};
  }

  /** What the lab is told of an order: its patient, physician, tests, diagnoses, insurance, answers and notes. */
  private async requisitionRequestOf(order: OrderEntity): Promise<RequisitionRequest> {
    const [lab] = await this.catalog.labsByIds([order.labId]);
    const account = (await this.accounts.listVisible({ teamId: order.teamId, environment: order.environment }, { id: order.labAccountId }))[0];
    const insurance = await this.orders.healthInsuranceOf(order);
    const inputs = await this.orders.requisitionInputsOf(order.id);
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const address = order.patientAddressEnc ? this.cipher.decryptJson<PatientAddress>(order.patientAddressEnc) : null;
    const markerIds = (await this.tests.markerIdsOf([order.labTestId])).get(order.labTestId) ?? [];
    const markers = new Map((await this.catalog.markersByIds(markerIds)).map((marker) => [marker.id, marker]));
    const physician = order.physician;
    return {
      orderId: order.id,
      labSlug: lab?.slug ?? String(order.labId),
      labAccountId: order.labAccountId,
      accountNumber: account?.providerAccountId ?? order.labAccountId,
      environment: order.environment,
      patient: details
        ? {
            id: order.userId,
            firstName: details.first_name,
            lastName: details.last_name,
            dob: details.dob,
            gender: details.gender,
            phone: details.phone_number,
            address: address
              ? {
                  firstLine: address.first_line,
                  secondLine: address.second_line ?? null,
                  city: address.city,
                  state: address.state,
                  zip: address.zip,
                  country: address.country,
                }
              : null,
          }
        : null,
      physician: physician ? { npi: physician.npi, firstName: physician.first_name, lastName: physician.last_name } : null,
      icdCodes: icdCodesOf(order, this.cipher) ?? [],
      orderables: markerIds.flatMap((id) => {
        const marker = markers.get(id);
        return marker
          ? [
              {
                id,
                name: marker.name,
                providerId: marker.providerId,
                questions: (marker.aoeQuestions ?? []).map((question) => ({ id: question.id, text: question.value })),
              },
            ]
          : [];
      }),
      collectedAt: order.flow === 'imported_testkit' ? order.createdAt : null,
      clinicalNotes: requisitionComment(clinicalNotesOf(order, this.cipher), account?.defaultClinicalNotes ?? null),
      priority: order.priority,
      billingType: order.billingType ?? 'client_bill',
      healthInsurance: insurance === null ? null : this.cipher.decryptJson<Record<string, unknown>>(insurance),
      aoeAnswers:
        inputs === null
          ? []
          : this.cipher.decryptJson<RequisitionInputs>(inputs).aoe_answers.map(({ marker_id, question_id, answer }) => ({ marker_id, question_id, answer })),
      consents: consentsOf(order),
    };
  }

  /** Books the kit's shipment once (the first stored shipment wins). */
  async shipKit(orderId: string): Promise<{ outboundTrackingNumber: string }> {
    const order = await this.require(orderId);
    if (order.shipment) return { outboundTrackingNumber: order.shipment.outbound_tracking_number };
    const booked = await this.courier.shipKit({
      orderId: order.id,
      environment: order.environment,
      sampleId: order.sampleId,
      shippingAddress: order.shippingDetailsEnc ? this.cipher.decryptJson<KitShippingAddress>(order.shippingDetailsEnc) : null,
    });
    const now = new Date().toISOString();
    const shipment: Shipment = {
      id: randomUUID(),
      outbound_courier: booked.outbound.courier,
      outbound_tracking_number: booked.outbound.trackingNumber,
      outbound_tracking_url: booked.outbound.url,
      inbound_courier: booked.inbound.courier,
      inbound_tracking_number: booked.inbound.trackingNumber,
      inbound_tracking_url: booked.inbound.url,
      notes: null,
      created_at: now,
      updated_at: now,
    };
    const stored = await this.orders.setShipmentOnce(order.id, shipment);
    if (!stored) throw new OrderGoneError(`Order ${orderId} no longer exists.`);
    return { outboundTrackingNumber: stored.outbound_tracking_number };
  }

  /**
   * Fetches the results once and stores them (encrypted) with the order's interpretation; a
   * critical result also emits `labtest.result.critical`, in the same transaction.
   */
  async collectResults(
    orderId: string,
    requested: { interpretation?: ResultInterpretation; hasMissingResults?: boolean; resultTypes?: ResultType[] },
  ): Promise<{ interpretation: ResultInterpretation | null; hasMissingResults: boolean }> {
    const order = await this.require(orderId);
    const existing = await this.orders.resultsOf(order.id);
    if (existing) return { interpretation: existing.interpretation as ResultInterpretation, hasMissingResults: existing.missingResults.length > 0 };
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const events = (await this.orders.eventsOf([order.id])).get(order.id) ?? [];
    const collectedAt = events.find((event) => event.status.endsWith('.transit_lab'))?.createdAt ?? events.at(-1)?.createdAt ?? new Date();
    const receivedAt = events.find((event) => event.status.endsWith('.delivered_to_lab'))?.createdAt ?? null;
    const [lab] = await this.catalog.labsByIds([order.labId]);
    const report = await this.lab.results({
      orderId: order.id,
      labAccountId: order.labAccountId,
      labName: lab?.name ?? String(order.labId),
      sampleId: order.sampleId,
      markers: await this.biomarkersOf(order),
      sex: details?.gender ?? null,
      interpretation: requested.interpretation,
      hasMissingResults: requested.hasMissingResults,
      resultTypes: requested.resultTypes,
      collectedAt,
    });
    await this.orders.transaction(async (manager) => {
      const row = Object.assign(new OrderResultEntity(), {
        orderId: order.id,
        status: report.status,
        interpretation: report.interpretation,
        resultsEnc: this.cipher.encryptJson(report.results),
        missingResults: report.missingResults,
        dateCollected: collectedAt,
        dateReceived: receivedAt,
        dateReported: new Date(),
      });
      const stored = await this.orders.insertResultsOnce(manager, row);
      await this.orders.update(manager, order.id, {
        interpretation: stored.interpretation,
        hasMissingResults: stored.missingResults.length > 0,
      });
      if (stored.interpretation === 'critical') {
        const now = new Date().toISOString();
        await this.outbox.record(manager, [
          {
            eventType: 'labtest.result.critical',
            idempotencyKey: `order:${order.id}:result.critical`,
            teamId: order.teamId,
            environment: order.environment,
            userId: order.userId,
            clientUserId: (await this.users.clientUserIdOf(order.userId, manager)) ?? '',
            data: {
              order_id: order.id,
              sample_id: order.sampleId,
              status: stored.status,
              interpretation: stored.interpretation,
              team_id: order.teamId,
              user_id: order.userId,
              created_at: now,
              updated_at: now,
            },
          },
        ]);
      }
    });
    return { interpretation: report.interpretation, hasMissingResults: report.missingResults.length > 0 };
  }

  /** The biomarkers the order's lab test reports (panels expanded, with their panel), with LOINC codes. */
  biomarkersOf(order: Pick<OrderEntity, 'labTestId'>): Promise<ResultMarker[]> {
    return biomarkersOfOrder(this.tests, this.catalog, order);
  }

  private async applyRegistration(manager: Parameters<OrdersRepository['update']>[0], order: OrderEntity, registrationId: string): Promise<void> {
    const pending = order.pendingRegistrationEnc ? this.cipher.decryptJson<PendingRegistration>(order.pendingRegistrationEnc) : null;
    if (!pending || pending.id !== registrationId) {
      throw new RegistrationSupersededError('Another registration of this kit was submitted at the same time; retry.');
    }
    // The registration's id names its insurance, so that applying it twice stores it once.
    const insuranceId = pending.health_insurance ? pending.id : order.healthInsuranceId;
    if (pending.health_insurance)
      await this.orders.insertHealthInsurance(manager, { id: pending.id, userId: order.userId, sealed: this.cipher.encryptJson(pending.health_insurance) });
    // A kit is ordered without requisition inputs: its registration's physician brings the only ones.
    if (pending.physician_signature) {
      const inputs: RequisitionInputs = { aoe_answers: [], physician_signature: pending.physician_signature };
      await this.orders.setRequisitionInputs(manager, order.id, this.cipher.encryptJson(inputs));
    }
    await this.orders.update(manager, order.id, {
      healthInsuranceId: insuranceId,
      patientDetailsEnc: this.cipher.encryptJson(pending.patient_details),
      patientAddressEnc: this.cipher.encryptJson(pending.patient_address),
      physician: pending.physician ?? order.physician,
      consents: pending.consents ?? order.consents,
      pendingRegistrationEnc: null,
      registeredAt: new Date(),
    });
  }

  private async require(orderId: string): Promise<OrderEntity> {
    const order = await this.orders.findById(orderId);
    if (!order) throw new OrderGoneError(`Order ${orderId} no longer exists.`);
    return order;
  }
}

/** The order's consents (stored as given, camelCase), as the lab and the requisition take them. */
export function consentsOf(order: Pick<OrderEntity, 'consents'>): Array<{ consentType: string; version: string | null; timeOfConsent: string | null }> {
  return (order.consents ?? []).map((given) => ({
    consentType: String(given.consentType),
    version: typeof given.version === 'string' ? given.version : null,
    timeOfConsent: typeof given.timeOfConsent === 'string' ? given.timeOfConsent : null,
  }));
}
