import { Injectable } from '@nestjs/common';
import type { Observation } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../auth/principal';
import { SYSTEMS } from './clinical-mapping';
import { keysetOfMicros, SeriesLines } from './export/wearable-ndjson';
import { nextOf, pageAcross, type SearchPage, type SearchPart, SerializedResource } from './fhir-bundle';
import { FhirLabReports, PARSED_PART } from './fhir-lab-reports';
import { FhirOrders, ORDER_BATCH, reportFilter } from './fhir-orders';
import { FhirExportReadModel } from './fhir-export-read-model';
import { FhirReadModel, type Position, type SampleRow, type SampleTextRow } from './fhir-read-model';
import { type Cursor, type SearchQuery, tokenMatches } from './fhir-search';
import { parseParsedObservationId } from './lab-report-mapping';
import { parseLabObservationId } from './lab-result-mapping';
import {
  parseSampleObservationId,
  parseSleepObservationId,
  sampleObservationId,
  sleepMatches,
  sleepObservation,
  wearableObservation,
  wearableResourcesFor,
} from './wearable-mapping';

/** Lab results of one order shown, and the position they came from. */
interface Positioned<T> {
  item: T;
  position: Cursor;
}

type ObservationPart = 'lab' | typeof PARSED_PART | 'wearable' | 'sleep';
/** The parts that read lab results (and audit the orders and reports they read). */
const LAB_PARTS: ObservationPart[] = ['lab', PARSED_PART];

/**
 * The Observation search (reads and `_id` searches too): lab results of orders, results of parsed
 * lab reports, wearable samples and sleep summaries, one after the other.
 */
@Injectable()
export class FhirObservations {
  constructor(
    private readonly reads: FhirReadModel,
    private readonly orders: FhirOrders,
    private readonly exportReads: FhirExportReadModel,
    private readonly labReports: FhirLabReports,
  ) {}

  /**
   * Observations come from four places, searched one after the other (pageAcross): an order's
   * lab results, then parsed lab reports' results (FhirLabReports), then wearable samples, then
   * sleep summaries. A page may span parts; its cursor names the part it continues. `only`: the parts to
   * search ($everything reads the lab parts itself). `order`: wearable samples by time (a search),
   * or in storage order, series by series (the bulk export, which reads them all).
   */
  async search(team: TeamPrincipal, query: SearchQuery, only?: ObservationPart[], order: 'time' | 'storage' = 'time'): Promise<SearchPage> {
    const categories = query.category?.filter((token) => !token.system || token.system === SYSTEMS.observationCategory).map((token) => token.code);
    const wearables = wearableResourcesFor(categories, query.code);
    const byId = (parse: (id: string) => unknown) => query.ids?.filter((id) => parse(id) !== null);
    const finalOnly = !query.status || query.status.includes('final');
    const parts: Array<SearchPart & { name: ObservationPart; applies: boolean }> = [
      {
        name: 'lab',
        applies: (!categories || categories.includes('laboratory')) && (!query.ids || byId(parseLabObservationId)!.length > 0),
        run: (count, cursor) => this.labObservations(team, { ...query, ids: byId(parseLabObservationId), count, cursor }),
      },
      {
        name: PARSED_PART,
        applies: (!categories || categories.includes('laboratory')) && (!query.ids || byId(parseParsedObservationId)!.length > 0),
        run: (count, cursor) => this.labReports.observations(team, { ...query, count, cursor }),
      },
      {
        name: 'wearable',
        applies: wearables.length > 0 && finalOnly && (!query.ids || byId(parseSampleObservationId)!.length > 0),
        run: (count, cursor) =>
          order === 'storage'
            ? this.wearablesBySeries(team, { ...query, count, cursor }, wearables)
            : this.wearableObservations(team, { ...query, count, cursor }, wearables),
      },
      {
        name: 'sleep',
        applies: finalOnly && sleepMatches(categories, query.code) && (!query.ids || byId(parseSleepObservationId)!.length > 0),
        run: (count, cursor) => this.sleepObservations(team, { ...query, count, cursor }),
      },
    ];
    const searched = parts.filter((part) => part.applies && (!only || only.includes(part.name)));
    if (query.patient && !query.cursor && searched.some((part) => LAB_PARTS.includes(part.name)))
      return this.patientFirstPage(team, query.patient, searched, query.count);
    return pageAcross(searched, query.count, query.cursor);
  }

