import { Injectable } from '@nestjs/common';
import type { Resource } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { PhiReadAudit } from '../common/phi-access-log';
import type { FallbackBirthDate } from '../users/user.entity';
import type { UserInfo } from '../users/user-info.dto';
import {
  appointmentResource,
  appointmentStatusesOf,
  coverageResource,
  orderStatusesOf,
  patientResource,
  practitionerResource,
  serviceRequestResource,
  specimenResource,
  SYSTEMS,
} from './clinical-mapping';
import { nextOf, type PageEntry, pageAcross, searchsetBundle, type SearchPage, type SearchPart } from './fhir-bundle';
import { FhirLabReports, PARSED_PART } from './fhir-lab-reports';
import { FhirObservations } from './fhir-observations';
import { FhirOrders, ORDER_BATCH, reportFilter } from './fhir-orders';
import { FhirError } from './fhir-errors';
import { FhirReadModel, type OrderFilter, type OrderRow, type Position } from './fhir-read-model';
import { type Cursor, type FhirResourceType, MAX_COUNT, parseSearch, REVINCLUDED_PER_PATIENT, type SearchQuery, tokenMatches } from './fhir-search';
import { parseParsedObservationId, parseParsedReportId, parsedReportId } from './lab-report-mapping';
import { diagnosticReport, parseLabObservationId, reportCodings } from './lab-result-mapping';

type RawQuery = Record<string, string | string[] | undefined>;

/** Where the request came from: the FHIR base URL, and labflow's API origin (for the result PDF's url). */
export interface FhirBase {
  fhir: string;
  api: string;
}

/** The Practitioner search pages by NPI alone; its cursor's time part is fixed. */
const NO_TIME = '1970-01-01T00:00:00.000000';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (id: string) => (UUID.test(id) ? id : null);

/**
 * The FHIR API's reads and searches: each a FhirReadModel statement, the sealed parts decrypted,
 * translated by the mappings, and every PHI row shown audited (PhiReadAudit) before the answer
 * leaves, as the rest of the API does.
 */
@Injectable()
export class FhirService {
  constructor(
    private readonly reads: FhirReadModel,
    private readonly cipher: PhiCipher,
    private readonly audit: PhiReadAudit,
    private readonly orders: FhirOrders,
    private readonly observations: FhirObservations,
    private readonly labReports: FhirLabReports,
  ) {}

  /** `GET /fhir/R4/{type}/{id}`: 404 OperationOutcome when the team has none. */
  async read(team: TeamPrincipal, type: FhirResourceType, id: string, base: FhirBase): Promise<PageEntry> {
    const query: SearchQuery = { ids: [id], date: [], lastUpdated: [], count: 1, includeResults: false };
    let found: PageEntry | undefined;
    if (type === 'Observation') {
      found = (await this.observations.search(team, query)).matches[0];
    } else {
      found = (await this.page(team, type, query, base)).matches[0];
    }
    if (!found) throw FhirError.notFound(type, id);
    return found;
  }

  /** `GET /fhir/R4/{type}?...`: a searchset Bundle of one page (its JSON text). */
  async search(team: TeamPrincipal, type: FhirResourceType, raw: RawQuery, base: FhirBase): Promise<string> {
    const query = parseSearch(type, raw);
    const page = type === 'Observation' ? await this.observations.search(team, query) : await this.page(team, type, query, base);
    if (query.revInclude) page.included = [...(page.included ?? []), ...(await this.revIncluded(team, query, page, base))];
    return searchsetBundle(base.fhir, type, raw, page);
  }

  /**
   * `_revinclude`, where it is cheap: a Patient page's Observations (at most
   * REVINCLUDED_PER_PATIENT each, the first of an Observation search by patient; the page holds
   * at most REVINCLUDE_MAX_PATIENTS patients), or the lab reports (DiagnosticReport, the order)
   * whose `result` lists an Observation of the page, read in one statement.
   */
  private async revIncluded(team: TeamPrincipal, query: SearchQuery, page: SearchPage, base: FhirBase): Promise<PageEntry[]> {
    const plain = (more: Partial<SearchQuery>): SearchQuery => ({ date: [], lastUpdated: [], count: REVINCLUDED_PER_PATIENT, includeResults: false, ...more });
    if (query.revInclude === 'DiagnosticReport:result') {
      const reportIds = [
        ...new Set(
          page.matches.flatMap((resource) => {
            const jobId = parseParsedObservationId(resource.id ?? '')?.jobId;
            return jobId ? parsedReportId(jobId) : (parseLabObservationId(resource.id ?? '')?.orderId ?? []);
          }),
        ),
      ];
      if (reportIds.length === 0) return [];
      return (await this.page(team, 'DiagnosticReport', plain({ ids: reportIds, count: reportIds.length }), base)).matches;
    }
    const included: PageEntry[] = [];
    for (const patient of page.matches) included.push(...(await this.observations.search(team, plain({ patient: patient.id }))).matches);
    return included;
  }

