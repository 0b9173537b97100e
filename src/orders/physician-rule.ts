import { type HttpException, Inject, Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { badRequest, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { LabAccountEntity } from '../lab-tests/lab-catalog.entities';
import { LabAccountsService } from '../lab-tests/lab-accounts.service';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import type { OrderEntity } from './order.entities';

type Account = Pick<LabAccountEntity, 'id' | 'delegatedFlow'>;

/** The route asking, which decides how the refusal reads. */
export type PhysicianAsker = 'order' | 'import' | 'registration' | 'recreation';

/**
 * The refusal of each route, worded as each has always worded it (responses stay byte-identical):
 * a 422 at body.physician where the request could have named one, a 400 for a recreation (it
 * copies the original's physician).
 */
const REFUSALS: Record<PhysicianAsker, (account: Account, labSlug: string) => HttpException> = {
  order: (account, labSlug) =>
    validationError(['body', 'physician'], `Lab account ${account.id} is ${account.delegatedFlow} at ${labSlug}: orders on it must name a physician.`, null),
  import: (account) =>
    validationError(['body', 'physician'], `Lab account ${account.id} is ${account.delegatedFlow}: orders on it must name a physician.`, null),
  registration: () => validationError(['body', 'physician'], 'Orders on this lab account must name a physician.', null),
  recreation: (account, labSlug) =>
    badRequest(`Lab account ${account.id} is ${account.delegatedFlow} at ${labSlug}: orders on it must name a physician, and the original order names none.`),
};

/**
 * Order creation rule 3, the one place it is applied: an order on an order- or fully-delegated
 * account at a lab that supports delegated accounts must name a physician from
 * PHYSICIAN_ENFORCEMENT_DATE on (LabAccountsService.requiresPhysician decides which accounts).
 */
@Injectable()
export class PhysicianRule {
  constructor(
    private readonly labAccounts: LabAccountsService,
    private readonly catalog: LabCatalogRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** Throws the asker's refusal when an order on `account` at `labSlug` needs a physician and `physician` is none. */
  check(account: Account, labSlug: string, physician: unknown, asker: PhysicianAsker): void {
    if (physician) return;
    if (this.labAccounts.requiresPhysician(account, labSlug, new Date(), this.config.orders.physicianEnforcementDate)) throw REFUSALS[asker](account, labSlug);
  }

  /**
   * `check` for an existing order (kit registration): its lab account as its team sees it (none
   * visible any more: no physician needed) at its lab.
   */
  async checkOrder(order: Pick<OrderEntity, 'teamId' | 'environment' | 'labAccountId' | 'labId'>, physician: unknown, asker: PhysicianAsker): Promise<void> {
    if (physician) return;
    const scope = { teamId: order.teamId, environment: order.environment } as TeamPrincipal;
    const account = await this.labAccounts.requireVisible(scope, order.labAccountId).catch(() => null);
    if (!account) return;
    const [lab] = await this.catalog.labsByIds([order.labId]);
    this.check(account, lab?.slug ?? '', physician, asker);
  }
}
