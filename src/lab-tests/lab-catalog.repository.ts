import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { types } from 'pg';
import { DataSource, type EntityManager, In } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { runPrepared } from '../common/prepared-statement';
import type { LoincCatalogueRow } from './loinc-catalogue-row';
import {
  LabAccountEntity,
  LabEntity,
  LabTestEntity,
  LabTestMarkerEntity,
  LoincEntity,
  MarkerEntity,
  PanelMemberEntity,
  type CollectionMethod,
  type LabAccountStatus,
  type LabTestStatus,
} from './lab-catalog.entities';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** Ids that fit Postgres `integer`; larger ones cannot exist (and would make the query fail). */
export const int32Ids = (ids: number[]) => ids.filter((id) => Number.isInteger(id) && id >= -2147483648 && id <= 2147483647);

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

export interface MarkerSearch {
  labIds?: number[];
  name?: string;
  aLaCarteEnabled?: boolean;
}

/** Labs, markers, panels and LOINC codes: the read-only reference part of the catalog. */
@Injectable()
export class LabCatalogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private labs?: Promise<LabEntity[]>;

  /**
   * Every lab, read once per process: labs are catalog rows only migrations write, and order
   * creation and `GET /v3/lab_tests/labs` ask for them on every request. A failed read is not kept.
   */
  allLabs(): Promise<LabEntity[]> {
    this.labs ??= this.db
      .getRepository(LabEntity)
      .find({ order: { id: 'ASC' } })
      .catch((error: unknown) => {
        this.labs = undefined;
        throw error;
      });
    return this.labs;
  }

  /** `manager`: a caller inside a transaction reads on its connection (never a second one of the pool). */
  labsByIds(ids: number[], manager: EntityManager = this.db.manager): Promise<LabEntity[]> {
    const valid = int32Ids(ids);
    if (valid.length === 0) return Promise.resolve([]);
    return manager.getRepository(LabEntity).findBy({ id: In(valid) });
  }

  labBySlug(slug: string): Promise<LabEntity | null> {
    return this.db.getRepository(LabEntity).findOneBy({ slug });
  }

  markersByIds(ids: number[], manager: EntityManager = this.db.manager): Promise<MarkerEntity[]> {
    const valid = int32Ids(ids);
    if (valid.length === 0) return Promise.resolve([]);
    return manager.getRepository(MarkerEntity).findBy({ id: In(valid) });
  }

  /** Markers with any of these provider ids, at any lab (a provider id is unique per lab only). */
  markersByProviderIds(providerIds: string[]): Promise<MarkerEntity[]> {
    if (providerIds.length === 0) return Promise.resolve([]);
    return this.db.getRepository(MarkerEntity).findBy({ providerId: In(providerIds) });
  }

  markerByLabAndProviderId(labId: number, providerId: string): Promise<MarkerEntity | null> {
    if (int32Ids([labId]).length === 0) return Promise.resolve(null);
    return this.db.getRepository(MarkerEntity).findOneBy({ labId, providerId });
  }

  /** One page of markers, ordered by lab then id, and how many match in all. */
  async searchMarkers(search: MarkerSearch, offset: number, limit: number): Promise<{ markers: MarkerEntity[]; total: number }> {
    const query = this.db.getRepository(MarkerEntity).createQueryBuilder('m');
    if (search.labIds) query.andWhere('m.lab_id = ANY(:labIds)', { labIds: int32Ids(search.labIds) });
    // A part of the marker's name, or its lab's test code (the whole code: "100" is no code's part).
    if (search.name) query.andWhere('(m.name ILIKE :name OR lower(m.provider_id) = lower(:code))', { name: likeContains(search.name), code: search.name });
    if (search.aLaCarteEnabled !== undefined) query.andWhere('m.a_la_carte_enabled = :alc', { alc: search.aLaCarteEnabled });
    const [markers, total] = await query.orderBy('m.labId', 'ASC').addOrderBy('m.id', 'ASC').skip(offset).take(limit).getManyAndCount();
    return { markers, total };
  }

  /** Members of these panels, in panel order. */
  panelMembers(panelIds: number[]): Promise<PanelMemberEntity[]> {
    if (panelIds.length === 0) return Promise.resolve([]);
    return this.db.getRepository(PanelMemberEntity).find({ where: { panelId: In(panelIds) }, order: { panelId: 'ASC', position: 'ASC' } });
  }

  loincsByIds(ids: number[]): Promise<LoincEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.getRepository(LoincEntity).findBy({ id: In(ids) });
  }

  /** Every LOINC code with its printed names, as lab-report parsing builds its catalogue from. */
  async loincCatalogueRows(): Promise<LoincCatalogueRow[]> {
    const rows = await this.db.getRepository(LoincEntity).find({ order: { id: 'ASC' } });
    return rows.map((row) => ({ code: row.code, name: row.name, display_name: row.displayName, unit: row.unit, aliases: row.aliases, specimen: row.specimen }));
  }
}

