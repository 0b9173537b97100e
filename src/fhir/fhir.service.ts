import { Injectable } from '@nestjs/common';
import type { Bundle, Observation, Resource } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { PhiReadAudit } from '../common/phi-access-log';
import type { BiomarkerResult } from '../results';
import { clinicalNotesOf, icdCodesOf } from '../orders/order.entities';
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
import { searchsetBundle, type SearchPage } from './fhir-bundle';
import { FhirError } from './fhir-errors';
import { FhirReadModel, type OrderFilter, type OrderRow, type Position } from './fhir-read-model';
import { type Cursor, type FhirResourceType, MAX_COUNT, parseSearch, type SearchQuery, tokenMatches } from './fhir-search';
import { diagnosticReport, labObservation, missingResultObservation, parseLabObservationId, reportCodings } from './lab-result-mapping';
import {
  parseSampleObservationId,
  parseSleepObservationId,
  sleepMatches,
  sleepObservation,
  wearableObservation,
  wearableResourcesFor,
} from './wearable-mapping';

type RawQuery = Record<string, string | string[] | undefined>;

/** Where the request came from: the FHIR base URL, and labflow's API origin (for the result PDF's url). */
export interface FhirBase {
  fhir: string;
  api: string;
}

/** Lab results of one order shown, and the position they came from. */
interface Positioned<T> {
  item: T;
  position: Cursor;
}

/** Orders read per round trip while a lab Observation search fills a page (each order holds many results). */
const ORDER_BATCH = 50;

/** The Practitioner search pages by NPI alone; its cursor's time part is fixed. */
const NO_TIME = '1970-01-01T00:00:00.000000';

/** The time part of a cursor that starts a part of the Observation search (n = -1). */
const PART_START = '1970-01-01T00:00:00.000000';

