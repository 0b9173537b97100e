import { Inject, Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { ApiError, badRequest, notFound, RequestValidationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { LabTestsService } from '../lab-tests/lab-tests.service';
import { eventStatus, isCancellable } from '../../workflows/order-lifecycle';
import type { OrderEntity } from './order.entities';
import type { RecreateOrderDto } from './orders.dto';
import { OrdersRepository } from './orders.repository';
import { OrdersService, type PostOrderResponse } from './orders.service';

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
    private readonly ordersService: OrdersService,
    private readonly labTests: LabTestsService,
    private readonly labAccounts: LabAccountsService,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
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
    if (newer) throw badRequest(`Order ${original.id} was already recreated as ${newer.id}; recreate that order instead.`);

    const orderable = await this.labTests.findOrderable(team, original.labTestId).catch((error: unknown) => {
      throw this.asBadRequest(error, 'The original order\'s lab test can no longer be ordered');
    });
    const account = await this.accountFor(team, original, body, orderable.lab.id, orderable.lab.slug);

    if (isCancellable(original.flow, original.lowLevelStatus)) {
      // The workflow decides; one that has started shipping meanwhile refuses, and keeps going.
      await this.ordersService.cancel(team, original.id).catch((error: unknown) => {
        if (!(error instanceof ApiError && error.getStatus() === 400)) throw error;
      });
    }
    return this.ordersService.insertRecreation(team, original, account);
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
      throw this.asBadRequest(error, incorrectLab ? `No other lab account than ${original.labAccountId} is available at ${labSlug}` : 'The original order\'s lab account can no longer take orders');
    }
    if (!original.physician && this.labAccounts.requiresPhysician(account, labSlug, new Date(), this.config.orders.physicianEnforcementDate)) {
      throw badRequest(`Lab account ${account.id} is ${account.delegatedFlow} at ${labSlug}: orders on it must name a physician, and the original order names none.`);
    }
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
