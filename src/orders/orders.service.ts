import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, notFound, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { OutboxService } from '../events/outbox.service';
import { EventResendService } from '../events/resend.service';
import type { BillingType, LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { type OrderableLabTest, LabTestsService } from '../lab-tests/lab-tests.service';
import { toLabTestView } from '../lab-tests/lab-catalog.views';
import { activateByChanged, cancelOrder, registerKit, simulate } from '../../workflows/contract';
import {
  ACTIVATE_BY_CHANGEABLE,
  collectionMethodOf,
  eventStatus,
  isCancellable,
  type OrderFlow,
  type OrderLowLevelStatus,
  parseFinalStatus,
  REGISTRABLE_FROM,
  simulationCanReach,
  topLevelStatus,
} from '../../workflows/order-lifecycle';
import { type CompleteIdempotently, IdempotencyService, type IdempotencyOptions } from './idempotency.service';
import { OrderLifecycleService, type PendingRegistration } from './order-lifecycle.service';
import { renderRequisitionPdf } from '../requisitions';
import {
  type BiomarkerResult,
  buildLabResults,
  buildResultMetadata,
  type LabResultsMetadata,
  type LabResultsRaw,
  type MissingBiomarkerResult,
  type ResultInterpretation,
} from '../results';
import { OrderEntity, OrderTransactionEntity, type Physician } from './order.entities';
import { OrderViews, type OrderView } from './order-views';
import { OrderWorkflows } from './order-workflows';
import type {
  CreateOrderDto,
  CreateTestkitOrderDto,
  ImportOrderDto,
  ListOrdersQuery,
  PatchOrderDto,
  PatientAddress,
  PatientDetails,
  RegisterTestkitDto,
  ResendEventsDto,
  ShippingAddress,
  SimulateBody,
  SimulateQuery,
} from './orders.dto';
import { type OrderFilters, OrdersRepository, type Scope } from './orders.repository';
import { isUniqueViolation } from '../users/users.repository';

/** Junction's PostOrderResponse. */
export interface PostOrderResponse {
  order: OrderView;
  status: 'success';
  message: string;
}

/** The lab test an order orders, as OrdersService.orderable resolves it. */
type OrderedLabTest = Pick<OrderableLabTest, 'labTest' | 'lab' | 'markers'>;

interface NewOrder {
  flow: OrderFlow;
  userId: string;
  orderable: OrderedLabTest;
  account: LabAccountEntity;
  /** Statuses of the first events, in order (the last one is the order's status). */
  initial: OrderLowLevelStatus[];
  sampleId: string;
  patientDetails: PatientDetails | null;
  patientAddress: PatientAddress | null;
  shippingDetails: ShippingAddress | null;
  physician: Physician | null;
  clinicalNotes: string | null;
  priority: boolean;
  billingType: BillingType | null;
  icdCodes: string[] | null;
  consents: Array<Record<string, unknown>> | null;
  activateBy: string | null;
  passthrough: string | null;
}

/** Order creation and the order API. Every change after creation goes through the workflow. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly views: OrderViews,
    private readonly workflows: OrderWorkflows,
    private readonly idempotency: IdempotencyService,
    private readonly labTests: LabTestsService,
    private readonly labAccounts: LabAccountsService,
    private readonly catalog: LabCatalogRepository,
    private readonly outbox: OutboxService,
    private readonly resend: EventResendService,
    private readonly cipher: PhiCipher,
    private readonly lifecycle: OrderLifecycleService,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /**
   * `POST /v3/order`: a kit registered to the patient at ordering, or a walk-in / at-home
   * phlebotomy order (its appointment is booked afterwards, through the appointment routes).
   */
  create(team: TeamPrincipal, body: CreateOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order', body }, idempotency, async (complete) => {
      const context = await this.requireUser(team, body.user_id, body.lab_test_id ?? onlyItem(body.order_set?.lab_test_ids));
      const labTestId = this.singleLabTestId(body);
      const orderable = await this.orderable(team, labTestId, context, ['body', body.lab_test_id ? 'lab_test_id' : 'order_set']);
      const method = this.checkCollectionMethod(orderable, body.collection_method ?? null, ['body', 'collection_method'], ORDERABLE_METHODS);
      const account = await this.labAccounts.resolveForOrder(team, {
        labId: orderable.lab.id,
        labAccountId: body.lab_account_id ?? body.order_set?.lab_account_id ?? undefined,
      });
      if (!body.physician && this.labAccounts.requiresPhysician(account, orderable.lab.slug, new Date(), this.config.orders.physicianEnforcementDate)) {
        throw validationError(
          ['body', 'physician'],
          `Lab account ${account.id} is ${account.delegatedFlow} at ${orderable.lab.slug}: orders on it must name a physician.`,
          null,
        );
      }
      const billingType = body.billing_type ?? 'client_bill';
      this.labAccounts.checkBillingAllowed(account, billingType);
      const details = body.patient_details;
      const address = body.patient_address;
      return this.insert(
        team,
        {
          flow: method === 'testkit' ? 'testkit' : method,
          userId: body.user_id,
          orderable,
          account,
          initial: ['ordered'],
          sampleId: newSampleId(),
          patientDetails: details,
          patientAddress: address,
          // Only a kit ships; an appointment takes place at the patient's address or a service center.
          shippingDetails: method !== 'testkit' ? null : {
            receiver_name: address.receiver_name ?? `${details.first_name} ${details.last_name}`,
            first_line: address.first_line,
            second_line: address.second_line ?? null,
            city: address.city,
            state: address.state,
            zip: address.zip,
            country: address.country,
            phone_number: address.phone_number ?? details.phone_number,
          },
          physician: body.physician ? toPhysician(body.physician) : null,
          clinicalNotes: body.clinical_notes ?? null,
          priority: body.priority ?? false,
          billingType,
          icdCodes: body.icd_codes ?? null,
          consents: body.consents ?? null,
          activateBy: body.activate_by ?? null,
          passthrough: body.passthrough ?? null,
        },
        complete,
      );
    });
  }

  /** `POST /v3/order/testkit`: an unregistered kit; the customer registers it with its sample id. */
  createTestkit(team: TeamPrincipal, body: CreateTestkitOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order/testkit', body }, idempotency, async (complete) => {
      const context = await this.requireUser(team, body.user_id, body.lab_test_id);
      const orderable = await this.orderable(team, body.lab_test_id, context);
      this.checkCollectionMethod(orderable, 'testkit', ['body', 'lab_test_id']);
      const account = await this.labAccounts.resolveForOrder(team, { labId: orderable.lab.id, labAccountId: body.lab_account_id ?? undefined });
      return this.insert(
        team,
        {
          flow: 'registrable_testkit',
          userId: body.user_id,
          orderable,
          account,
          initial: ['ordered', 'awaiting_registration'],
          sampleId: newSampleId(),
          patientDetails: null,
          patientAddress: null,
          shippingDetails: { ...body.shipping_details, second_line: body.shipping_details.second_line ?? null },
          physician: null,
          clinicalNotes: null,
          priority: false,
          billingType: 'client_bill',
          icdCodes: null,
          consents: null,
          activateBy: null,
          passthrough: body.passthrough ?? null,
        },
        complete,
      );
    });
  }

  /** `POST /v3/order/testkit/register`: the kit's patient, applied by the workflow's transition. */
  async register(team: TeamPrincipal, body: RegisterTestkitDto): Promise<PostOrderResponse> {
    const order = await this.orders.findBySampleId(team, body.sample_id);
    if (!order) throw notFound('Test kit with this sample_id');
    if (!order.registrable) throw badRequest('This sample_id belongs to a kit that was registered at ordering.');
    if (body.user_id && body.user_id !== order.userId) throw badRequest('This kit was ordered for another user.');
    if (order.registeredAt) throw badRequest('This kit is already registered.');
    if (!REGISTRABLE_FROM.includes(order.lowLevelStatus)) {
      throw badRequest(
        order.lowLevelStatus === 'awaiting_registration'
          ? 'This kit cannot be registered yet: it has not shipped.'
          : `This kit cannot be registered: the order is ${eventStatus(order.flow, order.lowLevelStatus)}.`,
      );
    }
    if (!body.physician && (await this.requiresPhysician(order))) {
      throw validationError(['body', 'physician'], 'Orders on this lab account must name a physician.', null);
    }
    const registration: PendingRegistration = {
      id: randomUUID(),
      patient_details: body.patient_details,
      patient_address: body.patient_address,
      physician: body.physician ? toPhysician(body.physician) : null,
      consents: body.consents ?? null,
    };
    await this.orders.setPendingRegistration(order.id, this.cipher.encryptJson(registration));
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'write', [order.id]);
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(registerKit, { args: [{ registrationId: registration.id }] }));
    return this.respond(team, order.id, 'Test kit registered.');
  }

  /**
   * `POST /v3/order/import`: a sample already collected (its sample_id given), so nothing ships;
   * the order goes to requisition and waits for the sample at the lab. The lab account may still
   * be PENDING.
   */
  import(team: TeamPrincipal, body: ImportOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order/import', body }, idempotency, async (complete) => {
      const context = await this.requireUser(team, body.user_id, onlyItem(body.order_set.lab_test_ids));
      const labTestId = this.singleLabTestId({ order_set: body.order_set });
      const orderable = await this.orderable(team, labTestId, context, ['body', 'order_set', 'lab_test_ids', 0]);
      this.checkCollectionMethod(orderable, body.collection_method);
      const account = await this.labAccounts.resolveForOrder(team, {
        labId: orderable.lab.id,
        labAccountId: body.lab_account_id ?? body.order_set.lab_account_id ?? undefined,
        allowPending: true,
      });
      if (!body.physician && this.labAccounts.requiresPhysician(account, orderable.lab.slug, new Date(), this.config.orders.physicianEnforcementDate)) {
        throw validationError(['body', 'physician'], `Lab account ${account.id} is ${account.delegatedFlow}: orders on it must name a physician.`, null);
      }
      this.labAccounts.checkBillingAllowed(account, body.billing_type);
      if (await this.orders.sampleIdTaken(team, body.sample_id)) throw badRequest(`Sample ${body.sample_id} already belongs to an order.`);
      return this.insert(
        team,
        {
          flow: 'imported_testkit',
          userId: body.user_id,
          orderable,
          account,
          initial: ['ordered'],
          sampleId: body.sample_id,
          patientDetails: body.patient_details,
          patientAddress: body.patient_address,
          shippingDetails: null,
          physician: body.physician ? toPhysician(body.physician) : null,
          clinicalNotes: body.clinical_notes ?? null,
          priority: false,
          billingType: body.billing_type,
          icdCodes: null,
          consents: null,
          activateBy: null,
          passthrough: null,
        },
        complete,
      );
    });
  }

  /** Re-emits the latest order event of each order matched by ids and/or creation window. */
  resendEvents(team: TeamPrincipal, body: ResendEventsDto): Promise<{ order_ids: string[] }> {
    return this.resend.resendLatestOrderEvents(team, {
      orderIds: body.order_ids,
      startAt: body.start_at ? new Date(body.start_at) : undefined,
      endAt: body.end_at ? new Date(body.end_at) : undefined,
    });
  }

  /** The order as of one snapshot; its PHI read audit row is written by the same statement. */
  async get(team: TeamPrincipal, orderId: string): Promise<OrderView> {
    const read = await this.orders.readForView(team, team.apiKeyId, orderId);
    if (!read) throw notFound('Order');
    return this.views.fromRead(read);
  }

  async list(team: TeamPrincipal, query: ListOrdersQuery) {
    const filters: OrderFilters = {
      createdFrom: toDate(query.start_date),
      createdTo: toDate(query.end_date, true),
      updatedFrom: toDate(query.updated_start_date),
      updatedTo: toDate(query.updated_end_date, true),
      lowLevelStatuses: merge(query.status, query['status[]']),
      collectionMethods: merge(query.order_type, query['order_type[]']),
      interpretation: query.interpretation,
      isCritical: query.is_critical,
      userId: query.user_id,
      orderIds: merge(query.order_ids, query['order_ids[]']),
      orderTransactionId: query.order_transaction_id,
      searchInput: query.search_input,
      orderBy: query.order_key === 'last_status' ? 'updated_at' : 'created_at',
      direction: query.order_direction === 'asc' ? 'ASC' : 'DESC',
    };
    const offset = (query.page - 1) * query.size;
    const page = await this.orders.snapshot(async (manager) => {
      let orders: OrderEntity[];
      let total: number;
      if (query.patient_name || query.order_key === 'patient_name') {
        // Patient names are encrypted at rest: filter and sort them after decryption.
        const all = (await this.orders.list(team, filters, undefined, manager)).orders;
        const named = all.map((order) => ({ order, name: this.patientName(order) }));
        const needle = query.patient_name?.toLowerCase();
        const matching = needle ? named.filter((entry) => entry.name.toLowerCase().includes(needle)) : named;
        if (query.order_key === 'patient_name') {
          const sign = query.order_direction === 'asc' ? 1 : -1;
          matching.sort((a, b) => sign * a.name.localeCompare(b.name));
        }
        total = matching.length;
        orders = matching.slice(offset, offset + query.size).map((entry) => entry.order);
      } else {
        ({ orders, total } = await this.orders.list(team, filters, { offset, limit: query.size }, manager));
      }
      return { orders: await this.views.many(orders, manager), total };
    });
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'read', page.orders.map((order) => order.id));
    return { orders: page.orders, total: page.total, page: query.page, size: query.size };
  }

  /** `POST /v3/order/{id}/cancel`: the workflow's cancelOrder update decides. */
  async cancel(team: TeamPrincipal, orderId: string): Promise<PostOrderResponse> {
    const order = await this.requireOrder(team, orderId);
    if (!isCancellable(order.flow, order.lowLevelStatus)) {
      throw badRequest(`Order cannot be cancelled: it is ${eventStatus(order.flow, order.lowLevelStatus)}.`);
    }
    await this.workflows.ensureStarted(order);
    await this.workflows.runUpdate(order.id, () => this.workflows.handle(order.id).executeUpdate(cancelOrder));
    return this.respond(team, order.id, 'Order cancelled.');
  }

  /** `PATCH /v3/order/{id}`: activate_by, while the order has not moved on. */
  async patch(team: TeamPrincipal, orderId: string, body: PatchOrderDto): Promise<PostOrderResponse> {
    const order = await this.requireOrder(team, orderId);
    if (!ACTIVATE_BY_CHANGEABLE.includes(order.lowLevelStatus)) {
      throw badRequest(`activate_by can only change while the order is ordered or awaiting registration; it is ${order.lowLevelStatus}.`);
    }
    await this.orders.setActivateBy(order.id, body.activate_by);
    await this.workflows.ensureStarted(order);
    await this.workflows.handle(order.id).signal(activateByChanged, { activateBy: body.activate_by });
    return this.respond(team, order.id, 'Order updated.');
  }

  /** `POST /v3/order/{id}/test` (sandbox): start or redirect the simulation. */
  async simulate(team: TeamPrincipal, orderId: string, query: SimulateQuery, body: SimulateBody | null | undefined): Promise<PostOrderResponse> {
    if (team.environment !== 'sandbox') throw badRequest('Order simulation is only available in sandbox.');
    const order = await this.requireOrder(team, orderId);
    let finalStatus: OrderLowLevelStatus | null = null;
    if (query.final_status !== undefined) {
      finalStatus = parseFinalStatus(order.flow, query.final_status);
      if (!finalStatus) {
        throw validationError(['query', 'final_status'], `Not a ${collectionMethodOf(order.flow)} order status: ${query.final_status}.`, query.final_status);
      }
      if (finalStatus === 'appointment_cancelled') {
        throw badRequest('A simulation does not cancel appointments: cancel the appointment through its cancel route.');
      }
      if (!simulationCanReach(order.flow, order.lowLevelStatus, finalStatus)) {
        throw badRequest(`The order cannot reach ${eventStatus(order.flow, finalStatus)} from ${eventStatus(order.flow, order.lowLevelStatus)}.`);
      }
    }
    await this.workflows.ensureStarted(order);
    await this.workflows.handle(order.id).signal(simulate, {
      finalStatus,
      delayMs: query.delay !== undefined ? Math.round(query.delay * 1000) : undefined,
      interpretation: body?.interpretation ?? undefined,
      hasMissingResults: body?.has_missing_results ?? undefined,
    });
    return this.respond(team, order.id, 'Simulation started.');
  }

  /** `GET /v3/order/{id}/result`: the lab's report (LabResultsRaw). */
  async results(team: TeamPrincipal, orderId: string): Promise<LabResultsRaw> {
    const { metadata, stored } = await this.report(team, orderId);
    return buildLabResults(metadata, this.cipher.decryptJson<BiomarkerResult[]>(stored.resultsEnc), stored.missingResults as unknown as MissingBiomarkerResult[]);
  }

  /** `GET /v3/order/{id}/result/metadata`. */
  async resultMetadata(team: TeamPrincipal, orderId: string): Promise<LabResultsMetadata> {
    return (await this.report(team, orderId)).metadata;
  }

  /** `GET /v3/order/{id}/requisition/pdf`: rendered from the order as it is now. */
  async requisitionPdf(team: TeamPrincipal, orderId: string): Promise<Buffer> {
    const order = await this.requireOrder(team, orderId);
    if (!order.requisitionFormUrl) throw notFound('Requisition (not created yet)');
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const address = order.patientAddressEnc ? this.cipher.decryptJson<PatientAddress>(order.patientAddressEnc) : null;
    if (!details || !address) throw notFound('Requisition (the kit is not registered)');
    const [lab] = await this.catalog.labsByIds([order.labId]);
    const account = await this.labAccounts.requireVisible(team, order.labAccountId).catch(() => null);
    const view = await this.views.one(order);
    const biomarkers = await this.lifecycle.biomarkersOf(order);
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'read', [order.id]);
    return renderRequisitionPdf({
      orderId: order.id,
      createdAt: order.createdAt,
      lab: { name: lab?.name ?? String(order.labId), slug: lab?.slug ?? String(order.labId) },
      account: { id: order.labAccountId, accountName: account?.accountName ?? order.labAccountId, defaultClinicalNotes: account?.defaultClinicalNotes ?? null },
      patient: {
        firstName: details.first_name,
        lastName: details.last_name,
        dob: details.dob,
        gender: details.gender,
        phoneNumber: details.phone_number,
        email: details.email,
        address: {
          firstLine: address.first_line,
          secondLine: address.second_line ?? null,
          city: address.city,
          state: address.state,
          zip: address.zip,
          country: address.country,
        },
      },
      physician: order.physician ? { firstName: order.physician.first_name, lastName: order.physician.last_name, npi: order.physician.npi } : null,
      tests: [{ name: view.lab_test.name, markers: biomarkers.map((marker) => ({ name: marker.name, loinc: marker.loinc?.code ?? null })) }],
      clinicalNotes: order.clinicalNotes,
      icdCodes: order.icdCodes ?? [],
      sampleId: order.sampleId,
    });
  }

  private async report(team: TeamPrincipal, orderId: string) {
    const order = await this.requireOrder(team, orderId);
    const stored = await this.orders.resultsOf(order.id);
    if (!stored) throw notFound('Results (not available yet)');
    const details = order.patientDetailsEnc ? this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc) : null;
    const [lab] = await this.catalog.labsByIds([order.labId]);
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'read', [order.id]);
    const metadata = buildResultMetadata({
      patient: { firstName: details?.first_name ?? '', lastName: details?.last_name ?? '', dob: details?.dob ?? '1900-01-01' },
      provider: order.physician ? { firstName: order.physician.first_name, lastName: order.physician.last_name } : null,
      laboratory: lab?.name ?? String(order.labId),
      specimenNumber: order.sampleId ?? order.id,
      collectedAt: stored.dateCollected,
      receivedAt: stored.dateReceived,
      reportedAt: stored.dateReported,
      status: stored.status,
      interpretation: stored.interpretation as ResultInterpretation,
      patientId: order.userId,
      accountId: order.labAccountId,
    });
    return { metadata, stored };
  }

  // -------------------------------------------------------------------------------------------

  /**
   * The order row, its transaction, its first events, the PHI write audit and
   * `labtest.order.created`, atomically: one statement writes the rows (insertOrder), the view is
   * built from what it wrote, then the outbox event and the idempotent answer are stored.
   */
  private async insert(team: TeamPrincipal, spec: NewOrder, complete: CompleteIdempotently): Promise<PostOrderResponse> {
    const now = new Date();
    const low = spec.initial[spec.initial.length - 1];
    const transaction = Object.assign(new OrderTransactionEntity(), { id: randomUUID(), teamId: team.teamId, status: 'active', createdAt: now, updatedAt: now });
    const seal = (value: unknown) => (value === null ? null : this.cipher.encryptJson(value));
    const order = Object.assign(new OrderEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      environment: team.environment,
      userId: spec.userId,
      labTestId: spec.orderable.labTest.id,
      labId: spec.orderable.lab.id,
      labAccountId: spec.account.id,
      collectionMethod: collectionMethodOf(spec.flow),
      flow: spec.flow,
      status: topLevelStatus(spec.flow, low),
      lowLevelStatus: low,
      origin: 'initial',
      orderTransactionId: transaction.id,
      registrable: spec.flow === 'registrable_testkit',
      sampleId: spec.sampleId,
      patientDetailsEnc: seal(spec.patientDetails),
      patientAddressEnc: seal(spec.patientAddress),
      shippingDetailsEnc: seal(spec.shippingDetails),
      registeredAt: null,
      physician: spec.physician,
      clinicalNotes: spec.clinicalNotes,
      healthInsuranceId: null,
      priority: spec.priority,
      billingType: spec.billingType,
      icdCodes: spec.icdCodes,
      consents: spec.consents,
      activateBy: spec.activateBy,
      passthrough: spec.passthrough,
      hasAbn: false,
      ...freshOrderState(now),
    } satisfies OrderEntity);
    const labTestView = toLabTestView(spec.orderable.labTest, spec.orderable.lab, spec.orderable.markers);
    const response = await this.orders.transaction(async (manager: EntityManager) => {
      let written: Awaited<ReturnType<OrdersRepository['insertOrder']>>;
      try {
        const statuses = spec.initial.map((status) => eventStatus(spec.flow, status));
        written = await this.orders.insertOrder(manager, order, transaction, statuses, { teamId: team.teamId, apiKeyId: team.apiKeyId });
      } catch (error) {
        // The unique index on (team, environment, sample_id): a concurrent import took the sample.
        if (isUniqueViolation(error)) throw badRequest(`Sample ${spec.sampleId} already belongs to an order.`);
        throw error;
      }
      const view = this.views.created(order, transaction, written.events, labTestView);
      await this.recordCreatedEvent(manager, team, order, view, written.clientUserId);
      const body: PostOrderResponse = { order: view, status: 'success', message: 'Order created.' };
      await complete(manager, body);
      return body;
    });
    await this.workflows.startAfterCommit(order, { labSlug: spec.orderable.lab.slug, seq: spec.initial.length });
    return response;
  }

  /** In the order's transaction: `labtest.order.created` with the order as the API shows it. */
  private async recordCreatedEvent(manager: EntityManager, team: TeamPrincipal, order: OrderEntity, view: OrderView, clientUserId: string | null): Promise<void> {
    await this.outbox.record(manager, [
      {
        eventType: 'labtest.order.created',
        idempotencyKey: `order:${order.id}:created`,
        teamId: team.teamId,
        environment: team.environment,
        userId: order.userId,
        clientUserId: clientUserId ?? '',
        data: view,
      },
    ]);
  }

  /** In the order's transaction: `labtest.order.created` with the order as the API shows it, and the PHI audit. */
  private async recordCreated(manager: EntityManager, team: TeamPrincipal, order: OrderEntity): Promise<OrderView> {
    const view = await this.views.one(order, manager);
    await this.recordCreatedEvent(manager, team, order, view, await this.orders.clientUserIdOf(order.userId, manager));
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'write', [order.id], manager);
    return view;
  }

  private async respond(team: TeamPrincipal, orderId: string, message: string): Promise<PostOrderResponse> {
    return { order: await this.get(team, orderId), status: 'success', message };
  }

  private async requireOrder(scope: Scope, orderId: string, manager?: EntityManager): Promise<OrderEntity> {
    const order = await this.orders.findScoped(scope, orderId, manager);
    if (!order) throw notFound('Order');
    return order;
  }

  /**
   * 404 unless the user is a live user of the team; read together with the version of the lab
   * test the request names (`labTestId`, when it names exactly one), for `orderable`.
   */
  private async requireUser(scope: Scope, userId: string, labTestId: string | null): Promise<OrderContext> {
    const context = await this.orders.createContext(scope, userId, labTestId);
    if (!context.userLive) throw notFound('User');
    return { labTestId, labTestVersion: context.labTestVersion };
  }

  /**
   * The lab test an order may use (LabTestsService.findOrderable's rules), from the lab tests
   * seen before when the version `context` read (visible to the team) is one of them and it is
   * orderable. Otherwise findOrderable reads it and gives the answer, 404 or 422 included; the row
   * it read is kept for next time when it is the version `context` saw.
   */
  private async orderable(team: TeamPrincipal, labTestId: string, context: OrderContext, loc?: Array<string | number>): Promise<OrderedLabTest> {
    const version = context.labTestId === labTestId ? context.labTestVersion : null;
    const seen = version === null ? undefined : this.views.labTestAt(labTestId, version);
    if (seen && seen.test.isActive && seen.test.status === 'active') return { labTest: seen.test, lab: seen.lab, markers: seen.markers };
    const orderable = await this.labTests.findOrderable(team, labTestId, loc);
    if (version !== null) this.views.rememberLabTest(version, { test: orderable.labTest, lab: orderable.lab, markers: orderable.markers });
    return orderable;
  }

  /** The one lab test of the order: `lab_test_id`, or an order set of exactly one test. */
  private singleLabTestId(body: Pick<CreateOrderDto, 'lab_test_id' | 'order_set'>): string {
    if (body.lab_test_id) return body.lab_test_id;
    const ids = body.order_set?.lab_test_ids ?? [];
    const addOns = (body.order_set?.add_on?.marker_ids?.length ?? 0) + (body.order_set?.add_on?.provider_ids?.length ?? 0);
    if (!body.order_set) throw validationError(['body', 'lab_test_id'], 'Give lab_test_id or order_set.', null, 'missing');
    if (ids.length !== 1 || addOns > 0) {
      throw validationError(['body', 'order_set'], 'This labflow version orders exactly one lab test per order (no add-on markers).', body.order_set);
    }
    return ids[0];
  }

  /** The lab test's collection method, if it is the requested one and orderable through this route. */
  private checkCollectionMethod<M extends string>(
    orderable: OrderedLabTest,
    requested: string | null,
    loc: Array<string | number> = ['body', 'collection_method'],
    allowed: readonly M[] = ['testkit'] as unknown as readonly M[],
  ): M {
    const method = orderable.labTest.method;
    if (requested && requested !== method) {
      throw validationError(loc, `Lab test ${orderable.labTest.id} is collected by ${method}, not ${requested}.`, requested);
    }
    if (!(allowed as readonly string[]).includes(method)) {
      throw validationError(loc, `${method} lab tests cannot be ordered through this route; ${allowed.join(', ')} can.`, method);
    }
    return method as M;
  }

  /** Order creation rule 3 for an existing order (kit registration). */
  private async requiresPhysician(order: OrderEntity): Promise<boolean> {
    const scope = { teamId: order.teamId, environment: order.environment } as TeamPrincipal;
    const account = await this.labAccounts.requireVisible(scope, order.labAccountId).catch(() => null);
    if (!account) return false;
    const [lab] = await this.catalog.labsByIds([order.labId]);
    return this.labAccounts.requiresPhysician(account, lab?.slug ?? '', new Date(), this.config.orders.physicianEnforcementDate);
  }

  private patientName(order: OrderEntity): string {
    if (!order.patientDetailsEnc) return '';
    const details = this.cipher.decryptJson<PatientDetails>(order.patientDetailsEnc);
    return `${details.first_name} ${details.last_name}`;
  }

  /**
   * Inserts the recreation of `original` (OrderRecreationService): a new `ordered` order in the
   * same order transaction, origin `recreation`, a copy of the original (user, lab test, patient,
   * physician, notes, billing) on `account` with a new sample id, and `labtest.order.created`.
   * 400 when the original was already recreated (checked under a lock of the transaction). The
   * transaction is active again (cancelling the original closed it).
   */
  async insertRecreation(team: TeamPrincipal, original: OrderEntity, account: LabAccountEntity): Promise<PostOrderResponse> {
    const now = new Date();
    const order = Object.assign(new OrderEntity(), {
      ...original,
      id: randomUUID(),
      labAccountId: account.id,
      status: topLevelStatus(original.flow, 'ordered'),
      lowLevelStatus: 'ordered',
      origin: 'recreation',
      sampleId: newSampleId(),
      ...freshOrderState(now),
    } satisfies Partial<OrderEntity>);
    const response = await this.orders.transaction(async (manager: EntityManager) => {
      await manager.query(`SELECT id FROM order_transactions WHERE id = $1 FOR UPDATE`, [original.orderTransactionId]);
      const newer: Array<{ id: string }> = await manager.query(
        `SELECT id FROM orders WHERE order_transaction_id = $1 AND id <> $2 AND created_at >= $3 LIMIT 1`,
        [original.orderTransactionId, original.id, original.createdAt],
      );
      if (newer.length > 0) throw badRequest(`Order ${original.id} was already recreated as ${newer[0].id}; recreate that order instead.`);
      await manager.getRepository(OrderEntity).insert(order as never);
      await manager.query(`INSERT INTO order_events (order_id, seq, status, created_at) VALUES ($1, 1, $2, clock_timestamp())`, [order.id, eventStatus(order.flow, 'ordered')]);
      await manager.query(`UPDATE order_transactions SET status = 'active', updated_at = clock_timestamp() WHERE id = $1`, [original.orderTransactionId]);
      const view = await this.recordCreated(manager, team, order);
      return { order: view, status: 'success' as const, message: 'Order recreated.' };
    });
    await this.workflows.startAfterCommit(order);
    return response;
  }
}

