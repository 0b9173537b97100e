import type { Resource } from '@medplum/fhirtypes';
import type { BiomarkerResult } from '../../src/results';
import {
  appointmentResource,
  coverageResource,
  patientResource,
  practitionerResource,
  serviceRequestResource,
  specimenResource,
} from '../../src/fhir/clinical-mapping';
import { capabilityStatement } from '../../src/fhir/capability-statement';
import type { AppointmentRow, OrderRow, PatientRow, SampleRow } from '../../src/fhir/fhir-read-model';
import { parseDate, parseSearch } from '../../src/fhir/fhir-search';
import { diagnosticReport, interpretationOf, labObservation, missingResultObservation, quantity } from '../../src/fhir/lab-result-mapping';
import { WEARABLE_CODES, wearableObservation } from '../../src/fhir/wearable-mapping';
import { fhirErrors } from '../helpers/fhir-validator';

const at = (iso: string) => new Date(iso);
const ORDER_ID = '6f1c2a52-7f1e-4a4e-9d55-3b0f4f0e2a11';
const USER_ID = '0b7c9f0e-1d2e-4f3a-8b4c-5d6e7f8a9b0c';

const order = (overrides: Partial<OrderRow> = {}): OrderRow => ({
  keyset_at: '2026-11-20T08:00:00.000000',
  id: ORDER_ID,
  user_id: USER_ID,
  lab_test_id: '1ab7e570-0000-4000-8000-000000000001',
  lab_test_name: 'Lipid panel',
  sample_type: 'serum',
  lab_name: 'Sandbox Labs',
  collection_method: 'testkit',
  status: 'completed',
  low_level_status: 'completed',
  sample_id: 'S-1',
  physician: { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' },
  priority: false,
  icd_codes_enc: null,
  icd_codes: ['E78.5'],
  clinical_notes_enc: null,
  clinical_notes: 'fasting',
  created_at: at('2026-11-18T08:00:00Z'),
  updated_at: at('2026-11-20T08:00:00Z'),
  result_status: 'final',
  result_interpretation: 'abnormal',
  results_enc: null,
  missing_results: null,
  date_collected: at('2026-11-19T08:00:00Z'),
  date_received: at('2026-11-19T18:00:00Z'),
  date_reported: at('2026-11-20T08:00:00Z'),
  last_updated: at('2026-11-20T08:00:00Z'),
  ...overrides,
});

const result = (overrides: Partial<BiomarkerResult> = {}): BiomarkerResult => ({
  name: 'LDL Cholesterol',
  slug: 'ldl-cholesterol',
  result: '162',
  type: 'numeric',
  unit: 'mg/dL',
  min_range_value: 0,
  max_range_value: 99,
  reference_range: '0-99',
  is_above_max_range: true,
  is_below_min_range: false,
  interpretation: 'abnormal',
  loinc: '13457-7',
  ...overrides,
});

const sample = (resource: string, overrides: Partial<SampleRow> = {}): SampleRow => ({
  keyset_at: '2026-11-20T08:00:00.000000',
  series_id: '7',
  user_id: USER_ID,
  resource,
  provider: 'oura',
  source_type: 'ring',
  ts_us: '1795161600000000',
  ts: at('2026-11-20T08:00:00Z'),
  end_ts: null,
  value: 61,
  diastolic: null,
  sample_type: null,
  timezone_offset: 0,
  updated_at: at('2026-11-20T08:00:01Z'),
  ...overrides,
});

const appointment = (status: string, timed = true): AppointmentRow => ({
  keyset_at: '2026-11-20T08:00:00.000000',
  id: '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d',
  order_id: ORDER_ID,
  user_id: USER_ID,
  type: 'phlebotomy',
  provider: 'getlabs',
  status,
  start_at: timed ? at('2026-11-21T09:00:00Z') : null,
  end_at: timed ? at('2026-11-21T09:30:00Z') : null,
  iana_timezone: 'America/Los_Angeles',
  location: { formatted: '1 Market St, San Francisco' },
  created_at: at('2026-11-19T08:00:00Z'),
  updated_at: at('2026-11-19T09:00:00Z'),
});

const patientRow: PatientRow = {
  keyset_at: '2026-11-01T00:00:00.000000',
  id: USER_ID,
  client_user_id: 'client-1',
  created_on: at('2026-11-01T00:00:00Z'),
  info_enc: null,
  fallback_birth_date_enc: null,
  last_updated: at('2026-11-01T00:00:00Z'),
};

describe('FHIR mappings: every shape labflow produces is valid FHIR R4 (@medplum/core validator)', () => {
  const valid = (resource: Resource) => expect(fhirErrors(resource)).toEqual([]);

  it('Patient with and without demographics', () => {
    valid(patientResource(patientRow, null, null));
    valid(patientResource(patientRow, null, '1970-01-02'));
    valid(
      patientResource(
        patientRow,
        {
          first_name: 'Zelda',
          last_name: 'Q',
          email: 'z@example.com',
          phone_number: '+14155550123',
          gender: 'other',
          dob: '1987-03-14',
          address: { first_line: '1 Main St', second_line: null, city: 'SF', state: 'CA', zip: '94107', country: 'US' },
        } as never,
        null,
      ),
    );
    const info = (race: string, ethnicity: string) =>
      ({
        first_name: 'A',
        last_name: 'B',
        email: 'a@example.com',
        phone_number: '+14155550123',
        gender: 'female',
        dob: '1980-01-01',
        race,
        ethnicity,
      }) as never;
    const withRace = patientResource(patientRow, info('asian', 'hispanic'), null);
    valid(withRace);
    expect(withRace.extension).toEqual([
      {
        url: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-race',
        extension: [
          { url: 'ombCategory', valueCoding: { system: 'urn:oid:2.16.840.1.113883.6.238', code: '2028-9', display: 'Asian' } },
          { url: 'text', valueString: 'Asian' },
        ],
      },
      {
        url: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity',
        extension: [
          { url: 'ombCategory', valueCoding: { system: 'urn:oid:2.16.840.1.113883.6.238', code: '2135-2', display: 'Hispanic or Latino' } },
          { url: 'text', valueString: 'Hispanic or Latino' },
        ],
      },
    ]);
    const other = patientResource(patientRow, info('other', 'ashkenazi_jewish'), null);
    valid(other);
    expect(other.extension!.map((extension) => extension.extension)).toEqual([
      [{ url: 'text', valueString: 'other' }],
      [{ url: 'text', valueString: 'ashkenazi jewish' }],
    ]);
  });

  it('Practitioner, Coverage (with and without group), ServiceRequest in every status, Specimen', () => {
    valid(practitionerResource({ first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893', email: 'ada@example.com' }, at('2026-11-20T00:00:00Z')));
    const coverage = {
      keyset_at: '',
      id: ORDER_ID,
      user_id: USER_ID,
      payor_code: '60054',
      payor_name: 'Aetna',
      relationship: 'Spouse',
      is_primary: false,
      group_id: null,
      member_id_enc: '',
      created_at: at('2026-11-20T00:00:00Z'),
    };
    valid(coverageResource(coverage, 'M-1'));
    valid(coverageResource({ ...coverage, group_id: 'G', relationship: 'Self' }, 'M-1'));
    for (const status of ['received', 'collecting_sample', 'sample_with_lab', 'completed', 'cancelled', 'failed']) {
      valid(serviceRequestResource(order({ status, physician: null, icd_codes: null, sample_id: null, priority: true })));
    }
    expect(['received', 'completed', 'cancelled', 'failed'].map((status) => serviceRequestResource(order({ status })).status)).toEqual([
      'active',
      'completed',
      'revoked',
      'revoked',
    ]);
    valid(specimenResource(order() as OrderRow & { sample_id: string }));
    valid(specimenResource(order({ sample_type: 'mystery', date_collected: null, date_received: null }) as OrderRow & { sample_id: string }));
  });

  it('Appointment in every status, with and without its times', () => {
    for (const status of ['pending', 'reserved', 'confirmed', 'in_progress', 'completed', 'cancelled']) {
      valid(appointmentResource(appointment(status)));
      valid(appointmentResource(appointment(status, false)));
    }
    expect(appointmentResource(appointment('confirmed')).status).toBe('booked');
    expect(appointmentResource(appointment('confirmed', false)).status).toBe('proposed');
  });

  it('DiagnosticReport and lab Observations: quantities, strings, ranges, interpretations', () => {
    valid(diagnosticReport(order(), 3, `https://api.example.com/v3/order/${ORDER_ID}/result/pdf`));
    valid(diagnosticReport(order({ result_status: 'partial', sample_id: null, lab_name: null, result_interpretation: null }), 0, '/x.pdf'));
    const variants: BiomarkerResult[] = [
      result(),
      result({
        type: 'comment',
        result: 'Negative',
        unit: undefined,
        min_range_value: undefined,
        max_range_value: undefined,
        reference_range: undefined,
        interpretation: 'normal',
      }),
      result({ type: 'range', result: '<5', interpretation: 'critical', is_above_max_range: false, is_below_min_range: true }),
      result({ unit: 'weird-unit', loinc: undefined, interpretation: 'unknown' }),
      result({ slug: undefined, loinc: undefined }),
    ];
    variants.forEach((variant, n) => valid(labObservation(order(), variant, n)));
    const ldl = labObservation(order(), result(), 0);
    expect(ldl).toMatchObject({
      id: `${ORDER_ID}-0`,
      code: { coding: [{ system: 'http://loinc.org', code: '13457-7' }, { code: 'ldl-cholesterol' }] },
      valueQuantity: { value: 162, unit: 'mg/dL', system: 'http://unitsofmeasure.org', code: 'mg/dL' },
      referenceRange: [{ low: { value: 0 }, high: { value: 99 }, text: '0-99' }],
      interpretation: [{ coding: [{ code: 'H' }] }],
    });
    expect(labObservation(order(), variants[1], 1)).toMatchObject({ valueString: 'Negative', interpretation: [{ coding: [{ code: 'N' }] }] });
    expect(interpretationOf(variants[2])!.coding![0].code).toBe('LL');
    expect(interpretationOf(result({ interpretation: 'critical', is_below_min_range: false, is_above_max_range: false }))!.coding![0].code).toBe('AA');
    expect(quantity(5, 'uIU/mL')).toEqual({ value: 5, unit: 'uIU/mL', system: 'http://unitsofmeasure.org', code: 'u[IU]/mL' });
    expect(quantity(5, 'weird-unit')).toEqual({ value: 5, unit: 'weird-unit' });
    const missing = missingResultObservation(
      order(),
      { name: 'HDL', slug: 'hdl', inferred_failure_type: 'quantity_not_sufficient_failure', loinc: '2085-9', note: 'QNS' },
      5,
    );
    valid(missing);
    expect(missing).toMatchObject({
      id: `${ORDER_ID}-5`,
      status: 'cancelled',
      dataAbsentReason: { coding: [{ code: 'not-performed' }], text: 'quantity not sufficient failure' },
    });
    expect(missing).not.toHaveProperty('valueQuantity');
    valid(missingResultObservation(order({ sample_id: null }), { name: 'X', slug: 'x', inferred_failure_type: 'unknown_failure' }, 0));
  });

  it('wearable Observations of every served resource, against their vital-signs profiles', () => {
    for (const code of WEARABLE_CODES) {
      const row = sample(
        code.resource,
        code.resource === 'blood_pressure' ? { value: 120, diastolic: 80 } : code.resource === 'steps' ? { end_ts: at('2026-11-20T09:00:00Z') } : {},
      );
      const observation = wearableObservation(row)!;
      valid(observation);
      expect(observation.category![0].coding![0].code).toBe(code.category);
    }
    valid(wearableObservation(sample('blood_pressure', { value: 120, diastolic: null }))!);
    expect(wearableObservation(sample('hrv'))).toBeNull();
  });

  it('the CapabilityStatement', () => {
    valid(capabilityStatement('https://api.example.com/fhir/R4', { name: 'labflow', version: '0.1.0' }, '2026-11-20T00:00:00Z'));
  });
});

describe('FHIR search parameters', () => {
  it('turns date prefixes into bounds at the precision given', () => {
    const iso = (value: string) => parseDate(value, 'date').map((bound) => `${bound.op}${bound.at.toISOString()}`);
    expect(iso('2026-11-20')).toEqual(['>=2026-11-20T00:00:00.000Z', '<2026-11-21T00:00:00.000Z']);
    expect(iso('ge2026-11')).toEqual(['>=2026-11-01T00:00:00.000Z']);
    expect(iso('gt2026-11')).toEqual(['>=2026-12-01T00:00:00.000Z']);
    expect(iso('lt2026')).toEqual(['<2026-01-01T00:00:00.000Z']);
    expect(iso('le2026')).toEqual(['<2027-01-01T00:00:00.000Z']);
    expect(iso('eq2026-11-20T08:00:00+02:00')).toEqual(['>=2026-11-20T06:00:00.000Z', '<2026-11-20T06:00:01.000Z']);
    expect(() => parseDate('ne2026', 'date')).toThrow(/not served/);
    expect(() => parseDate('2026-13-45', 'date')).toThrow(/not a valid date/);
  });

  it('parses tokens, references and _count, and refuses what is not served', () => {
    const query = parseSearch('Observation', { subject: 'Patient/abc', code: 'http://loinc.org|8867-4,ldl', _count: '5000', category: 'vital-signs' });
    expect(query).toMatchObject({
      patient: 'abc',
      code: [{ system: 'http://loinc.org', code: '8867-4' }, { code: 'ldl' }],
      count: 1000,
      category: [{ code: 'vital-signs' }],
    });
    expect(() => parseSearch('Observation', { patient: 'Group/1' })).toThrow(/only Patient/);
    expect(() => parseSearch('Patient', { name: 'x' })).toThrow(/not served/);
    expect(() => parseSearch('Patient', { _count: '0' })).toThrow(/at least 1/);
    expect(parseSearch('DiagnosticReport', { _include: 'DiagnosticReport:result' }).includeResults).toBe(true);
  });
});