export interface LabTestFilters {
  autoGenerated?: boolean;
  labId?: number;
  method?: CollectionMethod;
  status?: LabTestStatus;
  markerIds?: number[];
  providerIds?: string[];
  name?: string;
  orderKey: 'price' | 'created_at' | 'updated_at';
  orderDirection: 'asc' | 'desc';
}

const ORDER_COLUMN = { price: 't.price', created_at: 't.createdAt', updated_at: 't.updatedAt' } as const;

/** Lab tests a team can see: the global ones and its own (in its environment). */
@Injectable()
export class LabTestsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private visible(scope: Scope, manager: EntityManager = this.db.manager) {
    return manager
      .getRepository(LabTestEntity)
      .createQueryBuilder('t')
      .where('(t.team_id IS NULL OR (t.team_id = :teamId AND t.environment = :environment))', {
        teamId: scope.teamId,
        environment: scope.environment,
      });
  }

  /** `manager`: a caller inside a transaction reads on its connection (never a second one of the pool). */
  findVisible(scope: Scope, id: string, manager?: EntityManager): Promise<LabTestEntity | null> {
    return this.visible(scope, manager).andWhere('t.id = :id', { id }).getOne();
  }

  /** Visible tests matching the filters, ordered; offset/limit page through them when given. */
  listVisible(scope: Scope, filters: LabTestFilters, page?: { offset: number; limit: number }): Promise<LabTestEntity[]> {
    const query = this.visible(scope);
    if (filters.autoGenerated !== undefined) query.andWhere('t.auto_generated = :auto', { auto: filters.autoGenerated });
    if (filters.labId !== undefined) query.andWhere('t.lab_id = :labId', { labId: filters.labId });
    if (filters.method) query.andWhere('t.method = :method', { method: filters.method });
    if (filters.status) query.andWhere('t.status = :status', { status: filters.status });
    if (filters.name) query.andWhere('t.name ILIKE :name', { name: likeContains(filters.name) });
    if (filters.markerIds?.length) {
      // An id beyond integer range matches no marker, so the test cannot include all of them.
      const ids = [...new Set(filters.markerIds)];
      if (int32Ids(ids).length < ids.length) query.andWhere('false');
      query.andWhere(
        `t.id IN (SELECT ltm.lab_test_id FROM lab_test_markers ltm WHERE ltm.marker_id = ANY(:markerIds)
                    GROUP BY ltm.lab_test_id HAVING count(DISTINCT ltm.marker_id) = :markerCount)`,
        { markerIds: int32Ids(ids), markerCount: ids.length },
      );
    }
    if (filters.providerIds?.length) {
      const ids = [...new Set(filters.providerIds)];
      query.andWhere(
        `t.id IN (SELECT ltm.lab_test_id FROM lab_test_markers ltm JOIN lab_markers m ON m.id = ltm.marker_id
                    WHERE m.provider_id = ANY(:providerIds)
                    GROUP BY ltm.lab_test_id HAVING count(DISTINCT m.provider_id) = :providerCount)`,
        { providerIds: ids, providerCount: ids.length },
      );
    }
    const direction = filters.orderDirection === 'desc' ? 'DESC' : 'ASC';
    query.orderBy(ORDER_COLUMN[filters.orderKey], direction).addOrderBy('t.id', direction);
    if (page) query.offset(page.offset).limit(page.limit);
    return query.getMany();
  }

  /** Marker ids of each test, in the test's order. */
  async markerIdsOf(testIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, number[]>> {
    const byTest = new Map<string, number[]>(testIds.map((id) => [id, []]));
    if (testIds.length === 0) return byTest;
    const rows = await manager
      .getRepository(LabTestMarkerEntity)
      .find({ where: { labTestId: In(testIds) }, order: { labTestId: 'ASC', position: 'ASC' } });
    for (const row of rows) byTest.get(row.labTestId)?.push(row.markerId);
    return byTest;
  }

  /** Stores a new test with its markers, atomically. */
  async insert(test: LabTestEntity, markerIds: number[]): Promise<LabTestEntity> {
    return this.db.transaction(async (manager: EntityManager) => {
      const saved = await manager.getRepository(LabTestEntity).save(test);
      await manager
        .getRepository(LabTestMarkerEntity)
        .insert(markerIds.map((markerId, position) => ({ labTestId: saved.id, markerId, position })));
      return saved;
    });
  }

  save(test: LabTestEntity): Promise<LabTestEntity> {
    return this.db.getRepository(LabTestEntity).save(test);
  }
}

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
  'a.id', 'a.team_id', 'a.environment', 'a.lab_id', 'a.status', 'a.delegated_flow', 'a.provider_account_id', 'a.account_name',
  'a.default_clinical_notes', 'a.allowed_billing', 'a.team_id_allowlist', 'a.created_at',
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
 * statement, OrderReadModel.createContext): an array of accounts, each an array of
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
    const [id, teamId, environment, labId, status, delegatedFlow, providerAccountId, accountName, defaultClinicalNotes, allowedBilling, teamIdAllowlist, createdAt] =
      values as [string, string | null, LabAccountRow['environment'], number, LabAccountRow['status'], LabAccountRow['delegated_flow'], string, string, string | null, LabAccountRow['allowed_billing'], string[], string];
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
