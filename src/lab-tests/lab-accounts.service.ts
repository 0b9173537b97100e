import { Inject, Injectable, Optional } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { validationError } from '../common/errors';
import type { BillingType, DelegatedFlow, LabAccountEntity, LabAccountStatus } from './lab-catalog.entities';
import { LabCatalogRepository } from './lab-catalog.repository';
import { LabAccountsRepository } from './lab-accounts.repository';
import type { LabAccountView } from './lab-tests.dto';
import { toLabAccountView } from './lab-catalog.views';

/**
 * The labs that support delegated (team-owned) accounts, where the physician rule applies. The
 * seed marks the same labs `supports_delegated_accounts`.
 */
export const DELEGATED_ACCOUNT_LABS: readonly string[] = ['quest', 'labcorp', 'bioreference', 'sonora_quest'];

/**
 * From when an order on an order- or fully-delegated account must name a physician. Junction
 * announced the rule in May 2026 with a grace period whose end the interface spec does not give;
 * labflow takes 2026-08-01. Override per app with the PHYSICIAN_ENFORCEMENT_DATE provider
 * (tests: `overrideProvider(PHYSICIAN_ENFORCEMENT_DATE).useValue(date)`), or per call.
 */
export const DEFAULT_PHYSICIAN_ENFORCEMENT_DATE = new Date('2026-08-01T00:00:00Z');
export const PHYSICIAN_ENFORCEMENT_DATE = 'LABFLOW_PHYSICIAN_ENFORCEMENT_DATE';

const PHYSICIAN_FLOWS: readonly DelegatedFlow[] = ['order_delegated', 'fully_delegated'];

type Loc = Array<string | number>;

export interface ResolveForOrderOptions {
  /** The lab of the order's lab test / order set. */
  labId: number;
  /** `lab_account_id` from the request, when given. */
  labAccountId?: string;
  /** Accept accounts in `pending` status too (POST /v3/order/import). */
  allowPending?: boolean;
  /** Never pick this account (recreating an order with reason INCORRECT_LAB). */
  excludeAccountId?: string;
  /**
   * The accounts the team can see at a lab, as listVisible reads them, when the caller has read
   * them already (order creation, with its user: OrderCreationRepository.createContext); used when that
   * lab is `labId`, so no statement of its own reads them.
   */
  visibleAtLab?: { labId: number; accounts: LabAccountEntity[] } | null;
}

@Injectable()
export class LabAccountsService {
  private readonly enforceFrom: Date;

  constructor(
    private readonly accounts: LabAccountsRepository,
    private readonly catalog: LabCatalogRepository,
    @Optional() @Inject(PHYSICIAN_ENFORCEMENT_DATE) enforceFrom?: Date,
  ) {
    this.enforceFrom = enforceFrom ?? DEFAULT_PHYSICIAN_ENFORCEMENT_DATE;
  }

  /** `GET /v3/lab_test/lab_account`: the accounts the team can use, its own first. */
  async list(team: TeamPrincipal, filters: { lab_account_id?: string; status?: LabAccountStatus }): Promise<{ data: LabAccountView[] }> {
    const accounts = await this.accounts.listVisible(team, { id: filters.lab_account_id, status: filters.status });
    const slugs = await this.labSlugs();
    return { data: accounts.map((account) => toLabAccountView(account, slugs.get(account.labId) ?? String(account.labId))) };
  }

  /** A lab account the team can use, or 422 at `loc`. */
  async requireVisible(team: TeamPrincipal, labAccountId: string, loc: Loc = ['body', 'lab_account_id']): Promise<LabAccountEntity> {
    const account = await this.accounts.findVisible(team, labAccountId);
    if (!account) throw validationError(loc, `Lab account ${labAccountId} not found.`, labAccountId);
    return account;
  }

