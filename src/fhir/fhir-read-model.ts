/**
 * The FHIR API's reads: read-only statements over users, user_infos, insurances, payors, orders,
 * order_results, lab_tests, labs, appointments and the health-data samples, on purpose in one
 * place. FHIR resources cut across labflow's modules (a DiagnosticReport is an order, its
 * results, its lab test and its lab; an Observation search spans lab results and wearable
 * samples), and each search is one statement so that a page is one round trip and one snapshot,
 * filtered and keyset-paged in SQL. Every statement is scoped to the team and environment, and
 * reads only live users' rows (a user in its deletion grace period is invisible, as to the rest
 * of the API). It writes nothing.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import type { Physician } from '../orders/order.entities';
import type { MissingBiomarkerResult } from '../results';
import type { DateBound } from './fhir-search';
import { liveUsers, Where } from './fhir-where';

export type Scope = Pick<TeamPrincipal, 'teamId' | 'environment'>;

/** A keyset position: the sort key as UTC text at microsecond precision, and the id. */
export interface Position {
  at: string;
  id: string;
}

/** Every row carries its keyset position. */
interface Keyed {
  keyset_at: string;
}

export interface PatientRow extends Keyed {
  id: string;
  client_user_id: string;
  created_on: Date;
  info_enc: string | null;
  fallback_birth_date_enc: string | null;
  last_updated: Date;
}

export interface PractitionerRow {
  npi: string;
  physician: Physician;
  last_updated: Date;
}

export interface CoverageRow extends Keyed {
  id: string;
  user_id: string;
  payor_code: string;
  payor_name: string | null;
  relationship: string;
  is_primary: boolean;
  group_id: string | null;
  member_id_enc: string;
  created_at: Date;
}

export interface OrderRow extends Keyed {
  id: string;
  user_id: string;
  lab_test_id: string;
  lab_test_name: string | null;
  sample_type: string | null;
  lab_name: string | null;
  collection_method: string;
  status: string;
  low_level_status: string;
  sample_id: string | null;
  physician: Physician | null;
  priority: boolean;
  /** Sealed (PhiCipher), opened by FhirService with icdCodesOf / clinicalNotesOf; the plaintext columns only hold what an older release wrote. */
  icd_codes_enc: string | null;
  icd_codes: string[] | null;
  clinical_notes_enc: string | null;
  clinical_notes: string | null;
  created_at: Date;
  updated_at: Date;
  /** order_results, when the lab reported. */
  result_status: 'final' | 'partial' | null;
  result_interpretation: string | null;
  results_enc: string | null;
  /** The results the lab could not give (not sealed: names and failure types only). */
  missing_results: MissingBiomarkerResult[] | null;
  date_collected: Date | null;
  date_received: Date | null;
  date_reported: Date | null;
  last_updated: Date;
}

export interface AppointmentRow extends Keyed {
  id: string;
  order_id: string;
  user_id: string;
  type: string;
  provider: string;
  status: string;
  start_at: Date | null;
  end_at: Date | null;
  iana_timezone: string | null;
  location: { formatted?: string } | null;
  created_at: Date;
  updated_at: Date;
}

export interface SampleRow extends Keyed {
  series_id: string;
  user_id: string;
  resource: string;
  provider: string;
  source_type: string;
  /** ts in epoch microseconds (the sample's id part). */
  ts_us: string;
  ts: Date;
  end_ts: Date | null;
  value: number | null;
  diastolic: number | null;
  sample_type: string | null;
  timezone_offset: number | null;
  updated_at: Date;
}

export interface SleepRow extends Keyed {
  id: string;
  user_id: string;
  provider: string;
  source_type: string;
  data: { bedtime_start: string; bedtime_stop: string; total?: number | null; type?: string };
  updated_at: Date;
}

/** Filters every search shares. */
interface BaseFilter {
  ids?: string[];
  patient?: string;
  lastUpdated: DateBound[];
  after?: Position;
  limit: number;
}

/** The sort key of an order search: when it was placed (ServiceRequest, Specimen) or reported (DiagnosticReport, lab Observation). */
export type OrderSort = 'created' | 'reported';

