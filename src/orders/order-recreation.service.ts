import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { ApiError, badRequest, notFound, RequestValidationError } from '../common/errors';
import type { LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { OrderableLabTestsService } from '../lab-tests/orderable-lab-tests.service';
import { eventStatus, topLevelStatus } from '../../workflows/order/order-statuses';
import { isCancellable } from '../../workflows/order/order-lifecycle';
import { freshOrderState, newSampleId } from './new-order';
import { OrderCommandsService } from './order-commands.service';
import { OrderCreationService } from './order-creation.service';
import { OrderEntity } from './order.entities';
import { OrderViews, type OrderView, type PostOrderResponse } from './order-views';
import { OrderWorkflows } from './order-workflows';
import { PhysicianRule } from './physician-rule';
import type { RecreateOrderDto } from './orders.dto';
import { OrdersRepository } from './orders.repository';
import { UsersRepository } from '../users/users.repository';

/**
 * `POST /v3/order/{order_id}/recreate` (order creation rule 2). The new order joins the original's
 * order transaction with origin `recreation` and a copy of its user, lab test, patient details,
 * physician and notes. With update reason INCORRECT_LAB a fresh lab account is resolved, never the
 * original's. The original is cancelled through its workflow's `cancelOrder` update (as `POST
 * /v3/order/{id}/cancel` does) while it is still cancellable; a kit already shipping keeps going.
 *
 * Refusals are 400 {detail}: an order not placed through `POST /v3/order`, a completed order, an
 * order already recreated (only the latest order of a transaction can be), no other lab account.
 */
@Injectable()
export class OrderRecreationService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly users: UsersRepository,
    private readonly creation: OrderCreationService,
    private readonly commands: OrderCommandsService,
    private readonly views: OrderViews,
    private readonly workflows: OrderWorkflows,
    private readonly labTests: OrderableLabTestsService,
    private readonly labAccounts: LabAccountsService,
    private readonly physicianRule: PhysicianRule,
  ) {}

  async recreate(team: TeamPrincipal, orderId: string, body: RecreateOrderDto): Promise<PostOrderResponse> {
    const original = await this.orders.findScoped(team, orderId);
    if (!original) throw notFound('Order');
    if (original.flow !== 'testkit') {
      throw badRequest('Only orders placed with POST /v3/order can be recreated (not unregistered or imported kits).');
    }
    if (original.status === 'completed') {
      throw badRequest(`Order cannot be recreated: it is ${eventStatus(original.flow, original.lowLevelStatus)}.`);
    }
    const siblings = (await this.orders.transactionsOf([original.orderTransactionId])).get(original.orderTransactionId)?.orders ?? [];
    const newer = siblings.find((sibling) => sibling.id !== original.id && sibling.createdAt.getTime() >= original.createdAt.getTime());
    if (newer) throw alreadyRecreated(original, newer.id);

    const orderable = await this.labTests.findOrderable(team, original.labTestId).catch((error: unknown) => {
      throw this.asBadRequest(error, "The original order's lab test can no longer be ordered");
    });
    const account = await this.accountFor(team, original, body, orderable.lab.id, orderable.lab.slug);

    if (isCancellable(original.flow, original.lowLevelStatus)) {
      // The workflow decides; one that has started shipping meanwhile refuses, and keeps going.
      await this.commands.cancel(team, original.id).catch((error: unknown) => {
        if (!(error instanceof ApiError && error.getStatus() === 400)) throw error;
      });
    }
    return this.insertRecreation(team, original, account);
  }

  /**
   * Inserts the recreation of `original`: a new `ordered` order in the
   * same order transaction, origin `recreation`, a copy of the original (user, lab test, patient,
   * physician, notes, billing) on `account` with a new sample id, and `labtest.order.created`.
   * 400 when the original was already recreated (checked under a lock of the transaction). The
   * transaction is active again (cancelling the original closed it).
   */
  private async insertRecreation(team: TeamPrincipal, original: OrderEntity, account: LabAccountEntity): Promise<PostOrderResponse> {
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
      const newer = await this.orders.lockForRecreation(manager, original);
      if (newer !== null) throw alreadyRecreated(original, newer);
      await this.orders.insertRecreated(manager, order, eventStatus(order.flow, 'ordered'), original.id);
      const view = await this.recordCreated(manager, team, order);
      return { order: view, status: 'success' as const, message: 'Order recreated.' };
    });
    await this.workflows.startAfterCommit(order);
    return response;
  }

  /** In the order's transaction: `labtest.order.created` with the order as the API shows it, and the PHI audit. */
  private async recordCreated(manager: EntityManager, team: TeamPrincipal, order: OrderEntity): Promise<OrderView> {
    const view = await this.views.one(order, manager);
    await this.creation.recordCreatedEvent(manager, team, order, view, await this.users.clientUserIdOf(order.userId, manager));
    await this.orders.logPhiAccess({ teamId: team.teamId, apiKeyId: team.apiKeyId }, 'write', [order.id], manager);
    return view;
  }

  private async accountFor(team: TeamPrincipal, original: OrderEntity, body: RecreateOrderDto, labId: number, labSlug: string): Promise<LabAccountEntity> {
    const incorrectLab = body.update_reason === 'INCORRECT_LAB';
    const requested = body.lab_account_id ?? undefined;
    let account: LabAccountEntity;
    try {
      account = await this.labAccounts.resolveForOrder(team, {
        labId,
        labAccountId: requested ?? (incorrectLab ? undefined : original.labAccountId),
        excludeAccountId: incorrectLab ? original.labAccountId : undefined,
      });
    } catch (error) {
      // A lab_account_id the caller named stays a 422 at body.lab_account_id.
      if (requested) throw error;
      throw this.asBadRequest(
        error,
        incorrectLab
          ? `No other lab account than ${original.labAccountId} is available at ${labSlug}`
          : "The original order's lab account can no longer take orders",
      );
    }
    this.physicianRule.check(account, labSlug, original.physician, 'recreation');
    try {
      this.labAccounts.checkBillingAllowed(account, (original.billingType ?? 'client_bill') as Parameters<LabAccountsService['checkBillingAllowed']>[1]);
    } catch (error) {
      throw this.asBadRequest(error, `Lab account ${account.id} does not accept the original order's billing type`);
    }
    return account;
  }

  /** A rule's 422 about a value the caller did not send, as 400 {detail: "<context>: <reason>"}. */
  private asBadRequest(error: unknown, context: string): unknown {
    if (error instanceof RequestValidationError) return badRequest(`${context}: ${error.issues.map((issue) => issue.msg).join(' ')}`);
    return error;
  }
}

/** 400: only the latest order of an order transaction can be recreated. */
function alreadyRecreated(original: Pick<OrderEntity, 'id'>, newerId: string) {
  return badRequest(`Order ${original.id} was already recreated as ${newerId}; recreate that order instead.`);
}