type ObservationPart = 'lab' | 'wearable' | 'sleep';

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
  ) {}

  /** `GET /fhir/R4/{type}/{id}`: 404 OperationOutcome when the team has none. */
  async read(team: TeamPrincipal, type: FhirResourceType, id: string, base: FhirBase): Promise<Resource> {
    const query: SearchQuery = { ids: [id], date: [], lastUpdated: [], count: 1, includeResults: false };
    let found: Resource | undefined;
    if (type === 'Observation') {
      found = (await this.observations(team, query)).matches[0];
    } else {
      found = (await this.page(team, type, query, base)).matches[0];
    }
    if (!found) throw FhirError.notFound(type, id);
    return found;
  }

  /** `GET /fhir/R4/{type}?...`: a searchset Bundle of one page. */
  async search(team: TeamPrincipal, type: FhirResourceType, raw: RawQuery, base: FhirBase): Promise<Bundle> {
    const query = parseSearch(type, raw);
    const page = type === 'Observation' ? await this.observations(team, query) : await this.page(team, type, query, base);
    return searchsetBundle(base.fhir, type, raw, page);
  }

  /**
   * `GET /fhir/R4/Patient/{id}/$everything`: the patient and every resource about them. The
   * clinical ones (orders, samples, reports, results, coverage, appointments, physicians) come on
   * the first page; wearable Observations, which may be millions, are paged with `_count` (and
   * follow alone on the next pages).
   */
  async everything(team: TeamPrincipal, patientId: string, raw: RawQuery, base: FhirBase): Promise<Bundle> {
    const unserved = Object.keys(raw).find((name) => !['_count', '_cursor', '_format'].includes(name));
    if (unserved) throw FhirError.notSupported(`Parameter "${unserved}" is not served for $everything; served: _count, _cursor.`, unserved);
    const parsed = parseSearch('Observation', raw);
    const patient = await this.read(team, 'Patient', patientId, base);
    const wearablePage = await this.observations(team, { ...parsed, patient: patientId }, ['wearable', 'sleep']);
    const matches: Resource[] = [];
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
      for await (const resource of this.drain((cursor) => this.labObservations(team, about({ cursor })))) matches.push(resource);
      const npis = [...requesters].map((reference) => reference.split('/')[1]);
      if (npis.length) matches.push(...(await this.page(team, 'Practitioner', about({ patient: undefined, ids: npis }), base)).matches);
    }
    matches.push(...wearablePage.matches);
    return searchsetBundle(base.fhir, `Patient/${patientId}/$everything`, raw, { matches, next: wearablePage.next });
  }

  private async *drain(search: (cursor: Cursor | undefined) => Promise<SearchPage>): AsyncGenerator<Resource> {
    let cursor: Cursor | undefined;
    do {
      const page = await search(cursor);
      yield* page.matches;
      cursor = page.next ?? undefined;
    } while (cursor);
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
        const rows = await this.ordersOpened(team, filter);
        const shown = rows.slice(0, limit);
        await this.auditOrders(team, shown);
        return {
          matches: shown.map((row) => (type === 'ServiceRequest' ? serviceRequestResource(row) : specimenResource(row as OrderRow & { sample_id: string }))),
          next: nextOf(rows, limit, (row) => ({ part: 'main', at: row.keyset_at, id: row.id, n: 0 })),
        };
      }
      case 'DiagnosticReport': {
        if (query.category && !tokenMatches(query.category, [{ system: SYSTEMS.v2_0074, code: 'LAB' }])) return { matches: [], next: null };
        // A code filter is judged after the read (on the lab test's coding): read more to fill the page.
        const readLimit = query.code ? Math.max(limit, ORDER_BATCH) : limit;
        const rows = await this.ordersOpened(team, { ...this.reportFilter(query), after, limit: readLimit });
        const batch = rows.slice(0, readLimit);
        const matching = batch.filter((row) => tokenMatches(query.code, reportCodings(row)));
        const shown = matching.slice(0, limit);
        await this.auditOrders(team, shown);
        const included: Resource[] = [];
        const matches = shown.map((row) => {
          const observations = this.labObservationsOf(row);
          if (query.includeResults) included.push(...observations);
          return diagnosticReport(row, observations.length, `${base.api}/v3/order/${row.id}/result/pdf`);
        });
        const last = matching.length > limit ? shown[limit - 1] : rows.length > readLimit ? batch[readLimit - 1] : undefined;
        return { matches, included, next: last ? { part: 'main', at: last.keyset_at, id: last.id, n: 0 } : null };
      }
    }
  }

  private reportFilter(query: SearchQuery): Omit<OrderFilter, 'limit'> {
    const resultStatuses = query.status?.filter((status): status is 'final' | 'partial' => status === 'final' || status === 'partial');
    return { ids: query.ids, patient: query.patient, lastUpdated: query.lastUpdated, date: query.date, sort: 'reported', withResults: true, resultStatuses };
  }

  /** Observations: an order's lab results first, then wearable samples; the cursor says which part a page continues. */
  /**
   * Observations come from three places, searched one after the other: an order's lab results,
   * then wearable samples, then sleep summaries. A page may span parts; its cursor names the part
   * it continues (a cursor with n = -1 starts a part from its beginning). `only`: the parts to
   * search ($everything reads the lab part itself).
   */
  private async observations(team: TeamPrincipal, query: SearchQuery, only?: ObservationPart[]): Promise<SearchPage> {
    const categories = query.category?.filter((token) => !token.system || token.system === SYSTEMS.observationCategory).map((token) => token.code);
    const wearables = wearableResourcesFor(categories, query.code);
    const byId = (parse: (id: string) => unknown) => query.ids?.filter((id) => parse(id) !== null);
    const finalOnly = !query.status || query.status.includes('final');
    const parts: Array<{ name: ObservationPart; applies: boolean; run: (count: number, cursor: Cursor | undefined) => Promise<SearchPage> }> = [
      {
        name: 'lab',
        applies: (!categories || categories.includes('laboratory')) && (!query.ids || byId(parseLabObservationId)!.length > 0),
        run: (count, cursor) => this.labObservations(team, { ...query, ids: byId(parseLabObservationId), count, cursor }),
      },
      {
        name: 'wearable',
        applies: wearables.length > 0 && finalOnly && (!query.ids || byId(parseSampleObservationId)!.length > 0),
        run: (count, cursor) => this.wearableObservations(team, { ...query, count, cursor }, wearables),
      },
      {
        name: 'sleep',
        applies: finalOnly && sleepMatches(categories, query.code) && (!query.ids || byId(parseSleepObservationId)!.length > 0),
        run: (count, cursor) => this.sleepObservations(team, { ...query, count, cursor }),
      },
    ];
    const applying = parts.filter((part) => part.applies && (!only || only.includes(part.name)));
    const first = query.cursor ? applying.findIndex((part) => part.name === query.cursor!.part) : 0;
    if (first < 0) throw FhirError.invalid('_cursor: pass it exactly as a next link gave it, with the same search parameters.', '_cursor');
    const matches: Resource[] = [];
    for (let index = first; index < applying.length; index++) {
      const remaining = query.count - matches.length;
      if (remaining === 0) return { matches, next: { part: applying[index].name, at: PART_START, id: '0', n: -1 } };
      const cursor = index === first && query.cursor && query.cursor.n >= 0 ? query.cursor : undefined;
      const page = await applying[index].run(remaining, cursor);
      matches.push(...page.matches);
      if (page.next) return { matches, next: page.next };
    }
    return { matches, next: null };
  }

  private async wearableObservations(team: TeamPrincipal, query: SearchQuery, resources: string[]): Promise<SearchPage> {
    const samples = query.ids?.map(parseSampleObservationId).filter((id) => id !== null);
    if (samples) {
      // A read (or an _id search) of samples: each by its key.
      const found = await Promise.all(
        samples.map(async (sample) => {
          const [row] = await this.reads.samples(team, {
            patient: query.patient,
            resources,
            date: query.date,
            lastUpdated: query.lastUpdated,
            limit: 1,
            sample,
          });
          return row ? wearableObservation(row) : null;
        }),
      );
      return { matches: found.filter((observation) => observation !== null).slice(0, query.count), next: null };
    }
    const limit = query.count;
    const rows = await this.reads.samples(team, {
      patient: query.patient,
      resources,
      date: query.date,
      lastUpdated: query.lastUpdated,
      after: query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined,
      limit,
    });
    return {
      matches: rows.slice(0, limit).flatMap((row) => wearableObservation(row) ?? []),
      next: nextOf(rows, limit, (row) => ({ part: 'wearable', at: row.keyset_at, id: row.series_id, n: 0 })),
    };
  }

  private async sleepObservations(team: TeamPrincipal, query: SearchQuery): Promise<SearchPage> {
    const limit = query.count;
    const ids = query.ids?.map((id) => parseSleepObservationId(id)).filter((id) => id !== null);
    const rows = await this.reads.sleeps(team, {
      ids,
      patient: query.patient,
      date: query.date,
      lastUpdated: query.lastUpdated,
      after: query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined,
      limit,
    });
    return {
      matches: rows.slice(0, limit).flatMap((row) => sleepObservation(row) ?? []),
      next: nextOf(rows, limit, (row) => ({ part: 'sleep', at: row.keyset_at, id: row.id, n: 0 })),
    };
  }

  /**
   * A page of lab result Observations: orders with results read in batches by report time, each
   * order's results decrypted and filtered by code (results are sealed, so a code is judged
   * after decryption), until the page is full. The cursor names the order and the result's
   * index in it, so a page may end inside an order.
   */
  private async labObservations(team: TeamPrincipal, query: SearchQuery): Promise<SearchPage> {
    const limit = query.count;
    const orderIds = query.ids?.map((id) => parseLabObservationId(id)!.orderId);
    const wanted = query.ids ? new Set(query.ids) : null;
    // The report's status narrows the orders read: final results are in final reports, preliminary in
    // partial ones; a missing result (cancelled) may be in either. The exact status is judged per Observation.
    const reports = query.status?.flatMap((value) => (value === 'final' ? ['final' as const] : value === 'preliminary' ? ['partial' as const] : []));
    const resultStatuses = query.status?.includes('cancelled') ? undefined : reports;
    if (resultStatuses?.length === 0) return { matches: [], next: null };
    const filter = { ...this.reportFilter({ ...query, status: undefined }), ids: orderIds, resultStatuses };
    const found: Array<Positioned<Observation>> = [];
    let after: Position | undefined = query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined;
    let inclusive = after !== undefined;
    for (;;) {
      const rows = await this.ordersOpened(team, { ...filter, after, limit: ORDER_BATCH }, inclusive);
      const batch = rows.slice(0, ORDER_BATCH);
      await this.auditOrders(team, batch);
      for (const row of batch) {
        this.labObservationsOf(row).forEach((observation, n) => {
          if (inclusive && row.id === query.cursor!.id && n <= query.cursor!.n) return;
          if (!tokenMatches(query.code, observation.code.coding ?? [])) return;
          if (query.status && !query.status.includes(observation.status)) return;
          if (wanted && !wanted.has(observation.id!)) return;
          found.push({ item: observation, position: { part: 'lab', at: row.keyset_at, id: row.id, n } });
        });
        if (found.length > limit) break;
      }
      if (found.length > limit || rows.length <= ORDER_BATCH) break;
      const last = batch[batch.length - 1];
      after = { at: last.keyset_at, id: last.id };
      inclusive = false;
    }
    const shown = found.slice(0, limit);
    return { matches: shown.map((entry) => entry.item), next: found.length > limit ? shown[shown.length - 1].position : null };
  }

  /** An order's results, then the results the lab could not give (missing_results), each an Observation. */
  private labObservationsOf(row: OrderRow): Observation[] {
    const results = row.results_enc ? this.cipher.decryptJson<BiomarkerResult[]>(row.results_enc) : [];
    return [
      ...results.map((result, n) => labObservation(row, result, n)),
      ...(row.missing_results ?? []).map((missing, n) => missingResultObservation(row, missing, results.length + n)),
    ];
  }

  /** The orders statement's rows with their sealed clinical notes and diagnoses opened. */
  private async ordersOpened(...args: Parameters<FhirReadModel['orders']>): Promise<OrderRow[]> {
    const rows = await this.reads.orders(...args);
    return rows.map((row) => ({
      ...row,
      icd_codes: icdCodesOf({ icdCodesEnc: row.icd_codes_enc, icdCodes: row.icd_codes }, this.cipher),
      clinical_notes: clinicalNotesOf({ clinicalNotesEnc: row.clinical_notes_enc, clinicalNotes: row.clinical_notes }, this.cipher),
    }));
  }

  private async auditOrders(team: TeamPrincipal, rows: OrderRow[]): Promise<void> {
    const by = { teamId: team.teamId, apiKeyId: team.apiKeyId };
    await Promise.all(rows.map((row) => this.audit.record(by, 'order', row.id)));
  }
}

/** The next page's cursor: the last shown row's position, when one more row was read than shown. */
function nextOf<T>(rows: T[], limit: number, position: (row: T) => Cursor): Cursor | null {
  return rows.length > limit ? position(rows[limit - 1]) : null;
}