export interface OrderFilter extends BaseFilter {
  sort: OrderSort;
  /** Top-level order statuses. */
  statuses?: string[];
  labTestIds?: string[];
  sampleIds?: string[];
  withResults?: boolean;
  withSample?: boolean;
  resultStatuses?: Array<'final' | 'partial'>;
  /** Bounds on the sort's date: created_at, or the effective time (collected, else reported). */
  date: DateBound[];
}

export const AT = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** What a wearable sample read selects (a SampleRow), from health_series `s` joined to health_samples `t`. */
export const SAMPLE_COLUMNS = `t.series_id::text AS series_id, s.user_id, s.resource, s.provider, s.source_type,
              ((extract(epoch FROM t.ts) * 1000000)::bigint)::text AS ts_us, t.ts, t.end_ts, t.value, t.diastolic, t.sample_type, t.timezone_offset,
              t.updated_at, ${AT('t.ts')} AS keyset_at`;

const MICROS = (column: string) => `((extract(epoch FROM ${column}) * 1000000)::bigint)::text`;

/** What every sample of a series repeats. */
export interface SeriesRow {
  id: string;
  user_id: string;
  resource: string;
  provider: string;
  source_type: string;
}

/**
 * A wearable sample as the search reads it: its series (`id` the series id) and its fields as
 * text, as the export's COPY prints them (export/wearable-ndjson.ts turns both into the JSON).
 */
export interface SampleTextRow extends SeriesRow {
  /** ts, end_ts and updated_at in epoch microseconds; value and diastolic as Postgres prints float8. */
  ts_us: string;
  end_us: string | null;
  value: string | null;
  diastolic: string | null;
  updated_us: string;
}

/** What a wearable sample search selects (a SampleTextRow), from health_series `s` joined to health_samples `t`. */
const SAMPLE_TEXT_COLUMNS = `t.series_id::text AS id, s.user_id, s.resource, s.provider, s.source_type, ${MICROS('t.ts')} AS ts_us,
              ${MICROS('t.end_ts')} AS end_us, t.value::text AS value, t.diastolic::text AS diastolic, ${MICROS('t.updated_at')} AS updated_us`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids that cannot be labflow's uuids match nothing (rather than failing the cast). */
const uuids = (ids: string[]) => ids.filter((id) => UUID.test(id));

