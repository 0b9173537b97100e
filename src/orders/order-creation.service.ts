import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, notFound } from '../common/errors';
import { type CompleteIdempotently, type IdempotencyOptions, type IdempotencyPolicy, IdempotencyService } from '../common/idempotency';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { type NewEvent, OutboxService } from '../events/outbox.service';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { toLabTestView } from '../lab-tests/lab-catalog.views';
import { OrderableLabTestsService } from '../lab-tests/orderable-lab-tests.service';
import { isUniqueViolation } from '../users/users.repository';
import { collectionMethodOf, eventStatus, topLevelStatus } from '../../workflows/order/order-statuses';
import {
  checkCollectionMethod,
  freshOrderState,
  type NewOrder,
  newSampleId,
  onlyItem,
  ORDERABLE_METHODS,
  type OrderedLabTest,
  requestedLabAccountId,
  requisitionInputsOf,
  singleLabTestId,
  toPhysician,
} from './new-order';
import { OrderEntity, OrderEventEntity, OrderTransactionEntity } from './order.entities';
import { OrderViews, type OrderView, type PostOrderResponse } from './order-views';
import { OrderWorkflows } from './order-workflows';
import { PhysicianRule } from './physician-rule';
import type { CreateOrderDto, CreateTestkitOrderDto, ImportOrderDto } from './orders.dto';
import { type CreateContext, type NewOrderEvents, OrderCreationRepository } from './order-creation.repository';
import { OrdersRepository, type Scope } from './orders.repository';

/**
 * Order creation: `POST /v3/order`, `/v3/order/testkit` and `/v3/order/import`, idempotent by
 * `X-Idempotency-Key`. The order row, its first events and `labtest.order.created` are written in
 * one transaction; its workflow starts after the commit (or by the reconciler).
 */