  /**
   * `GET /fhir/R4/Patient/{id}/$everything`: the patient and every resource about them. The
   * clinical ones (orders, samples, reports, results, coverage, appointments, physicians) come on
   * the first page; wearable Observations, which may be millions, are paged with `_count` (and
   * follow alone on the next pages).
   */
  async everything(team: TeamPrincipal, patientId: string, raw: RawQuery, base: FhirBase): Promise<string> {
    const unserved = Object.keys(raw).find((name) => !['_count', '_cursor', '_format'].includes(name));
    if (unserved) throw FhirError.notSupported(`Parameter "${unserved}" is not served for $everything; served: _count, _cursor.`, unserved);
    const parsed = parseSearch('Observation', raw);
    const patient = await this.read(team, 'Patient', patientId, base);
    const wearablePage = await this.observations.search(team, { ...parsed, patient: patientId }, ['wearable', 'sleep']);
    const matches: PageEntry[] = [];
    if (!parsed.cursor) {
      matches.push(patient);
      const about = (query: Partial<SearchQuery> = {}): SearchQuery => ({
        patient: patientId,
        date: [],
        lastUpdated: [],
        count: MAX_COUNT,
        includeResults: false,
        ...query,
      });
      const requesters = new Set<string>();
      for (const type of ['ServiceRequest', 'Specimen', 'DiagnosticReport', 'Coverage', 'Appointment'] as const) {
        for await (const resource of this.drain((cursor) => this.page(team, type, about({ cursor }), base))) {
          matches.push(resource);
          if (resource.resourceType === 'ServiceRequest' && resource.requester?.reference) requesters.add(resource.requester.reference);
        }
      }
      for await (const resource of this.drain((cursor) => this.observations.labObservations(team, about({ cursor })))) matches.push(resource);
      for await (const resource of this.drain((cursor) => this.labReports.observations(team, about({ cursor })))) matches.push(resource);
      const npis = [...requesters].map((reference) => reference.split('/')[1]);
      if (npis.length) matches.push(...(await this.page(team, 'Practitioner', about({ patient: undefined, ids: npis }), base)).matches);
    }
    matches.push(...wearablePage.matches);
    return searchsetBundle(base.fhir, `Patient/${patientId}/$everything`, raw, { matches, next: wearablePage.next });
  }

  /**
   * One page of `type` for the bulk export (src/fhir/export/): the search's page, read and
   * audited as a search's, wearable Observations in storage order.
   */
  async exportPage(team: TeamPrincipal, type: FhirResourceType, query: SearchQuery, base: FhirBase): Promise<SearchPage> {
    return type === 'Observation' ? this.observations.search(team, query, undefined, 'storage') : this.page(team, type, query, base);
  }

  private async *drain(search: (cursor: Cursor | undefined) => Promise<SearchPage>): AsyncGenerator<PageEntry> {
    let cursor: Cursor | undefined;
    do {
      const page = await search(cursor);
      yield* page.matches;
      cursor = page.next ?? undefined;
    } while (cursor);
  }

  /** A page of orders' results as DiagnosticReports (the first part of the DiagnosticReport search; parsed lab reports follow). */
  private async orderReports(team: TeamPrincipal, query: SearchQuery, base: FhirBase): Promise<SearchPage> {
    const limit = query.count;
    const after: Position | undefined = query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined;
    // A code filter is judged after the read (on the lab test's coding): read more to fill the page.
    const readLimit = query.code ? Math.max(limit, ORDER_BATCH) : limit;
    const rows = await this.orders.read(team, { ...reportFilter(query), after, limit: readLimit });
    const batch = rows.slice(0, readLimit);
    const matching = batch.filter((row) => tokenMatches(query.code, reportCodings(row)));
    const shown = matching.slice(0, limit);
    await this.orders.audit(team, shown);
    const included: Resource[] = [];
    const matches = shown.map((row) => {
      const observations = this.orders.observationsOf(row);
      if (query.includeResults) included.push(...observations);
      return diagnosticReport(row, observations.length, `${base.api}/v3/order/${row.id}/result/pdf`);
    });
    const last = matching.length > limit ? shown[limit - 1] : rows.length > readLimit ? batch[readLimit - 1] : undefined;
    return { matches, included, next: last ? { part: 'main', at: last.keyset_at, id: last.id, n: 0 } : null };
  }