/** What requireUser read for order creation. */
interface OrderContext {
  /** The lab test id whose version was read (null: none). */
  labTestId: string | null;
  /** Its updated_at (text) when visible to the team; null otherwise. */
  labTestVersion: string | null;
}

/** The only item of a list of exactly one. */
function onlyItem<T>(items: T[] | null | undefined): T | null {
  return items?.length === 1 ? items[0] : null;
}

/** Collection methods `POST /v3/order` creates orders for (on_site_collection is not offered). */
const ORDERABLE_METHODS = ['testkit', 'walk_in_test', 'at_home_phlebotomy'] as const;

/** A kit's sample id, printed on the kit: `LF` and 10 characters. */
function newSampleId(): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
  return `LF${[...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

function toPhysician(physician: NonNullable<CreateOrderDto['physician']>): Physician {
  return {
    first_name: physician.first_name,
    last_name: physician.last_name,
    npi: physician.npi,
    email: physician.email ?? null,
    licensed_states: physician.licensed_states ?? null,
  };
}

function merge<T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined {
  const all = [...(a ?? []), ...(b ?? [])];
  return all.length > 0 ? all : undefined;
}

/** A date or datetime query value; a bare end date includes that whole day. */
function toDate(value: string | undefined, endOfDay = false): Date | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`);
  return new Date(value);
}

/** What a new order (created or recreated) has not reached yet: no results, requisition, shipment or workflow. */
function freshOrderState(now: Date) {
  return {
    pendingRegistrationEnc: null,
    interpretation: null,
    hasMissingResults: null,
    requisitionFormUrl: null,
    shipment: null,
    workflowStartedAt: null,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<OrderEntity>;
}