@Injectable()
export class FhirReadModel {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Patients: the team's live users and their demographics (user_infos, sealed), by creation. */
  async patients(scope: Scope, filter: BaseFilter & { clientUserIds?: string[] }): Promise<PatientRow[]> {
    const where = new Where();
    where.add(`p.team_id = ${where.param(scope.teamId)}::uuid AND p.environment = ${where.param(scope.environment)} AND p.deletion_requested_at IS NULL`);
    if (filter.ids) where.add(`p.id = ANY(${where.param(uuids(filter.ids))}::uuid[])`);
    if (filter.patient) where.add(`p.id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    if (filter.clientUserIds) where.add(`p.client_user_id = ANY(${where.param(filter.clientUserIds)}::text[])`);
    where.bounds('greatest(p.created_on, i.updated_at)', filter.lastUpdated).after('p.created_on', 'p.id', 'uuid', filter.after);
    return this.db.query(
      `SELECT p.id, p.client_user_id, p.created_on, p.fallback_birth_date_enc, i.info_enc,
              greatest(p.created_on, i.updated_at) AS last_updated, ${AT('p.created_on')} AS keyset_at
         FROM users p
         LEFT JOIN user_infos i ON i.user_id = p.id
        WHERE ${where.sql()}
        ORDER BY p.created_on, p.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /**
   * The physicians of the team's orders, one per NPI (as the latest order names them), by NPI.
   * `afterNpi` pages.
   */
  async practitioners(scope: Scope, filter: { npis?: string[]; afterNpi?: string; limit: number }): Promise<PractitionerRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'o.user_id');
    where.add(`o.team_id = ${where.param(scope.teamId)}::uuid AND o.environment = ${where.param(scope.environment)} AND o.physician ? 'npi'`);
    if (filter.npis) where.add(`o.physician->>'npi' = ANY(${where.param(filter.npis)}::text[])`);
    if (filter.afterNpi) where.add(`o.physician->>'npi' > ${where.param(filter.afterNpi)}`);
    return this.db.query(
      `SELECT DISTINCT ON (o.physician->>'npi') o.physician->>'npi' AS npi, o.physician, o.updated_at AS last_updated
         FROM orders o ${join}
        WHERE ${where.sql()}
        ORDER BY o.physician->>'npi', o.updated_at DESC LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /** Coverages: the team's insurances with their payor's name, by creation. */
  async coverages(scope: Scope, filter: BaseFilter): Promise<CoverageRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'c.user_id');
    where.add(`c.team_id = ${where.param(scope.teamId)}::uuid`);
    if (filter.ids) where.add(`c.id = ANY(${where.param(uuids(filter.ids))}::uuid[])`);
    if (filter.patient) where.add(`c.user_id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    where.bounds('c.created_at', filter.lastUpdated).after('c.created_at', 'c.id', 'uuid', filter.after);
    return this.db.query(
      `SELECT c.id, c.user_id, c.payor_code, py.name AS payor_name, c.relationship, c.is_primary, c.group_id, c.member_id_enc, c.created_at,
              ${AT('c.created_at')} AS keyset_at
         FROM insurances c ${join}
         LEFT JOIN payors py ON py.code = c.payor_code
        WHERE ${where.sql()}
        ORDER BY c.created_at, c.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /**
   * Orders with their lab test, lab and results (ServiceRequest, Specimen, DiagnosticReport and
   * lab Observations), by creation or by report. `inclusive`: the page starts at `after` itself
   * (an order some of whose results the previous page showed).
   */
  async orders(scope: Scope, filter: OrderFilter, inclusive = false): Promise<OrderRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'o.user_id');
    where.add(`o.team_id = ${where.param(scope.teamId)}::uuid AND o.environment = ${where.param(scope.environment)}`);
    if (filter.ids) where.add(`o.id = ANY(${where.param(uuids(filter.ids))}::uuid[])`);
    if (filter.patient) where.add(`o.user_id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    if (filter.statuses) where.add(`o.status = ANY(${where.param(filter.statuses)}::text[])`);
    if (filter.labTestIds) where.add(`o.lab_test_id = ANY(${where.param(uuids(filter.labTestIds))}::uuid[])`);
    if (filter.sampleIds) where.add(`o.sample_id = ANY(${where.param(filter.sampleIds)}::text[])`);
    if (filter.withResults) where.add('r.order_id IS NOT NULL');
    if (filter.withSample) where.add('o.sample_id IS NOT NULL');
    if (filter.resultStatuses) where.add(`r.status = ANY(${where.param(filter.resultStatuses)}::text[])`);
    const sortColumn = filter.sort === 'created' ? 'o.created_at' : 'r.date_reported';
    where.bounds(filter.sort === 'created' ? 'o.created_at' : 'coalesce(r.date_collected, r.date_reported)', filter.date);
    const lastUpdated = filter.sort === 'created' ? 'o.updated_at' : 'greatest(o.updated_at, r.date_reported)';
    where.bounds(lastUpdated, filter.lastUpdated).after(sortColumn, 'o.id', 'uuid', filter.after, inclusive);
    return this.db.query(
      `SELECT o.id, o.user_id, o.lab_test_id, lt.name AS lab_test_name, lt.sample_type, l.name AS lab_name, o.collection_method,
              o.status, o.low_level_status, o.sample_id, o.physician, o.priority, o.icd_codes_enc, o.icd_codes, o.clinical_notes_enc, o.clinical_notes, o.created_at, o.updated_at,
              r.status AS result_status, r.interpretation AS result_interpretation, r.results_enc, r.missing_results, r.date_collected, r.date_received, r.date_reported,
              ${lastUpdated} AS last_updated, ${AT(sortColumn)} AS keyset_at
         FROM orders o ${join}
         ${filter.sort === 'reported' ? 'JOIN' : 'LEFT JOIN'} order_results r ON r.order_id = o.id
         LEFT JOIN lab_tests lt ON lt.id = o.lab_test_id
         LEFT JOIN labs l ON l.id = o.lab_id
        WHERE ${where.sql()}
        ORDER BY ${sortColumn}, o.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /** Appointments of the team's orders, by creation. */
  async appointments(scope: Scope, filter: BaseFilter & { statuses?: string[]; date: DateBound[] }): Promise<AppointmentRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'a.user_id');
    where.add(`a.team_id = ${where.param(scope.teamId)}::uuid AND a.environment = ${where.param(scope.environment)}`);
    if (filter.ids) where.add(`a.id = ANY(${where.param(uuids(filter.ids))}::uuid[])`);
    if (filter.patient) where.add(`a.user_id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    if (filter.statuses) where.add(`a.status = ANY(${where.param(filter.statuses)}::text[])`);
    where.bounds('a.start_at', filter.date).bounds('a.updated_at', filter.lastUpdated).after('a.created_at', 'a.id', 'uuid', filter.after);
    return this.db.query(
      `SELECT a.id, a.order_id, a.user_id, a.type, a.provider, a.status, a.start_at, a.end_at, a.iana_timezone, a.location, a.created_at, a.updated_at,
              ${AT('a.created_at')} AS keyset_at
         FROM appointments a ${join}
        WHERE ${where.sql()}
        ORDER BY a.created_at, a.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /**
   * Wearable samples of the given resources, by time then series (the samples' key is
   * (series_id, ts), so the position is exact). A search by patient reads only that user's
   * series: an index range per series. Rows as text, which the search writes into its series'
   * templates without a Date or a row object of its own.
   */
  async samples(
    scope: Scope,
    filter: Omit<BaseFilter, 'ids'> & { resources: string[]; date: DateBound[]; sample?: { seriesId: string; tsMicros: string } },
  ): Promise<SampleTextRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 's.user_id');
    where.add(`s.resource = ANY(${where.param(filter.resources)}::text[])`);
    if (filter.patient) where.add(`s.user_id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    if (filter.sample) {
      where.add(`t.series_id = ${where.param(filter.sample.seriesId)}::bigint`);
      where.add(`t.ts = timestamptz 'epoch' + ${where.param(filter.sample.tsMicros)}::bigint * interval '1 microsecond'`);
    }
    where.bounds('t.ts', filter.date).bounds('t.updated_at', filter.lastUpdated).after('t.ts', 't.series_id', 'bigint', filter.after);
    return this.db.query(
      `SELECT ${SAMPLE_TEXT_COLUMNS}
         FROM health_series s ${join}
         JOIN health_samples t ON t.series_id = s.id
        WHERE ${where.sql()}
        ORDER BY t.ts, t.series_id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }

  /** Whether the user has any lab results the Observation search reads: an order's, or a completed parsed lab report's. */
  async hasLabResults(scope: Scope, userId: string): Promise<boolean> {
    if (!UUID.test(userId)) return false;
    const [row] = await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM orders o JOIN order_results r ON r.order_id = o.id WHERE o.user_id = $1 AND o.team_id = $2 AND o.environment = $3)
           OR EXISTS (SELECT 1 FROM lab_report_parsing_jobs j
                       WHERE j.user_id = $1 AND j.team_id = $2 AND j.environment = $3 AND j.status = 'completed' AND j.data_enc IS NOT NULL) AS found`,
      [userId, scope.teamId, scope.environment],
    );
    return row.found === true;
  }

  /** Sleep summaries (health_summaries of type sleep), by bedtime start then id. */
  async sleeps(scope: Scope, filter: BaseFilter & { date: DateBound[] }): Promise<SleepRow[]> {
    const where = new Where();
    const join = liveUsers(where, scope, 'z.user_id');
    const start = `(z.data->>'bedtime_start')::timestamptz`;
    where.add(`z.type = 'sleep'`);
    if (filter.ids) where.add(`z.id = ANY(${where.param(uuids(filter.ids))}::uuid[])`);
    if (filter.patient) where.add(`z.user_id = ${where.param(uuids([filter.patient])[0] ?? null)}::uuid`);
    where.bounds(start, filter.date).bounds('z.updated_at', filter.lastUpdated).after(start, 'z.id', 'uuid', filter.after);
    return this.db.query(
      `SELECT z.id, z.user_id, z.provider, z.source_type, z.data, z.updated_at, ${AT(start)} AS keyset_at
         FROM health_summaries z ${join}
        WHERE ${where.sql()}
        ORDER BY ${start}, z.id LIMIT ${where.param(filter.limit + 1)}`,
      where.values,
    );
  }
}