  /** One page of a search on every type but Observation. */
  private async page(team: TeamPrincipal, type: Exclude<FhirResourceType, 'Observation'>, query: SearchQuery, base: FhirBase): Promise<SearchPage> {
    const limit = query.count;
    const after: Position | undefined = query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined;
    const by = { teamId: team.teamId, apiKeyId: team.apiKeyId };
    switch (type) {
      case 'Patient': {
        const identifiers = query.identifier?.filter((token) => token.system === undefined || token.system === SYSTEMS.clientUserId).map((token) => token.code);
        const rows = await this.reads.patients(team, { ids: query.ids, clientUserIds: identifiers, lastUpdated: query.lastUpdated, after, limit });
        const shown = rows.slice(0, limit);
        await Promise.all(shown.filter((row) => row.info_enc).map((row) => this.audit.record(by, 'user_info', row.id)));
        return {
          matches: shown.map((row) =>
            patientResource(
              row,
              row.info_enc ? this.cipher.decryptJson<UserInfo>(row.info_enc) : null,
              row.fallback_birth_date_enc ? this.cipher.decryptJson<FallbackBirthDate>(row.fallback_birth_date_enc).value : null,
            ),
          ),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: row.keyset_at, id: row.id, n: 0 })),
        };
      }
      case 'Practitioner': {
        const npis = [
          ...(query.ids ?? []),
          ...(query.identifier ?? []).filter((token) => !token.system || token.system === SYSTEMS.npi).map((token) => token.code),
        ];
        const rows = await this.reads.practitioners(team, { npis: query.ids || query.identifier ? npis : undefined, afterNpi: query.cursor?.id, limit });
        return {
          matches: rows.slice(0, limit).map((row) => practitionerResource(row.physician, row.last_updated)),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: NO_TIME, id: row.npi, n: 0 })),
        };
      }
      case 'Coverage': {
        const rows = await this.reads.coverages(team, { ids: query.ids, patient: query.patient, lastUpdated: query.lastUpdated, after, limit });
        const shown = rows.slice(0, limit);
        await Promise.all(shown.map((row) => this.audit.record(by, 'insurance', row.id)));
        return {
          matches: shown.map((row) => coverageResource(row, this.cipher.decryptJson<string>(row.member_id_enc))),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: row.keyset_at, id: row.id, n: 0 })),
        };
      }
      case 'Appointment': {
        const statuses = query.status ? appointmentStatusesOf(query.status) : undefined;
        const rows = await this.reads.appointments(team, {
          ids: query.ids,
          patient: query.patient,
          statuses,
          date: query.date,
          lastUpdated: query.lastUpdated,
          after,
          limit,
        });
        return {
          matches: rows.slice(0, limit).map(appointmentResource),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: row.keyset_at, id: row.id, n: 0 })),
        };
      }
      case 'ServiceRequest':
      case 'Specimen': {
        const filter: OrderFilter = { ids: query.ids, patient: query.patient, lastUpdated: query.lastUpdated, date: query.date, after, limit, sort: 'created' };
        if (type === 'ServiceRequest') {
          if (query.status) filter.statuses = orderStatusesOf(query.status);
          if (query.code) filter.labTestIds = query.code.filter((token) => !token.system || token.system === SYSTEMS.labTest).map((token) => token.code);
        } else {
          filter.withSample = true;
          if (query.identifier)
            filter.sampleIds = query.identifier.filter((token) => !token.system || token.system === SYSTEMS.sampleId).map((token) => token.code);
        }
        const rows = await this.orders.read(team, filter);
        const shown = rows.slice(0, limit);
        await this.orders.audit(team, shown);
        return {
          matches: shown.map((row) => (type === 'ServiceRequest' ? serviceRequestResource(row) : specimenResource(row as OrderRow & { sample_id: string }))),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: row.keyset_at, id: row.id, n: 0 })),
        };
      }
      case 'DiagnosticReport': {
        if (query.category && !tokenMatches(query.category, [{ system: SYSTEMS.v2_0074, code: 'LAB' }])) return { matches: [], next: null };
        const ids = (parse: (id: string) => unknown) => query.ids?.filter((id) => parse(id) !== null);
        const parts: SearchPart[] = [
          ...(!query.ids || ids(isUuid)!.length
            ? [{ name: 'main', run: (count: number, cursor: Cursor | undefined) => this.orderReports(team, { ...query, count, cursor }, base) }]
            : []),
          ...(!query.ids || ids(parseParsedReportId)!.length
            ? [{ name: PARSED_PART, run: (count: number, cursor: Cursor | undefined) => this.labReports.reports(team, { ...query, count, cursor }) }]
            : []),
        ];
        return pageAcross(parts, query.count, query.cursor);
      }
    }
  }
}
