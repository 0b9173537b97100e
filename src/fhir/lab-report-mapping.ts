/**
 * A completed lab-report parsing job (an uploaded report parsed into results, src/lab-reports)
 * as its own US Core Laboratory DiagnosticReport, `lr-{job id}`, and its results as lab result
 * Observations, `lr-{job id}-{n}`: pure translation of the decrypted job data, no I/O. The
 * Observations are made by the order results' mapping (labResultObservation) from the parsed
 * result read as a BiomarkerResult.
 */
import type { DiagnosticReport, Observation } from '@medplum/fhirtypes';
import type { ParsedLabReportDataView } from '../lab-reports/lab-reports.dto';
import type { BiomarkerResult } from '../results';
import { meta, patientRef, US_CORE } from './clinical-mapping';
import { LAB_REPORT, LAB_REPORT_CATEGORY, labResultObservation } from './lab-result-mapping';

/** A completed parsing job as the FHIR read model gives it (the parsed data sealed). */
export interface ParsedReportRow {
  id: string;
  user_id: string;
  data_enc: string;
  created_at: Date;
  updated_at: Date;
  keyset_at: string;
}

type ParsedResultView = ParsedLabReportDataView['results'][number];

/** The job id a parsed report's resources are named by. */
export const JOB_ID_SYSTEM = 'https://labflow.dev/fhir/lab-report-job-id';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const REPORT_ID = new RegExp(`^lr-(${UUID})$`);
const OBSERVATION_ID = new RegExp(`^lr-(${UUID})-(\\d{1,4})$`);

export const parsedReportId = (jobId: string) => `lr-${jobId}`;
export const parsedObservationId = (jobId: string, n: number) => `lr-${jobId}-${n}`;

/** The job id of a parsed report's DiagnosticReport id, or null. */
export function parseParsedReportId(id: string): string | null {
  return REPORT_ID.exec(id)?.[1] ?? null;
}

/** The job id and result index of a parsed report's Observation id, or null. */
export function parseParsedObservationId(id: string): { jobId: string; n: number } | null {
  const match = OBSERVATION_ID.exec(id);
  return match ? { jobId: match[1], n: Number(match[2]) } : null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayOf = (value: string | null | undefined) => (value && DAY.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined);

/** When the results were observed: the printed collection date, else the printed report date, else the upload. */
export function parsedEffective(row: ParsedReportRow, data: ParsedLabReportDataView): string {
  return dayOf(data.metadata.date_collected) ?? dayOf(data.metadata.date_reported) ?? row.created_at.toISOString();
}

/** When the report was issued: the printed report date (its start, UTC: the report prints no time), else when parsing completed. */
function parsedIssued(row: ParsedReportRow, data: ParsedLabReportDataView): string {
  const reported = dayOf(data.metadata.date_reported);
  return reported ? `${reported}T00:00:00.000Z` : row.updated_at.toISOString();
}

/**
 * A parsed result as the order results' BiomarkerResult: its LOINC only when the matcher was sure
 * (`auto_match`, or a reviewer's result naming a match without a status); a doubtful match is
 * left out and the result keeps its printed name alone.
 */
export function parsedResultAsBiomarker(result: ParsedResultView): BiomarkerResult {
  const sure = result.loinc_match_status === 'auto_match' || (!result.loinc_match_status && (result.loinc_matches?.length ?? 0) > 0);
  const loinc = sure ? result.loinc_matches?.[0]?.loinc_code : undefined;
  return {
    name: result.test_name,
    result: result.value,
    // Untyped (a reviewer's result): numeric, so that a number becomes a Quantity (labResultObservation tests the value).
    type: !result.type || result.type === 'numeric' || result.type === 'percentage' ? 'numeric' : result.type === 'range' ? 'range' : 'comment',
    ...(result.units ? { unit: result.units } : {}),
    ...(result.min_reference_range != null ? { min_range_value: result.min_reference_range } : {}),
    ...(result.max_reference_range != null ? { max_range_value: result.max_reference_range } : {}),
    ...(result.is_above_max_range != null ? { is_above_max_range: result.is_above_max_range } : {}),
    ...(result.is_below_min_range != null ? { is_below_min_range: result.is_below_min_range } : {}),
    ...(result.interpretation ? { interpretation: result.interpretation } : {}),
    ...(loinc ? { loinc } : {}),
  };
}

/** The parsed report's results, each a final lab result Observation. */
export function parsedObservations(row: ParsedReportRow, data: ParsedLabReportDataView): Observation[] {
  const effective = parsedEffective(row, data);
  const issued = parsedIssued(row, data);
  return data.results.map((result, n) =>
    labResultObservation(
      {
        id: parsedObservationId(row.id, n),
        userId: row.user_id,
        lastUpdated: row.updated_at,
        status: 'final',
        effective,
        issued,
        ...(data.metadata.lab_name ? { performer: data.metadata.lab_name } : {}),
      },
      parsedResultAsBiomarker(result),
    ),
  );
}

/**
 * The parsed report as a US Core laboratory DiagnosticReport: LOINC 11502-2 "Laboratory report",
 * the lab as a display-only performer, its results referenced. labflow does not serve the
 * uploaded file back, so there is no presentedForm.
 */
export function parsedDiagnosticReport(row: ParsedReportRow, data: ParsedLabReportDataView): DiagnosticReport {
  const lab = data.metadata.lab_name;
  return {
    resourceType: 'DiagnosticReport',
    id: parsedReportId(row.id),
    meta: meta(row.updated_at, US_CORE.diagnosticReportLab),
    identifier: [
      { system: JOB_ID_SYSTEM, value: row.id },
      ...(data.metadata.specimen_number ? [{ type: { text: 'Specimen number as printed' }, value: data.metadata.specimen_number }] : []),
    ],
    status: 'final',
    category: [LAB_REPORT_CATEGORY],
    code: { coding: [LAB_REPORT], text: 'Laboratory report' },
    subject: patientRef(row.user_id),
    effectiveDateTime: parsedEffective(row, data),
    issued: parsedIssued(row, data),
    ...(lab ? { performer: [{ display: lab }] } : {}),
    result: data.results.map((_, n) => ({ reference: `Observation/${parsedObservationId(row.id, n)}` })),
  };
}
