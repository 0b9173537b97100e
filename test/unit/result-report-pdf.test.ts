import { type BiomarkerResult, type LabResultsRaw, renderResultReportPdf } from '../../src/results';
import { readPdf } from '../helpers/pdf';

const flat = (text: string) => text.replace(/\s+/g, ' ');

const ORDER_ID = '0b9f3c1e-5d7a-4a8e-9c41-6f2d8e1a7b30';

const result = (overrides: Partial<BiomarkerResult> & Pick<BiomarkerResult, 'name' | 'result'>): BiomarkerResult => ({
  type: 'numeric',
  timestamp: '2026-11-20T14:00:00Z',
  ...overrides,
});

function report(overrides: Partial<LabResultsRaw> = {}): LabResultsRaw {
  return {
    metadata: {
      age: '40',
      dob: '1986-04-12',
      'clia_#': '05D0642827',
      patient: 'Marguerite Okonkwo',
      provider: 'Ada Lovelace',
      laboratory: 'Quest Diagnostics',
      date_reported: '2026-11-21T09:30:00Z',
      date_collected: '2026-11-19T08:05:00Z',
      date_received: '2026-11-19T16:40:00Z',
      specimen_number: 'LF7K2M9Q4X1A',
      status: 'final',
      interpretation: 'critical',
      patient_id: 'user-123',
      account_id: 'acct-9',
    },
    results: [
      result({ name: 'Glucose', result: '88', unit: 'mg/dL', reference_range: '65-99', min_range_value: 65, max_range_value: 99, interpretation: 'normal' }),
      result({
        name: 'LDL Cholesterol',
        result: '162',
        unit: 'mg/dL',
        max_range_value: 99,
        is_above_max_range: true,
        interpretation: 'abnormal',
        notes: 'Fasting 12 hours.',
      }),
      result({ name: 'Potassium', result: '6.9', unit: 'mmol/L', reference_range: '3.5-5.3', is_above_max_range: true, interpretation: 'critical' }),
      result({ name: 'HIV-1/2 Antibody', result: 'Negative', type: 'coded_value', interpretation: 'normal' }),
      result({ name: 'Comment', result: 'See note', type: 'comment', notes: 'Specimen slightly hemolyzed — 溶血.' }),
    ],
    missing_results: [{ name: 'Vitamin B12', slug: 'vitamin-b12', inferred_failure_type: 'quantity_not_sufficient_failure', note: 'Please redraw.' }],
    ...overrides,
  };
}

describe('result report PDF (GET /v3/order/{id}/result/pdf)', () => {
  it('prints the header, the patient, every result with its flag, units and range, and what was not reported', async () => {
    const pdf = await renderResultReportPdf(report(), ORDER_ID);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const { text, pages } = readPdf(pdf);
    const flatText = flat(text);
    expect(pages).toBe(1);
    for (const expected of [
      'LABORATORY REPORT',
      'FINAL REPORT',
      'Laboratory: Quest Diagnostics',
      'CLIA #: 05D0642827',
      'Specimen number: LF7K2M9Q4X1A',
      `Order ID: ${ORDER_ID}`,
      'Collected: 2026-11-19 08:05 UTC',
      'Received: 2026-11-19 16:40 UTC',
      'Reported: 2026-11-21 09:30 UTC',
      'Name: Marguerite Okonkwo',
      'Date of birth: 1986-04-12 (age 40)',
      'Ordering provider: Ada Lovelace',
      'Overall: Critical: at least one result at a critical level',
      'Test Result Flag Units Reference range',
      'Glucose 88 mg/dL 65-99',
      'LDL Cholesterol 162 High mg/dL <=99',
      'Fasting 12 hours.',
      'Potassium 6.9 Critical mmol/L 3.5-5.3',
      'HIV-1/2 Antibody Negative',
      // Characters the standard fonts cannot print come out as "?".
      'Specimen slightly hemolyzed — ??.',
      'NOT REPORTED',
      'Vitamin B12: quantity not sufficient. Please redraw.',
      `labflow lab report - Order ${ORDER_ID} - Specimen LF7K2M9Q4X1A - Page 1 of 1`,
    ]) {
      expect(flatText).toContain(expected);
    }
    // A normal result carries no flag.
    expect(flatText).not.toMatch(/Glucose 88 (High|Low|Critical|Abnormal)/);
  });

  it('says a partial report is partial, and one with no results yet says so', async () => {
    const partial = flat(
      readPdf(
        await renderResultReportPdf(
          report({ metadata: { ...report().metadata, status: 'partial', interpretation: 'unknown' }, results: [], missing_results: [] }),
          ORDER_ID,
        ),
      ).text,
    );
    expect(partial).toContain('PARTIAL REPORT - further results to follow');
    expect(partial).toContain('Overall: Not interpreted by the lab');
    expect(partial).toContain('No results reported yet.');
    expect(partial).not.toContain('NOT REPORTED');
  });

  it('flows a long report onto further pages, repeating the table header, and numbers every page', async () => {
    const many = Array.from({ length: 80 }, (_, i) =>
      result({ name: `Analyte ${i + 1}`, result: String(10 + i), unit: 'U/L', reference_range: '5-50', is_above_max_range: 10 + i > 50 }),
    );
    const { text, pages } = readPdf(await renderResultReportPdf(report({ results: many }), ORDER_ID));
    expect(pages).toBeGreaterThan(1);
    const flatText = flat(text);
    for (let page = 1; page <= pages; page += 1) expect(flatText).toContain(`Page ${page} of ${pages}`);
    expect(flatText.split('Test Result Flag Units Reference range').length - 1).toBe(pages);
    expect(flatText).toContain('Analyte 1 10 U/L 5-50');
    expect(flatText).toContain('Analyte 80 89 High U/L 5-50');
  });

  it('is deterministic: the same report gives the same bytes', async () => {
    const [a, b] = await Promise.all([renderResultReportPdf(report(), ORDER_ID), renderResultReportPdf(report(), ORDER_ID)]);
    expect(a.equals(b)).toBe(true);
  });
});
