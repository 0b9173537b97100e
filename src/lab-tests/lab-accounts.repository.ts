import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { types } from 'pg';
import { DataSource } from 'typeorm';
import { runPrepared } from '../common/prepared-statement';
import { LabAccountEntity, type LabAccountStatus } from './lab-catalog.entities';
import { int32Ids, type Scope } from './lab-catalog.repository';

export interface LabAccountFilters {
  id?: string;
  status?: LabAccountStatus;
  labId?: number;
}

interface LabAccountRow {
  id: string;
  team_id: string | null;
  environment: LabAccountEntity['environment'];
  lab_id: number;
  status: LabAccountStatus;
  delegated_flow: LabAccountEntity['delegatedFlow'];
  provider_account_id: string;
  account_name: string;
  default_clinical_notes: string | null;
  allowed_billing: LabAccountEntity['allowedBilling'];
  team_id_allowlist: string[];
  created_at: Date;
}

/** The lab_accounts columns a LabAccountRow holds, in its order, over alias `a`. */
const LAB_ACCOUNT_COLUMNS = [
  'a.id',
  'a.team_id',
  'a.environment',
  'a.lab_id',
  'a.status',
  'a.delegated_flow',
  'a.provider_account_id',
  'a.account_name',
  'a.default_clinical_notes',
  'a.allowed_billing',
  'a.team_id_allowlist',
  'a.created_at',
] as const;

/**
 * The lab accounts (alias `a`) a team can see, its environment and id given as SQL expressions,
 * and the order they are listed in: the team's own accounts first, then platform accounts; by
 * lab, then oldest first.
 */
const visibleLabAccountsWhere = (environment: string, teamId: string) =>
  `(a.environment IS NULL OR a.environment = ${environment})
            AND (a.team_id = ${teamId} OR (a.team_id IS NULL AND (cardinality(a.team_id_allowlist) = 0 OR ${teamId} = ANY(a.team_id_allowlist))))`;
const VISIBLE_LAB_ACCOUNTS_ORDER = 'a.team_id IS NULL, a.lab_id, a.created_at, a.id';

/**
 * The lab accounts a team can see, narrowed by the optional id, status and lab ($3–$5, NULL for
 * any), in VISIBLE_LAB_ACCOUNTS_ORDER.
 */
const VISIBLE_LAB_ACCOUNTS = {
  name: 'labflow_lab_accounts_visible',
  text: `SELECT ${LAB_ACCOUNT_COLUMNS.join(', ')}
           FROM lab_accounts a
          WHERE ${visibleLabAccountsWhere('$1::text', '$2::uuid')}
            AND ($3::uuid IS NULL OR a.id = $3::uuid)
            AND ($4::text IS NULL OR a.status = $4::text)
            AND ($5::integer IS NULL OR a.lab_id = $5::integer)
          ORDER BY ${VISIBLE_LAB_ACCOUNTS_ORDER}`,
};

/**
 * The lab accounts a team can see at one lab (listVisible's rules and order) as one JSON value of
 * a statement of another module that reads them beside its own rows (order creation's first
 * statement, OrderCreationRepository.createContext): an array of accounts, each an array of
 * LAB_ACCOUNT_COLUMNS in order (created_at as Postgres' text), `[]` when none. The lab, the
 * environment and the team are SQL expressions of that statement; labAccountsFromJson reads it.
 */
export const visibleLabAccountsJson = (labId: string, environment: string, teamId: string) =>
  `COALESCE((SELECT json_agg(json_build_array(${LAB_ACCOUNT_COLUMNS.map((column) => (column === 'a.created_at' ? `${column}::text` : column)).join(', ')})
                            ORDER BY ${VISIBLE_LAB_ACCOUNTS_ORDER})
              FROM lab_accounts a
             WHERE a.lab_id = ${labId} AND ${visibleLabAccountsWhere(environment, teamId)}), '[]'::json)`;

/** pg's parser for timestamptz text: the same Date as a column read. */
const parseTimestamptz = types.getTypeParser(1184, 'text') as (value: string) => Date;

/** The accounts of a visibleLabAccountsJson value, as listVisible returns them. */
export function labAccountsFromJson(accounts: unknown[][]): LabAccountEntity[] {
  return accounts.map((values) => {
    const [
      id,
      teamId,
      environment,
      labId,
      status,
      delegatedFlow,
      providerAccountId,
      accountName,
      defaultClinicalNotes,
      allowedBilling,
      teamIdAllowlist,
      createdAt,
    ] = values as [
      string,
      string | null,
      LabAccountRow['environment'],
      number,
      LabAccountRow['status'],
      LabAccountRow['delegated_flow'],
      string,
      string,
      string | null,
      LabAccountRow['allowed_billing'],
      string[],
      string,
    ];
    return toLabAccountEntity({
      id,
      team_id: teamId,
      environment,
      lab_id: labId,
      status,
      delegated_flow: delegatedFlow,
      provider_account_id: providerAccountId,
      account_name: accountName,
      default_clinical_notes: defaultClinicalNotes,
      allowed_billing: allowedBilling,
      team_id_allowlist: teamIdAllowlist,
      created_at: parseTimestamptz(createdAt),
    });
  });
}

function toLabAccountEntity(row: LabAccountRow): LabAccountEntity {
  return Object.assign(new LabAccountEntity(), {
    id: row.id,
    teamId: row.team_id,
    environment: row.environment,
    labId: row.lab_id,
    status: row.status,
    delegatedFlow: row.delegated_flow,
    providerAccountId: row.provider_account_id,
    accountName: row.account_name,
    defaultClinicalNotes: row.default_clinical_notes,
    allowedBilling: row.allowed_billing,
    teamIdAllowlist: row.team_id_allowlist,
    createdAt: row.created_at,
  });
}

/**
 * Lab accounts a team can use: its own, and platform accounts (team_id NULL) open to every team
 * or naming it in team_id_allowlist; either kind only in its environment when it has one.
 */
@Injectable()
export class LabAccountsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** One prepared statement for every filter combination (order creation reads it on each order). */
  async listVisible(scope: Scope, filters: LabAccountFilters = {}): Promise<LabAccountEntity[]> {
    // An id beyond integer range matches no lab (and would make the statement fail).
    if (filters.labId !== undefined && int32Ids([filters.labId]).length === 0) return [];
    const rows = await runPrepared<LabAccountRow>(this.db, VISIBLE_LAB_ACCOUNTS.name, VISIBLE_LAB_ACCOUNTS.text, [
      scope.environment,
      scope.teamId,
      filters.id ?? null,
      filters.status ?? null,
      filters.labId ?? null,
    ]);
    return rows.map(toLabAccountEntity);
  }

  async findVisible(scope: Scope, id: string): Promise<LabAccountEntity | null> {
    const [account] = await this.listVisible(scope, { id });
    return account ?? null;
  }

  insert(account: LabAccountEntity): Promise<LabAccountEntity> {
    return this.db.getRepository(LabAccountEntity).save(account);
  }
}
