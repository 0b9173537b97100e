import { parseReport } from '../../src/lab-reports/parsing';
import { readName } from '../../src/lab-reports/parsing/names';
import { readNationalId } from '../../src/lab-reports/parsing/national-ids';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by a Pakistani reference lab, a Malaysian hospital and a US children's hospital (the eighteenth independent set). */

describe('a name with whose child or wife the patient is', () => {
  it.each([
    ['Hamza Hussain S/O Muhammad Iqbal', 'Hamza', 'Hussain'],
    ['Mr. ALI SIDDIQUI S/O MALIK NAWAZ', 'ALI', 'SIDDIQUI'],
    ['Nida Khalid D/O Khalid Mehmood', 'Nida', 'Khalid'],
    ['ARVIND S/O KRISHNAN', 'ARVIND', 'KRISHNAN'],
    ['Mr. Vinod a/l Muniandy', 'Vinod', 'Muniandy'],
    ['AHMAD FAIZAL BIN MOHD YUSOF', 'AHMAD FAIZAL', 'MOHD YUSOF'],
    ['Cik Nurul Ain binti Abdullah', 'Nurul Ain', 'Abdullah'],
  ])('reads `%s` as the patient’s own name', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last });
  });

  it.each([
    ['Ms. Khoo Ai Ling', 'Ai Ling', 'Khoo'],
    ['Mdm. Tan Xin Yi', 'Xin Yi', 'Tan'],
    ['Mr. Chin Wei Ming', 'Wei Ming', 'Chin'],
  ])('reads the Malaysian Chinese name `%s` family name first, past its title', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last });
  });
});

describe('a Malaysian hospital’s doctors', () => {
  const printedInMalaysia = line(20, [0, 'Jalan Maarof, Bangsar, 59000 Kuala Lumpur, Malaysia']);
  it.each([
    ['Requesting Doctor: Dr. Siti Hajar Osman', 'Siti Hajar Osman'],
    ["Requesting Doctor: DATO' DR AHMAD ZULKIFLI HASSAN", 'AHMAD ZULKIFLI HASSAN'],
    ['Consultant: DR TEOH BOON LEONG', 'BOON LEONG TEOH'],
  ])('reads `%s` with every given name, a Chinese name family name first', (printed, provider) => {
    expect(metadataOf(printedInMalaysia, line(40, [0, printed])).ordering_provider).toBe(provider);
  });
});

describe('a Malaysian identity card number', () => {
  it('gives the birth date and the sex (the last digit odd for men), with or without its dashes', () => {
    expect(readNationalId('mykad', '830311-14-7165', 2025)).toEqual({ dob: '1983-03-11', sex: 'male' });
    expect(readNationalId('mykad', '661001119830', 2025)).toEqual({ dob: '1966-10-01', sex: 'female' });
    expect(readNationalId('mykad', '891310-14-3668', 2025)).toBeNull();
  });

  it('is read for the birth date where the report prints none', () => {
    expect(metadataOf(line(40, [0, 'Name : Mr. Vinod a/l Muniandy']), line(55, [0, 'MyKad No. : 490915-11-7129']))).toMatchObject({
      dob: '1949-09-15',
      gender: 'male',
    });
  });
});

it('reads `Nil` as a negative urine result', () => {
  const parsed = parseReport(
    textPage(
      [[0, 'URINE ROUTINE EXAMINATION (R/E)']],
      [
        [0, 'Test'],
        [150, 'Result'],
        [220, 'Unit'],
        [300, 'Normal Range'],
      ],
      [
        [0, 'Sugar'],
        [150, 'Nil'],
        [300, 'Nil'],
      ],
    ),
  );
  expect(parsed.results.map((r) => [r.test_name, r.value, r.type, r.interpretation])).toEqual([['Sugar', 'Nil', 'boolean', 'normal']]);
});

it('reads a reporting time as the report’s date', () => {
  expect(metadataOf(line(40, [0, 'Reporting Time: 26-Sep-2025 04:09 PM'])).date_reported).toBe('2025-09-26');
});

describe('a children’s hospital’s report', () => {
  it('reads no rows from the patient block’s numbers, nor from a note of the intervals, under a heading with a note in brackets', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Prairie Star Children’s Hospital']],
        [
          [0, 'Patient Name: PHAM, NAOMI'],
          [250, 'Guardian: Cody Pham (Father)'],
        ],
        [[0, 'Med Rec #: 84439994']],
        [[0, 'CSN: 7633782848']],
        [
          [0, 'Ordering Physician: Tillman, Rebecca MD'],
          [250, 'Specimen ID: C25-4978282'],
        ],
        [[0, 'COMPREHENSIVE METABOLIC PANEL']],
        [[0, 'Reference intervals for age 29 days-11 months, female']],
        [
          [0, 'Component'],
          [150, 'Result'],
          [220, 'Units'],
          [300, 'Ref Range (age-specific)'],
        ],
        [
          [0, 'Glucose'],
          [150, '122'],
          [220, 'mg/dL'],
          [300, '60 - 100'],
        ],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text, r.source_panel_name])).toEqual([
      ['Glucose', '122', '60 - 100', 'COMPREHENSIVE METABOLIC PANEL'],
    ]);
    expect([parsed.metadata.patient_first_name, parsed.metadata.patient_last_name]).toEqual(['NAOMI', 'PHAM']);
  });
});
