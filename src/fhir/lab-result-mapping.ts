/**
 * An order's lab results as a US Core Laboratory DiagnosticReport and its Observations: pure
 * translation of the decrypted results (the `GET /v3/order/{id}/result` BiomarkerResults), no
 * I/O. Values with a unit become Quantities with the unit's UCUM code, reference ranges keep
 * their bounds, interpretations are HL7 v3 ObservationInterpretation codes.
 */
import type { CodeableConcept, Coding, DiagnosticReport, Observation, ObservationReferenceRange, Quantity } from '@medplum/fhirtypes';
import type { BiomarkerResult, MissingBiomarkerResult } from '../results';
import { labTestCode, meta, patientRef, SYSTEMS, US_CORE } from './clinical-mapping';
import type { OrderRow } from './fhir-read-model';

/**
 * The UCUM codes of the units labs report in (their printed spelling as the key). A unit not
 * here is kept as printed, without a UCUM code (docs/fhir.md).
 */
const UCUM: Record<string, string> = {
  'mg/dL': 'mg/dL',
  'ng/mL': 'ng/mL',
  'g/dL': 'g/dL',
  'pg/mL': 'pg/mL',
  '%': '%',
  'ug/dL': 'ug/dL',
  'mcg/dL': 'ug/dL',
  '10*3/uL': '10*3/uL',
  'x10E3/uL': '10*3/uL',
  'K/uL': '10*3/uL',
  '10*6/uL': '10*6/uL',
  'x10E6/uL': '10*6/uL',
  'M/uL': '10*6/uL',
  'mmol/L': 'mmol/L',
  'U/L': 'U/L',
  'IU/L': '[IU]/L',
  'ng/dL': 'ng/dL',
  'mIU/mL': 'm[IU]/mL',
  'uIU/mL': 'u[IU]/mL',
  'mIU/L': 'm[IU]/L',
  'IU/mL': '[IU]/mL',
  'mg/L': 'mg/L',
  'nmol/L': 'nmol/L',
  'umol/L': 'umol/L',
  fL: 'fL',
  pg: 'pg',
  'mL/min/1.73m2': 'mL/min/{1.73_m2}',
  'mEq/L': 'meq/L',
  'g/L': 'g/L',
  'ug/L': 'ug/L',
  'mg/g': 'mg/g',
  ratio: '{ratio}',
  kg: 'kg',
  g: 'g',
  'mm[Hg]': 'mm[Hg]',
  mmHg: 'mm[Hg]',
  '/min': '/min',
  bpm: '/min',
  Cel: 'Cel',
  '\u00B0C': 'Cel',
  'kg/m2': 'kg/m2',
  kcal: 'kcal',
  m: 'm',
  cm: 'cm',
  L: 'L',
  mL: 'mL',
  'L/min': 'L/min',
  'mL/kg/min': 'mL/kg/min',
  min: 'min',
  h: 'h',
  s: 's',
};