  /**
   * The lab account an order is billed to.
   *
   * - `labAccountId` given: it must be visible to the team, be an account at `labId` and be
   *   `active` (or `pending` with `allowPending`); it must not be `excludeAccountId`.
   * - omitted: the team's own account at the lab (active before pending), else a not-delegated
   *   platform account at the lab (ones allowlisting the team first), skipping `excludeAccountId`.
   *
   * Every refusal is a 422 at `loc` (default `['body', 'lab_account_id']`).
   */
  async resolveForOrder(team: TeamPrincipal, options: ResolveForOrderOptions, loc: Loc = ['body', 'lab_account_id']): Promise<LabAccountEntity> {
    const usable: LabAccountStatus[] = options.allowPending ? ['active', 'pending'] : ['active'];
    const slugs = await this.labSlugs();
    const labSlug = slugs.get(options.labId) ?? String(options.labId);
    const visibleAtLab = options.visibleAtLab?.labId === options.labId ? options.visibleAtLab.accounts : undefined;

    if (options.labAccountId) {
      // One the caller read at the lab, else (not visible, or at another lab: the refusals name
      // which) its own read.
      const account = visibleAtLab?.find((visible) => visible.id === options.labAccountId) ?? (await this.requireVisible(team, options.labAccountId, loc));
      if (account.id === options.excludeAccountId) {
        throw validationError(loc, `Lab account ${account.id} cannot be used again for this order.`, options.labAccountId);
      }
      if (account.labId !== options.labId) {
        throw validationError(
          loc,
          `Lab account ${account.id} is an account at ${slugs.get(account.labId) ?? account.labId}, not at ${labSlug}: only markers and lab tests of the account's lab can be ordered with it.`,
          options.labAccountId,
        );
      }
      if (!usable.includes(account.status)) {
        throw validationError(
          loc,
          `Lab account ${account.id} is ${account.status}; only ${usable.join(' or ')} accounts can take orders.`,
          options.labAccountId,
        );
      }
      return account;
    }

    const candidates = (visibleAtLab ?? (await this.accounts.listVisible(team, { labId: options.labId }))).filter(
      (account) => account.id !== options.excludeAccountId && usable.includes(account.status),
    );
    const rank = (account: LabAccountEntity) => (account.status === 'active' ? 0 : 1) + (account.teamIdAllowlist.includes(team.teamId) ? 0 : 2);
    const byRank = (a: LabAccountEntity, b: LabAccountEntity) => rank(a) - rank(b);
    const own = candidates.filter((account) => account.teamId === team.teamId).sort(byRank);
    const platform = candidates.filter((account) => account.teamId === null && account.delegatedFlow === 'not_delegated').sort(byRank);
    const chosen = own[0] ?? platform[0];
    if (!chosen) throw validationError(loc, `No ${usable.join(' or ')} lab account is available at ${labSlug}.`, options.labAccountId ?? null);
    return chosen;
  }

  /**
   * Whether an order billed to `account` at lab `labSlug` must name at least one physician
   * (order creation rule 3): the account is order- or fully-delegated, the lab is one of the
   * four that support delegated accounts, and `now` is past the end of the grace period.
   * Platform (not-delegated) accounts use labflow's physicians.
   */
  requiresPhysician(account: Pick<LabAccountEntity, 'delegatedFlow'>, labSlug: string, now: Date = new Date(), enforceFrom: Date = this.enforceFrom): boolean {
    return PHYSICIAN_FLOWS.includes(account.delegatedFlow) && DELEGATED_ACCOUNT_LABS.includes(labSlug) && now.getTime() >= enforceFrom.getTime();
  }

  /** 422 at `loc` unless the account accepts this billing type. */
  checkBillingAllowed(account: Pick<LabAccountEntity, 'id' | 'allowedBilling'>, billingType: BillingType, loc: Loc = ['body', 'billing_type']): void {
    if (!account.allowedBilling.includes(billingType)) {
      throw validationError(
        loc,
        `Lab account ${account.id} does not accept billing type ${billingType}; it accepts ${account.allowedBilling.join(', ') || 'none'}.`,
        billingType,
      );
    }
  }

  /** Lab ids to slugs (the repository reads the labs once per process). */
  private async labSlugs(): Promise<Map<number, string>> {
    return new Map((await this.catalog.allLabs()).map((lab) => [lab.id, lab.slug]));
  }
}