  /**
   * A search's first page for one patient, in one round trip where it can: most patients' Observations are
   * wearable samples and they have no lab results, so whether they have any (one indexed statement) is
   * asked while the first wearable or sleep page is read ahead (a read with no side effect; the lab parts
   * audit what they read, so they are not read ahead). Without lab results that page is the answer's start.
   */
  private async patientFirstPage(
    team: TeamPrincipal,
    patient: string,
    parts: Array<SearchPart & { name: ObservationPart }>,
    count: number,
  ): Promise<SearchPage> {
    const rest = parts.filter((part) => !LAB_PARTS.includes(part.name));
    const [hasLab, ahead] = await Promise.all([this.reads.hasLabResults(team, patient), rest[0]?.run(count, undefined)]);
    return hasLab ? pageAcross(parts, count, undefined) : pageAcross(rest, count, undefined, ahead);
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
          return row ? (sampleObservations([row])[0] ?? null) : null;
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
      matches: sampleObservations(rows.slice(0, limit)),
      next: nextOf(rows, limit, (row) => ({ part: 'wearable', at: keysetOfMicros(row.ts_us), id: row.id, n: 0 })),
    };
  }

  /** Wearable samples in storage order (the bulk export: no filter but _lastUpdated, every sample once). */
  private async wearablesBySeries(team: TeamPrincipal, query: SearchQuery, resources: string[]): Promise<SearchPage> {
    const limit = query.count;
    const rows = await this.exportReads.samplesBySeries(team, {
      resources,
      lastUpdated: query.lastUpdated,
      after: query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined,
      limit,
    });
    return wearablePage(rows, limit);
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
  /** Lab results alone ($everything reads them beside the orders). */
  async labObservations(team: TeamPrincipal, query: SearchQuery): Promise<SearchPage> {
    const limit = query.count;
    const orderIds = query.ids?.map((id) => parseLabObservationId(id)!.orderId);
    const wanted = query.ids ? new Set(query.ids) : null;
    // The report's status narrows the orders read: final results are in final reports, preliminary in
    // partial ones; a missing result (cancelled) may be in either. The exact status is judged per Observation.
    const reports = query.status?.flatMap((value) => (value === 'final' ? ['final' as const] : value === 'preliminary' ? ['partial' as const] : []));
    const resultStatuses = query.status?.includes('cancelled') ? undefined : reports;
    if (resultStatuses?.length === 0) return { matches: [], next: null };
    const filter = { ...reportFilter({ ...query, status: undefined }), ids: orderIds, resultStatuses };
    const found: Array<Positioned<Observation>> = [];
    let after: Position | undefined = query.cursor ? { at: query.cursor.at, id: query.cursor.id } : undefined;
    let inclusive = after !== undefined;
    for (;;) {
      const rows = await this.orders.read(team, { ...filter, after, limit: ORDER_BATCH }, inclusive);
      const batch = rows.slice(0, ORDER_BATCH);
      await this.orders.audit(team, batch);
      for (const row of batch) {
        this.orders.observationsOf(row).forEach((observation, n) => {
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
}

/**
 * Samples as Observations written from their series' templates (export/wearable-ndjson.ts: the
 * bytes JSON.stringify(wearableObservation(…)) writes, without the object); a resource the
 * mapping does not serve is left out.
 */
function sampleObservations(rows: SampleTextRow[]): SerializedResource[] {
  const bySeries = new Map<string, SeriesLines>();
  const found: SerializedResource[] = [];
  for (const row of rows) {
    let lines = bySeries.get(row.id);
    if (!lines) bySeries.set(row.id, (lines = new SeriesLines(row)));
    const json = lines.json({ tsUs: row.ts_us, endUs: row.end_us, value: row.value, diastolic: row.diastolic, updatedUs: row.updated_us });
    if (json !== null) found.push(new SerializedResource('Observation', sampleObservationId({ series_id: row.id, ts_us: row.ts_us }), json));
  }
  return found;
}

/** A page of wearable sample Observations from rows read one past `limit` (the keyset's next). */
function wearablePage(rows: SampleRow[], limit: number): SearchPage {
  return {
    matches: rows.slice(0, limit).flatMap((row) => wearableObservation(row) ?? []),
    next: nextOf(rows, limit, (row) => ({ part: 'wearable', at: row.keyset_at, id: row.series_id, n: 0 })),
  };
}
