import { Injectable } from '@nestjs/common';
import type { Observation } from '@medplum/fhirtypes';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { PhiReadAudit } from '../common/phi-access-log';
import { clinicalNotesOf, icdCodesOf } from '../orders/order.entities';
import type { BiomarkerResult } from '../results';
import { FhirReadModel, type OrderFilter, type OrderRow } from './fhir-read-model';
import type { SearchQuery } from './fhir-search';
import { labObservation, missingResultObservation } from './lab-result-mapping';

/** Orders read per round trip while a lab Observation search fills a page (each order holds many results). */
export const ORDER_BATCH = 50;

/** The orders filter of a search over lab results (DiagnosticReport, lab Observations). */
export function reportFilter(query: SearchQuery): Omit<OrderFilter, 'limit'> {
  const resultStatuses = query.status?.filter((status): status is 'final' | 'partial' => status === 'final' || status === 'partial');
  return { ids: query.ids, patient: query.patient, lastUpdated: query.lastUpdated, date: query.date, sort: 'reported', withResults: true, resultStatuses };
}

/**
 * Orders as the FHIR searches show them (ServiceRequest, Specimen, DiagnosticReport and lab
 * Observations): read with their sealed parts opened, audited as PHI reads, their results mapped.
 */
@Injectable()
export class FhirOrders {
  constructor(
    private readonly reads: FhirReadModel,
    private readonly cipher: PhiCipher,
    private readonly phiReads: PhiReadAudit,
  ) {}

  /** An order's results, then the results the lab could not give (missing_results), each an Observation. */
  observationsOf(row: OrderRow): Observation[] {
    const results = row.results_enc ? this.cipher.decryptJson<BiomarkerResult[]>(row.results_enc) : [];
    return [
      ...results.map((result, n) => labObservation(row, result, n)),
      ...(row.missing_results ?? []).map((missing, n) => missingResultObservation(row, missing, results.length + n)),
    ];
  }

  /** The orders statement's rows with their sealed clinical notes and diagnoses opened. */
  async read(...args: Parameters<FhirReadModel['orders']>): Promise<OrderRow[]> {
    const rows = await this.reads.orders(...args);
    return rows.map((row) => ({
      ...row,
      icd_codes: icdCodesOf({ icdCodesEnc: row.icd_codes_enc, icdCodes: row.icd_codes }, this.cipher),
      clinical_notes: clinicalNotesOf({ clinicalNotesEnc: row.clinical_notes_enc, clinicalNotes: row.clinical_notes }, this.cipher),
    }));
  }

  /** Every order shown is a PHI read, audited before the answer leaves. */
  async audit(team: TeamPrincipal, rows: OrderRow[]): Promise<void> {
    const by = { teamId: team.teamId, apiKeyId: team.apiKeyId };
    await Promise.all(rows.map((row) => this.phiReads.record(by, 'order', row.id)));
  }
}
