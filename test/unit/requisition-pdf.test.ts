import {
  code128BValues,
  code128BWidths,
  MAX_ORDER_CLINICAL_NOTES_LENGTH,
  NETWORK_PHYSICIAN,
  renderRequisitionPdf,
  requisitionComment,
  type RequisitionInput,
} from '../../src/requisitions';
import { readPdf } from '../helpers/pdf';

/** Text with line breaks and runs of spaces folded, so wrapped text can be searched. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

const ORDER_NOTES = 'Patient on metformin; draw before the morning dose.';
const ACCOUNT_NOTES = 'Fasting 8-12 hours preferred. Call the client for critical values.';

const input = (overrides: Partial<RequisitionInput> = {}): RequisitionInput => ({
  orderId: '0b6f7c55-3b5e-4a8e-9a53-0d2c0f6d1e21',
  createdAt: new Date('2026-03-05T10:15:00.000Z'),
  lab: { name: 'Quest Diagnostics', slug: 'quest' },
  account: { id: 'e2a4c1f0-1111-4222-8333-944455556666', accountName: 'labflow Quest (platform)', defaultClinicalNotes: ACCOUNT_NOTES },
  patient: {
    firstName: 'Zoë',
    lastName: 'Okafor-Lindqvist',
    dob: '1988-04-12',
    gender: 'female',
    phoneNumber: '+14155550123',
    email: 'zoe@example.com',
    address: { firstLine: '1 Main St', secondLine: 'Apt 2', city: 'Phoenix', state: 'AZ', zip: '85004', country: 'US' },
  },
  physician: { firstName: 'Ada', lastName: 'Lovelace', npi: '1234567893' },
  tests: [
    {
      name: 'Comprehensive Metabolic Panel',
      markers: [
        { name: 'Glucose', loinc: '2345-7' },
        { name: 'Sodium', loinc: '2951-2' },
        { name: 'Potassium', loinc: '2823-3' },
      ],
    },
    { name: 'Hemoglobin A1c', markers: [{ name: 'Hemoglobin A1c', loinc: '4548-4' }] },
    { name: 'Custom', markers: [{ name: 'Unmapped Analyte', loinc: null }] },
  ],
  clinicalNotes: ORDER_NOTES,
  icdCodes: ['E11.9', 'Z00.00'],
  sampleId: 'SMP-000123',
  billing: { type: 'client_bill', insurance: null },
  priority: false,
  aoeAnswers: [],
  physicianSignature: null,
  consents: [],
  ...overrides,
});

describe('requisitionComment', () => {
  it('puts the account default first and the order comment after a blank line', () => {
    expect(requisitionComment(ORDER_NOTES, ACCOUNT_NOTES)).toBe(`${ACCOUNT_NOTES}\n\n${ORDER_NOTES}`);
  });

  it('uses whichever part is present, trimmed, and null when neither is', () => {
    expect(requisitionComment(ORDER_NOTES, null)).toBe(ORDER_NOTES);
    expect(requisitionComment(null, ACCOUNT_NOTES)).toBe(ACCOUNT_NOTES);
    expect(requisitionComment('  spaced \n', '   ')).toBe('spaced');
    expect(requisitionComment(undefined, '')).toBeNull();
    expect(requisitionComment(null, null)).toBeNull();
  });
});

describe('Code 128', () => {
  it('encodes code set B with the mod-103 check symbol', () => {
    // "PJJ123C": (104 + 48·1 + 42·2 + 42·3 + 17·4 + 18·5 + 19·6 + 35·7) mod 103 = 879 mod 103 = 55.
    const values = code128BValues('PJJ123C');
    expect(values[0]).toBe(104);
    expect(values.slice(1, -2)).toEqual([48, 42, 42, 17, 18, 19, 35]);
    expect(values.at(-2)).toBe(55);
    expect(values.at(-1)).toBe(106);
  });

  it('draws 11 modules per symbol, 13 for STOP, bar first and last', () => {
    const text = '0b6f7c55-3b5e-4a8e-9a53-0d2c0f6d1e21';
    const widths = code128BWidths(text);
    expect(widths.reduce((a, b) => a + b, 0)).toBe(11 * (text.length + 3) + 2);
    expect(widths.length % 2).toBe(1);
    expect(widths.every((w) => w >= 1 && w <= 4)).toBe(true);
  });

  it('refuses what set B cannot carry', () => {
    expect(() => code128BValues('')).toThrow();
    expect(() => code128BValues('é')).toThrow(/cannot encode/);
  });
});

describe('renderRequisitionPdf', () => {
  it('prints the patient, physician NPI, every marker with its LOINC, ICD codes, ids and the combined comment', async () => {
    const pdf = await renderRequisitionPdf(input());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { text, pages } = readPdf(pdf);
    const all = flat(text);
    expect(pages).toBe(1);
    expect(all).toContain('LABORATORY REQUISITION');
    expect(all).toContain('Quest Diagnostics (quest)');
    expect(all).toContain('labflow Quest (platform)');
    expect(all).toContain('e2a4c1f0-1111-4222-8333-944455556666');
    expect(all).toContain('Zoë Okafor-Lindqvist');
    expect(all).toContain('1988-04-12');
    expect(all).toContain('1 Main St, Apt 2, Phoenix, AZ 85004, US');
    expect(all).toContain('Ada Lovelace');
    expect(all).toContain('NPI: 1234567893');
    for (const test of input().tests) {
      expect(all).toContain(test.name);
      for (const marker of test.markers) {
        expect(all).toContain(marker.name);
        if (marker.loinc) expect(all).toContain(`LOINC ${marker.loinc}`);
      }
    }
    expect(all).toContain('LOINC n/a');
    expect(all).toContain('E11.9, Z00.00');
    expect(all).toContain('Order ID: 0b6f7c55-3b5e-4a8e-9a53-0d2c0f6d1e21');
    expect(all).toContain('Sample ID: SMP-000123');
    expect(all).toContain('2026-03-05 10:15 UTC');
    expect(all).toContain('Priority: Routine');
    expect(all).toContain(flat(requisitionComment(ORDER_NOTES, ACCOUNT_NOTES)!));
    // The account default comes before the order comment, each once.
    expect(all.indexOf(ACCOUNT_NOTES)).toBeLessThan(all.indexOf(ORDER_NOTES));
    expect(all.split(ORDER_NOTES)).toHaveLength(2);
    expect(all).toContain('Page 1 of 1');
  });

  it('prints who pays: the billing type, and the health insurance when the order has one', async () => {
    const clientBill = flat(readPdf(await renderRequisitionPdf(input())).text);
    expect(clientBill).toContain('Bill to: Client (the ordering organisation)');
    expect(clientBill).not.toContain('Payor code');

    const insured = input({
      billing: {
        type: 'commercial_insurance',
        insurance: {
          payorCode: 'AETNA-60054',
          memberId: 'W123456789',
          responsibleRelationship: 'Spouse',
          responsibleName: 'Sam Okafor',
          diagnosisCodes: ['R73.09'],
        },
      },
    });
    const { text, pages } = readPdf(await renderRequisitionPdf(insured));
    const all = flat(text);
    expect(pages).toBe(1);
    expect(all).toContain('Bill to: Commercial insurance');
    expect(flat(readPdf(await renderRequisitionPdf(input({ priority: true }))).text)).toContain('Priority: STAT');
    expect(all).toContain('Payor code: AETNA-60054');
    expect(all).toContain('Member ID: W123456789');
    expect(all).toContain('Responsible party: Spouse, Sam Okafor');
    expect(all).toContain('Insurance diagnosis codes: R73.09');
  });

  it('prints the ask-at-order-entry answers and embeds the physician signature', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const aoeAnswers = [
      { markerName: 'Glucose', questionId: 10011, question: 'Has the patient fasted for at least 8 hours?', answer: 'Y' },
      { markerName: 'Hemoglobin A1c', questionId: 2002, question: null, answer: 'No' },
    ];
    const pdf = await renderRequisitionPdf(input({ aoeAnswers, physicianSignature: png }));
    const all = flat(readPdf(pdf).text);
    expect(all).toContain('ASK AT ORDER ENTRY');
    expect(all).toContain('Glucose, Has the patient fasted for at least 8 hours?: Y');
    // An answer stored before questions were kept names its question by id.
    expect(all).toContain('Hemoglobin A1c, question 2002: No');
    expect(all).toContain('Signature:');
    expect(pdf.toString('latin1')).toContain('/Subtype /Image');

    const none = await renderRequisitionPdf(input());
    expect(flat(readPdf(none).text)).not.toContain('ASK AT ORDER ENTRY');
    expect(none.toString('latin1')).not.toContain('/Subtype /Image');

    // Bytes that start as a PNG but are not one: the form still renders, and says so.
    const broken = await renderRequisitionPdf(input({ physicianSignature: Buffer.concat([png.subarray(0, 16), Buffer.from('not the rest of a png')]) }));
    expect(flat(readPdf(broken).text)).toContain('(signature image on file could not be drawn)');
  });

  it("prints the patient's consents, with version and time when given", async () => {
    const consents = [
      { consentType: 'hipaa-authorization', version: '2024-01', timeOfConsent: '2026-03-04T18:30:00-05:00' },
      { consentType: 'terms-of-use', version: null, timeOfConsent: null },
    ];
    const all = flat(readPdf(await renderRequisitionPdf(input({ consents }))).text);
    expect(all).toContain('PATIENT CONSENTS');
    expect(all).toContain('HIPAA authorization: version 2024-01, given 2026-03-04 23:30 UTC');
    expect(all).toContain('Terms of use: time not given');
    expect(flat(readPdf(await renderRequisitionPdf(input())).text)).not.toContain('PATIENT CONSENTS');
  });

  it('names the network physician when the order has none, and shows the order id under the barcode without a sample id', async () => {
    const { text } = readPdf(await renderRequisitionPdf(input({ physician: null, sampleId: null, icdCodes: [], clinicalNotes: null })));
    const all = flat(text);
    expect(all).toContain(NETWORK_PHYSICIAN);
    expect(all).not.toContain('NPI');
    expect(all).toContain('Sample ID: not assigned');
    expect(all.split('0b6f7c55-3b5e-4a8e-9a53-0d2c0f6d1e21').length).toBeGreaterThanOrEqual(4); // order id, barcode text, footer
    expect(all).toContain('None provided');
    expect(all).toContain(ACCOUNT_NOTES);
  });

  it('wraps a 1,000-character comment and flows long requisitions onto more pages', async () => {
    const words = ['hemolysis', 'fasting', 'anticoagulant', 'metformin', 'levothyroxine', 'biotin', 'supplement', 'redraw'];
    let comment = '';
    for (let i = 0; comment.length < MAX_ORDER_CLINICAL_NOTES_LENGTH; i += 1) comment += `${words[i % words.length]}${i} `;
    comment = comment.slice(0, MAX_ORDER_CLINICAL_NOTES_LENGTH - 4) + 'END.';
    expect(comment).toHaveLength(1000);

    const one = readPdf(await renderRequisitionPdf(input({ clinicalNotes: comment })));
    expect(flat(one.text)).toContain(flat(`${ACCOUNT_NOTES}\n\n${comment}`));
    // Wrapped to the page width: the comment section spans many lines, none overlong.
    const section = one.text.slice(one.text.indexOf('CLINICAL COMMENT'), one.text.indexOf('labflow requisition - Order'));
    expect(section.split('\n').length).toBeGreaterThan(8);
    expect(Math.max(...section.split('\n').map((line) => line.length))).toBeLessThan(140);

    const manyTests = Array.from({ length: 12 }, (_, t) => ({
      name: `Panel ${t + 1}`,
      markers: Array.from({ length: 6 }, (_, m) => ({ name: `Analyte ${t + 1}.${m + 1}`, loinc: `${1000 + t * 10 + m}-0` })),
    }));
    const long = readPdf(await renderRequisitionPdf(input({ clinicalNotes: comment, tests: manyTests })));
    expect(long.pages).toBeGreaterThan(1);
    const all = flat(long.text);
    for (const test of manyTests) for (const marker of test.markers) expect(all).toContain(`${marker.name} LOINC ${marker.loinc}`);
    expect(all).toContain(flat(comment));
    expect(all).toContain(`Page ${long.pages} of ${long.pages}`);
    expect(all).not.toContain(`Page ${long.pages + 1}`);
  });

  it('is byte-for-byte deterministic, dated from createdAt', async () => {
    const first = await renderRequisitionPdf(input());
    const second = await renderRequisitionPdf(input());
    expect(second.equals(first)).toBe(true);
    expect(first.toString('latin1')).toContain('(D:20260305101500Z)');

    const later = await renderRequisitionPdf(input({ createdAt: new Date('2026-03-06T10:15:00.000Z') }));
    expect(later.equals(first)).toBe(false);
    expect(later.toString('latin1')).toContain('(D:20260306101500Z)');
  });

  it('replaces characters the standard fonts cannot draw instead of failing', async () => {
    const pdf = await renderRequisitionPdf(input({ patient: { ...input().patient, firstName: '李', lastName: 'Łukasz' } }));
    const all = flat(readPdf(pdf).text);
    expect(all).toContain('Name: ? ?ukasz');
  });
});