@Injectable()
export class OrderCreationService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly creation: OrderCreationRepository,
    private readonly views: OrderViews,
    private readonly workflows: OrderWorkflows,
    private readonly idempotency: IdempotencyService,
    private readonly labTests: OrderableLabTestsService,
    private readonly labAccounts: LabAccountsService,
    private readonly physicianRule: PhysicianRule,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** Order creation's keys: `X-Idempotency-Key`, answers kept IDEMPOTENCY_KEY_TTL. */
  private idempotencyPolicy(): IdempotencyPolicy {
    return { header: 'X-Idempotency-Key', ttlMs: this.config.orders.idempotencyKeyTtlMs };
  }

  /**
   * `POST /v3/order`: a kit registered to the patient at ordering, or a walk-in / at-home
   * phlebotomy order (its appointment is booked afterwards, through the appointment routes).
   */
  create(team: TeamPrincipal, body: CreateOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order', body }, idempotency, this.idempotencyPolicy(), async (complete) => {
      const context = await this.requireUser(team, body.user_id, body.lab_test_id ?? onlyItem(body.order_set?.lab_test_ids), ORDERED.length);
      const labTestId = singleLabTestId(body);
      const orderable = await this.orderable(team, labTestId, context, ['body', body.lab_test_id ? 'lab_test_id' : 'order_set']);
      const method = checkCollectionMethod(orderable, body.collection_method ?? null, ['body', 'collection_method'], ORDERABLE_METHODS);
      const account = await this.labAccounts.resolveForOrder(team, {
        labId: orderable.lab.id,
        labAccountId: requestedLabAccountId(body),
        visibleAtLab: context.labAccounts,
      });
      this.physicianRule.check(account, orderable.lab.slug, body.physician, 'order');
      const billingType = body.billing_type ?? 'client_bill';
      this.labAccounts.checkBillingAllowed(account, billingType);
      const details = body.patient_details;
      const address = body.patient_address;
      return this.insert(
        team,
        context,
        {
          flow: method === 'testkit' ? 'testkit' : method,
          userId: body.user_id,
          orderable,
          account,
          initial: [...ORDERED],
          sampleId: newSampleId(),
          patientDetails: details,
          patientAddress: address,
          // Only a kit ships; an appointment takes place at the patient's address or a service center.
          shippingDetails:
            method !== 'testkit'
              ? null
              : {
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
          healthInsurance: body.health_insurance ?? null,
          requisitionInputs: requisitionInputsOf(orderable.markers, body.aoe_answers, body.physician?.signature_image),
        },
        complete,
      );
    });
  }

  /** `POST /v3/order/testkit`: an unregistered kit; the customer registers it with its sample id. */
  createTestkit(team: TeamPrincipal, body: CreateTestkitOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order/testkit', body }, idempotency, this.idempotencyPolicy(), async (complete) => {
      const context = await this.requireUser(team, body.user_id, body.lab_test_id, AWAITING_REGISTRATION.length);
      const orderable = await this.orderable(team, body.lab_test_id, context);
      checkCollectionMethod(orderable, 'testkit', ['body', 'lab_test_id']);
      const account = await this.labAccounts.resolveForOrder(team, {
        labId: orderable.lab.id,
        labAccountId: body.lab_account_id ?? undefined,
        visibleAtLab: context.labAccounts,
      });
      return this.insert(
        team,
        context,
        {
          flow: 'registrable_testkit',
          userId: body.user_id,
          orderable,
          account,
          initial: [...AWAITING_REGISTRATION],
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
          healthInsurance: null,
          requisitionInputs: null,
        },
        complete,
      );
    });
  }

  /**
   * `POST /v3/order/import`: a sample already collected (its sample_id given), so nothing ships;
   * the order goes to requisition and waits for the sample at the lab. The lab account may still
   * be PENDING.
   */
  import(team: TeamPrincipal, body: ImportOrderDto, idempotency: IdempotencyOptions): Promise<PostOrderResponse> {
    return this.idempotency.run(team, { endpoint: 'order/import', body }, idempotency, this.idempotencyPolicy(), async (complete) => {
      const context = await this.requireUser(team, body.user_id, onlyItem(body.order_set.lab_test_ids), ORDERED.length);
      const labTestId = singleLabTestId({ order_set: body.order_set });
      const orderable = await this.orderable(team, labTestId, context, ['body', 'order_set', 'lab_test_ids', 0]);
      checkCollectionMethod(orderable, body.collection_method);
      const account = await this.labAccounts.resolveForOrder(team, {
        labId: orderable.lab.id,
        labAccountId: requestedLabAccountId(body),
        allowPending: true,
        visibleAtLab: context.labAccounts,
      });
      this.physicianRule.check(account, orderable.lab.slug, body.physician, 'import');
      this.labAccounts.checkBillingAllowed(account, body.billing_type);
      if (await this.orders.sampleIdTaken(team, body.sample_id)) throw badRequest(`Sample ${body.sample_id} already belongs to an order.`);
      return this.insert(
        team,
        context,
        {
          flow: 'imported_testkit',
          userId: body.user_id,
          orderable,
          account,
          initial: [...ORDERED],
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
          healthInsurance: null,
          requisitionInputs: requisitionInputsOf(orderable.markers, null, body.physician?.signature_image),
        },
        complete,
      );
    });
  }

  /**
   * The order row, its transaction, its first events, the PHI write audit row and
   * `labtest.order.created`, atomically: the view (the event's data and the answer) is built
   * first, from the event ids createContext drew, then one statement writes every row
   * (insertOrder). With an idempotency key, the answer is stored in a transaction around it.
   */
  private async insert(team: TeamPrincipal, context: OrderContext, spec: NewOrder, complete: CompleteIdempotently | null): Promise<PostOrderResponse> {
    const now = new Date();
    const low = spec.initial[spec.initial.length - 1];
    const transaction = Object.assign(new OrderTransactionEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
    const details = this.seal(spec.patientDetails);
    const address = this.seal(spec.patientAddress);
    const shipping = this.seal(spec.shippingDetails);
    const insurance = this.seal(spec.healthInsurance);
    const requisitionInputs = this.seal(spec.requisitionInputs);
    const clinicalNotes = this.seal(spec.clinicalNotes);
    const icdCodes = this.seal(spec.icdCodes);
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
      patientDetailsEnc: details.sealed,
      patientAddressEnc: address.sealed,
      shippingDetailsEnc: shipping.sealed,
      registeredAt: null,
      physician: spec.physician,
      clinicalNotesEnc: clinicalNotes.sealed,
      clinicalNotes: null,
      healthInsuranceId: insurance.sealed === null ? null : randomUUID(),
      priority: spec.priority,
      billingType: spec.billingType,
      icdCodesEnc: icdCodes.sealed,
      icdCodes: null,
      consents: spec.consents,
      activateBy: spec.activateBy,
      passthrough: spec.passthrough,
      hasAbn: false,
      ...freshOrderState(now),
    } satisfies OrderEntity);
    const labTestView = toLabTestView(spec.orderable.labTest, spec.orderable.lab, spec.orderable.markers);
    if (context.eventIds.length !== spec.initial.length)
      throw new Error(`order ${order.id}: ${context.eventIds.length} event ids drawn for ${spec.initial.length} events`);
    const events: NewOrderEvents = { ids: context.eventIds, statuses: spec.initial.map((status) => eventStatus(spec.flow, status)), createdAt: now };
    const eventRows = events.ids.map((id, index) =>
      Object.assign(new OrderEventEntity(), { id, orderId: order.id, seq: index + 1, status: events.statuses[index], statusDetail: null, createdAt: now }),
    );
    const view = this.views.created(order, transaction, eventRows, labTestView, {
      patientDetails: details.opened,
      patientAddress: address.opened,
      shippingDetails: shipping.opened,
      clinicalNotes: clinicalNotes.opened,
      icdCodes: icdCodes.opened,
    });
    const outbox = this.outbox.prepare([this.createdEvent(team, order, view, context.clientUserId)]);
    const response: PostOrderResponse = { order: view, status: 'success', message: 'Order created.' };
    const write = async (manager: EntityManager | null) => {
      try {
        await this.creation.insertOrder(manager, order, transaction, events, { teamId: team.teamId, apiKeyId: team.apiKeyId }, outbox, {
          healthInsuranceEnc: insurance.sealed,
          requisitionInputsEnc: requisitionInputs.sealed,
        });
      } catch (error) {
        // The unique index on (team, environment, sample_id): a concurrent import took the sample.
        if (isUniqueViolation(error)) throw badRequest(`Sample ${spec.sampleId} already belongs to an order.`);
        throw error;
      }
    };
    if (complete) {
      await this.orders.transaction(async (manager: EntityManager) => {
        await write(manager);
        await complete(manager, response);
      });
    } else {
      // No key, no answer to store: the one statement commits by itself.
      await write(null);
    }
    await this.workflows.startAfterCommit(order, { labSlug: spec.orderable.lab.slug, seq: spec.initial.length });
    return response;
  }

  /**
   * A PHI column's value sealed (PhiCipher.encryptJson is encrypt of the JSON), and opened: parsed
   * back from the very JSON encrypted, which is what decrypting the column gives. The new order's
   * view shows it without decrypting what was just encrypted.
   */
  private seal<T>(value: T | null): { sealed: string | null; opened: T | null } {
    if (value === null) return { sealed: null, opened: null };
    const json = JSON.stringify(value);
    return { sealed: this.cipher.encrypt(json), opened: JSON.parse(json) as T };
  }

  /** In the order's transaction: `labtest.order.created` with the order as the API shows it. */
  async recordCreatedEvent(manager: EntityManager, team: TeamPrincipal, order: OrderEntity, view: OrderView, clientUserId: string | null): Promise<void> {
    await this.outbox.record(manager, [this.createdEvent(team, order, view, clientUserId)]);
  }

  /** `labtest.order.created` with the order as the API shows it. */
  private createdEvent(team: TeamPrincipal, order: OrderEntity, view: OrderView, clientUserId: string | null): NewEvent {
    return {
      eventType: 'labtest.order.created',
      idempotencyKey: `order:${order.id}:created`,
      teamId: team.teamId,
      environment: team.environment,
      userId: order.userId,
      clientUserId: clientUserId ?? '',
      data: view,
    };
  }

  /**
   * 404 unless the user is a live user of the team; read together with the version of the lab
   * test the request names (`labTestId`, when it names exactly one), for `orderable`.
   */
  private async requireUser(scope: Scope, userId: string, labTestId: string | null, eventCount: number): Promise<OrderContext> {
    const context = await this.creation.createContext(scope, userId, labTestId, eventCount);
    const { userLive, ...read } = context;
    if (!userLive) throw notFound('User');
    return { ...read, labTestId };
  }

  /**
   * The lab test an order may use (OrderableLabTestsService.findOrderable's rules), from the lab tests
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
}

/** What requireUser read for order creation (the user being live), and the lab test id whose version it read (null: none). */
type OrderContext = Omit<CreateContext, 'userLive'> & { labTestId: string | null };

/** The first statuses of an order: a kit or appointment order, or an import; a registrable kit. */
const ORDERED = ['ordered'] as const;
const AWAITING_REGISTRATION = ['ordered', 'awaiting_registration'] as const;
