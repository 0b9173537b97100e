import type { ParsedLabReportDataView } from '../../src/lab-reports/lab-reports.dto';
import {
  parsedDiagnosticReport,
  parsedObservations,
  parsedResultAsBiomarker,
  parseParsedObservationId,
  parseParsedReportId,
  type ParsedReportRow,
} from '../../src/fhir/lab-report-mapping';
import { fhirErrors } from '../helpers/fhir-validator';

const JOB_ID = '3e0d7c52-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const USER_ID = '0b7c9f0e-1d2e-4f3a-8b4c-5d6e7f8a9b0c';

const row: ParsedReportRow = {
  id: JOB_ID,
  user_id: USER_ID,
  data_enc: 'sealed',
  created_at: new Date('2026-03-05T10:00:00Z'),
  updated_at: new Date('2026-03-05T10:00:30Z'),
  keyset_at: '2026-03-05T10:00:00.000000',
};

const data = (overrides: Partial<ParsedLabReportDataView['metadata']> = {}): ParsedLabReportDataView => ({
  metadata: {
    patient_first_name: 'Jane',
    patient_last_name: 'Doe',
    dob: '1985-04-12',
    lab_name: 'Northwind Clinical Laboratory',
    date_collected: '2026-03-02',
    date_reported: '2026-03-04',
    specimen_number: 'NW-2026-000123',
    ...overrides,
  },
  results: [
    {
      test_name: 'Glucose',
      value: '92',
      type: 'numeric',
      units: 'mg/dL',
      min_reference_range: 70,
      max_reference_range: 99,
      interpretation: 'normal',
      loinc_match_status: 'auto_match',
      loinc_matches: [{ loinc_code: '2345-7', loinc_name: 'Glucose [Mass/volume] in Serum or Plasma', confidence_score: 0.97 }],
    },
    {
      test_name: 'Hemoglobin A1c',
      value: '6.1',
      type: 'numeric',
      units: '%',
      min_reference_range: 4,
      max_reference_range: 5.6,
      interpretation: 'abnormal',
      is_above_max_range: true,
      loinc_match_status: 'needs_review',
      loinc_matches: [{ loinc_code: '4548-4', loinc_name: 'Hemoglobin A1c', confidence_score: 0.6 }],
    },
    { test_name: 'Urine color', value: 'Yellow', type: 'comment', interpretation: 'normal', loinc_match_status: 'no_match', loinc_matches: [] },
  ],
});

describe('a parsed lab report as FHIR', () => {
  it('is a US Core laboratory DiagnosticReport lr-{job id}: LOINC 11502-2, LAB, the printed dates, the lab, its results', () => {
    const report = parsedDiagnosticReport(row, data());
    expect(report).toMatchObject({
      id: `lr-${JOB_ID}`,
      meta: { lastUpdated: '2026-03-05T10:00:30.000Z', profile: ['http://hl7.org/fhir/us/core/StructureDefinition/us-core-diagnosticreport-lab'] },
      identifier: [{ system: 'https://labflow.dev/fhir/lab-report-job-id', value: JOB_ID }, { value: 'NW-2026-000123' }],
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0074', code: 'LAB' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '11502-2' }] },
      subject: { reference: `Patient/${USER_ID}` },
      effectiveDateTime: '2026-03-02',
      issued: '2026-03-04T00:00:00.000Z',
      performer: [{ display: 'Northwind Clinical Laboratory' }],
      result: [0, 1, 2].map((n) => ({ reference: `Observation/lr-${JOB_ID}-${n}` })),
    });
    expect(report.presentedForm).toBeUndefined();
    expect(fhirErrors(report)).toEqual([]);
  });

  it('falls back to the report date, then the upload, for effective; to the completion for issued; leaves out an unknown lab', () => {
    const reportedOnly = parsedDiagnosticReport(row, data({ date_collected: null }));
    expect(reportedOnly.effectiveDateTime).toBe('2026-03-04');
    const undated = parsedDiagnosticReport(row, data({ date_collected: 'March 2', date_reported: null, lab_name: '', specimen_number: null }));
    expect(undated).toMatchObject({ effectiveDateTime: '2026-03-05T10:00:00.000Z', issued: '2026-03-05T10:00:30.000Z' });
    expect(undated.performer).toBeUndefined();
    expect(undated.identifier).toHaveLength(1);
    expect(fhirErrors(undated)).toEqual([]);
  });

  it('maps each result with the lab results mapping: LOINC when the match is sure, UCUM quantity, range, interpretation, or a string', () => {
    const [glucose, a1c, color] = parsedObservations(row, data());
    expect(glucose).toMatchObject({
      id: `lr-${JOB_ID}-0`,
      status: 'final',
      category: [{ coding: [{ code: 'laboratory' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '2345-7', display: 'Glucose' }], text: 'Glucose' },
      subject: { reference: `Patient/${USER_ID}` },
      effectiveDateTime: '2026-03-02',
      issued: '2026-03-04T00:00:00.000Z',
      valueQuantity: { value: 92, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' },
      referenceRange: [{ low: { value: 70 }, high: { value: 99 } }],
      interpretation: [{ coding: [{ code: 'N' }] }],
      performer: [{ display: 'Northwind Clinical Laboratory' }],
    });
    expect(glucose.basedOn).toBeUndefined();
    // A doubtful LOINC match (needs_review) is not given to a chart: the printed name alone.
    expect(a1c.code).toEqual({ text: 'Hemoglobin A1c' });
    expect(a1c).toMatchObject({ valueQuantity: { value: 6.1, code: '%' }, interpretation: [{ coding: [{ code: 'H' }] }] });
    expect(color).toMatchObject({ code: { text: 'Urine color' }, valueString: 'Yellow' });
    for (const observation of [glucose, a1c, color]) expect(fhirErrors(observation)).toEqual([]);
  });

  it('keeps a reviewer’s LOINC (a match without a status), and an untyped number as a number', () => {
    const reviewed = parsedResultAsBiomarker({
      test_name: 'Glucose',
      value: '93',
      loinc_matches: [{ loinc_code: '2345-7', loinc_name: 'Glucose', confidence_score: 1 }],
    });
    expect(reviewed).toMatchObject({ name: 'Glucose', result: '93', type: 'numeric', loinc: '2345-7' });
  });

  it('names its resources lr-{job id} and lr-{job id}-{n}, apart from an order’s', () => {
    expect(parseParsedReportId(`lr-${JOB_ID}`)).toBe(JOB_ID);
    expect(parseParsedReportId(JOB_ID)).toBeNull();
    expect(parseParsedObservationId(`lr-${JOB_ID}-12`)).toEqual({ jobId: JOB_ID, n: 12 });
    expect(parseParsedObservationId(`${JOB_ID}-12`)).toBeNull();
    expect(parseParsedObservationId(`lr-${JOB_ID}`)).toBeNull();
  });
});