/** A value with its unit: the UCUM code where labflow knows the unit's. */
export function quantity(value: number, unit: string | undefined): Quantity {
  if (!unit) return { value };
  const code = UCUM[unit];
  return code ? { value, unit, system: SYSTEMS.ucum, code } : { value, unit };
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A result's interpretation code (v3 ObservationInterpretation): the level, and the side of the range it is on. */
export function interpretationOf(result: BiomarkerResult): CodeableConcept | undefined {
  const above = result.is_above_max_range === true;
  const below = result.is_below_min_range === true;
  const coding = (code: string, display: string): CodeableConcept => ({ coding: [{ system: SYSTEMS.interpretation, code, display }], text: display });
  switch (result.interpretation) {
    case 'normal':
      return coding('N', 'Normal');
    case 'abnormal':
      return above ? coding('H', 'High') : below ? coding('L', 'Low') : coding('A', 'Abnormal');
    case 'critical':
      return above ? coding('HH', 'Critical high') : below ? coding('LL', 'Critical low') : coding('AA', 'Critical abnormal');
    default:
      return undefined;
  }
}

function referenceRangeOf(result: BiomarkerResult): ObservationReferenceRange[] | undefined {
  const low = result.min_range_value;
  const high = result.max_range_value;
  if (low === undefined && high === undefined && !result.reference_range) return undefined;
  return [
    {
      ...(low !== undefined ? { low: quantity(low, result.unit) } : {}),
      ...(high !== undefined ? { high: quantity(high, result.unit) } : {}),
      ...(result.reference_range ? { text: result.reference_range } : {}),
    },
  ];
}

/** A result's code: its LOINC when the lab or the catalogue gave one, and labflow's marker slug. */
export function resultCode(result: BiomarkerResult): CodeableConcept {
  const coding: Coding[] = [];
  if (result.loinc) coding.push({ system: SYSTEMS.loinc, code: result.loinc, display: result.name });
  if (result.slug) coding.push({ system: SYSTEMS.biomarker, code: result.slug, display: result.name });
  return { ...(coding.length ? { coding } : {}), text: result.name };
}

/** The id of the n-th result (from 0) of an order. */
export const labObservationId = (orderId: string, n: number) => `${orderId}-${n}`;
const LAB_OBSERVATION_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(\d{1,4})$/;

export function parseLabObservationId(id: string): { orderId: string; n: number } | null {
  const match = LAB_OBSERVATION_ID.exec(id);
  return match ? { orderId: match[1], n: Number(match[2]) } : null;
}

/** When the results were observed: the sample's collection, else the report. */
export const effectiveOf = (row: OrderRow) => (row.date_collected ?? row.date_reported ?? row.created_at).toISOString();

export const LAB_CATEGORY: CodeableConcept = {
  coding: [{ system: SYSTEMS.observationCategory, code: 'laboratory', display: 'Laboratory' }],
  text: 'Laboratory',
};

/**
 * What a lab result Observation takes from the report it is part of (an order's results, or a
 * parsed lab report): its id, patient, times, status and the references it carries.
 */
export interface ResultContext {
  id: string;
  userId: string;
  lastUpdated: Date;
  status: 'final' | 'preliminary';
  /** FHIR dateTime (a date alone where only the day is known). */
  effective: string;
  /** FHIR instant. */
  issued: string;
  basedOn?: Observation['basedOn'];
  specimen?: Observation['specimen'];
  performer?: string;
}

/** A lab result as a US Core laboratory result Observation. */
export function labResultObservation(context: ResultContext, result: BiomarkerResult): Observation {
  const numeric = result.type === 'numeric' && NUMBER.test(result.result.trim());
  const interpretation = interpretationOf(result);
  const range = referenceRangeOf(result);
  return {
    resourceType: 'Observation',
    id: context.id,
    meta: meta(context.lastUpdated, US_CORE.observationLab),
    status: context.status,
    category: [LAB_CATEGORY],
    code: resultCode(result),
    subject: patientRef(context.userId),
    ...(context.basedOn ? { basedOn: context.basedOn } : {}),
    effectiveDateTime: context.effective,
    issued: context.issued,
    ...(numeric ? { valueQuantity: quantity(Number(result.result.trim()), result.unit) } : { valueString: result.result }),
    ...(interpretation ? { interpretation: [interpretation] } : {}),
    ...(result.notes ? { note: [{ text: result.notes }] } : {}),
    ...(context.specimen ? { specimen: context.specimen } : {}),
    ...(context.performer ? { performer: [{ display: context.performer }] } : {}),
    ...(range ? { referenceRange: range } : {}),
  };
}

/** One result of an order as a US Core laboratory result Observation. */
export function labObservation(row: OrderRow, result: BiomarkerResult, n: number): Observation {
  return labResultObservation(
    {
      id: labObservationId(row.id, n),
      userId: row.user_id,
      lastUpdated: row.last_updated,
      status: row.result_status === 'partial' ? 'preliminary' : 'final',
      effective: effectiveOf(row),
      issued: (row.date_reported ?? row.updated_at).toISOString(),
      basedOn: [{ reference: `ServiceRequest/${row.id}` }],
      ...(row.sample_id ? { specimen: { reference: `Specimen/${row.id}` } } : {}),
      ...(row.lab_name ? { performer: row.lab_name } : {}),
    },
    result,
  );
}

/**
 * A result the lab could not give (missing_results) as a cancelled Observation: its code, and
 * why it is absent (`not-performed`, the lab's failure type as text).
 */
export function missingResultObservation(row: OrderRow, missing: MissingBiomarkerResult, n: number): Observation {
  return {
    resourceType: 'Observation',
    id: labObservationId(row.id, n),
    meta: meta(row.last_updated, US_CORE.observationLab),
    status: 'cancelled',
    category: [LAB_CATEGORY],
    code: resultCode({ name: missing.name, slug: missing.slug, loinc: missing.loinc, result: '', type: 'comment' }),
    subject: patientRef(row.user_id),
    basedOn: [{ reference: `ServiceRequest/${row.id}` }],
    effectiveDateTime: effectiveOf(row),
    issued: (row.date_reported ?? row.updated_at).toISOString(),
    dataAbsentReason: {
      coding: [{ system: SYSTEMS.dataAbsentReason, code: 'not-performed', display: 'Not Performed' }],
      text: missing.inferred_failure_type.replace(/_/g, ' '),
    },
    ...(missing.note ? { note: [{ text: missing.note }] } : {}),
    ...(row.sample_id ? { specimen: { reference: `Specimen/${row.id}` } } : {}),
  };
}

/** The LOINC code of a laboratory report (a report of no single panel). */
export const LAB_REPORT: Coding = { system: SYSTEMS.loinc, code: '11502-2', display: 'Laboratory report' };

/** A DiagnosticReport's category: LAB (HL7 v2 table 0074). */
export const LAB_REPORT_CATEGORY: CodeableConcept = { coding: [{ system: SYSTEMS.v2_0074, code: 'LAB', display: 'Laboratory' }], text: 'Laboratory' };

/** An order's results as a US Core laboratory DiagnosticReport, with the result PDF as its presented form. */
export function diagnosticReport(row: OrderRow, resultCount: number, pdfUrl: string): DiagnosticReport {
  const test = labTestCode(row);
  return {
    resourceType: 'DiagnosticReport',
    id: row.id,
    meta: meta(row.last_updated, US_CORE.diagnosticReportLab),
    identifier: [{ system: SYSTEMS.orderId, value: row.id }],
    basedOn: [{ reference: `ServiceRequest/${row.id}` }],
    status: row.result_status === 'partial' ? 'partial' : 'final',
    category: [LAB_REPORT_CATEGORY],
    code: { coding: [LAB_REPORT, ...test.coding], text: test.text },
    subject: patientRef(row.user_id),
    effectiveDateTime: effectiveOf(row),
    issued: (row.date_reported ?? row.updated_at).toISOString(),
    ...(row.lab_name ? { performer: [{ display: row.lab_name }] } : {}),
    ...(row.sample_id ? { specimen: [{ reference: `Specimen/${row.id}` }] } : {}),
    result: Array.from({ length: resultCount }, (_, n) => ({ reference: `Observation/${labObservationId(row.id, n)}` })),
    ...(row.result_interpretation ? { conclusion: `Overall interpretation: ${row.result_interpretation}.` } : {}),
    presentedForm: [{ contentType: 'application/pdf', url: pdfUrl, title: `Lab results of order ${row.id}` }],
  };
}

/** Whether a DiagnosticReport of this order answers the `code` tokens (LOINC 11502-2 or its lab test). */
export function reportCodings(row: OrderRow): Coding[] {
  return [LAB_REPORT, ...labTestCode(row).coding];
}
