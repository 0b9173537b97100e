import { parseReport } from '../../src/lab-reports/parsing';
import { readName } from '../../src/lab-reports/parsing/names';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';
import { line, metadataOf, ocrLine, textPage } from '../helpers/lab-report-lines';

/** Reports printed by a US veterans' medical center, an Egyptian laboratory chain and a British Columbia community laboratory (the nineteenth independent set). */

const rowsOf = (...rows: [number, string][][]) =>
  parseReport(textPage(...rows)).results.map((r) => [r.test_name, r.value, r.min_reference_range, r.max_reference_range]);

it('reads a reference interval under a heading set in two cells (`Ref.` `range`, Courier’s wide gap), the interval spanning both', () => {
  expect(
    rowsOf(
      [
        [0, 'Test name'],
        [150, 'Result'],
        [220, 'units'],
        [300, 'Ref.'],
        [330, 'range'],
      ],
      [
        [0, 'TSH'],
        [150, '2.23'],
        [220, 'uIU/mL'],
        [305, '0.40 - 4.50'],
      ],
    ),
  ).toEqual([['TSH', '2.23', 0.4, 4.5]]);
});

it('reads the specimen’s number under VistA’s `Specimen UID`', () => {
  expect(metadataOf(line(40, [0, 'Specimen: SERUM.'], [200, 'Specimen UID: 3825263580'])).specimen_number).toBe('3825263580');
});

it('names the patient on VistA’s unlabelled patient line (the name as VistA files it, then the social security number and the birth date)', () => {
  const metadata = metadataOf(line(40, [0, 'MCCRAY,DWIGHT J'], [200, 'xxx-xx-6496'], [320, 'DOB: Nov 04, 1945']));
  expect([metadata.patient_first_name, metadata.patient_last_name, metadata.dob]).toEqual(['DWIGHT', 'MCCRAY', '1945-11-04']);
  expect(metadataOf(line(40, [0, 'KOWALCZYK,DWIGHT A III'], [200, 'xxx-xx-6607'], [320, 'DOB: FEB 6,1995 (30)'])).patient_last_name).toBe('KOWALCZYK');
  // Without the number beside it, a capitalised name with a comma is not taken for the patient.
  expect(metadataOf(line(40, [0, 'MCCRAY,DWIGHT J'], [200, 'Ward 4'], [320, 'DOB: Nov 04, 1945'])).patient_last_name).toBeNull();
});

describe('an Egyptian laboratory’s report', () => {
  it('reads its dates day first (accredited by EGAC, or a .eg web site)', () => {
    for (const printed of ['Accredited by EGAC according to ISO 15189', 'www.zamaleklabs.com.eg']) {
      expect(metadataOf(line(20, [0, printed]), line(40, [0, 'Sample Date: 06/05/2025 11:06 AM'])).date_collected).toBe('2025-05-06');
    }
  });

  it.each([
    ['Mr. Ahmed Mohamed Abdel Aziz', 'Ahmed', 'Abdel Aziz'],
    ['Mrs. Mona Mahmoud El Sayed', 'Mona', 'El Sayed'],
    ['Abd El Rahman Mostafa Kamel', 'Abd El Rahman', 'Kamel'],
    ['Abdel Moneim Fathy El Sayed', 'Abdel Moneim', 'El Sayed'],
    ['HANY SAID HEGAZY', 'HANY', 'HEGAZY'],
  ])('reads `%s` with the particles of its family name and a given name of `Abd`, `Abdel` joined to the name after it', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last });
  });

  it('names the referring doctor with the particle of the family name', () => {
    expect(metadataOf(line(40, [0, 'Ref. By: Prof. Dr. Magdy Abdel Hamid'])).ordering_provider).toBe('Magdy Abdel Hamid');
  });

  it('reads no rows from the `Label: value` lines right under the patient block that no field reads', () => {
    expect(
      rowsOf(
        [[0, "Patient's Name: Mohamed Osama Abdel Salam"]],
        [
          [0, 'Date of Birth: 04 Feb 1943'],
          [250, 'Report Date: 06 Jul 2025 06:12 PM'],
        ],
        [[0, 'Mobile: 012 7596 7467']],
        [[0, 'Patient Code: 856776']],
        [
          [0, 'Investigation'],
          [150, 'Result'],
          [220, 'Unit'],
          [300, 'Ref. Range'],
        ],
        [
          [0, 'SHBG'],
          [150, '29'],
          [220, 'nmol/L'],
          [300, '10-50'],
        ],
      ),
    ).toEqual([['SHBG', '29', 10, 50]]);
  });

  it('matches an abbreviation written with stops as one word (`M.C.H.C` is MCHC, not MCH)', () => {
    const catalogue = curatedLoincCatalogue();
    expect(topLoincCode(parsedResult('M.C.H.C', 'g/dL', '33.1'), catalogue)).toBe('786-4');
    expect(topLoincCode(parsedResult('M.C.H', 'pg', '29.5'), catalogue)).toBe('785-6');
    // As a text layer may space it.
    expect(topLoincCode(parsedResult('M.P .V', 'fL', '10.8'), catalogue)).toBe('32623-1');
  });

  it('reads `25 (OH) Vitamin D` as a test name', () => {
    expect(
      rowsOf(
        [
          [0, 'Investigation'],
          [150, 'Result'],
          [220, 'Units'],
          [300, 'Normal Range'],
        ],
        [
          [0, '25 (OH) Vitamin D'],
          [150, '55'],
          [220, 'ng/mL'],
          [300, '30 - 100'],
        ],
      ),
    ).toEqual([['25 (OH) Vitamin D', '55', 30, 100]]);
  });
});

describe('a British Columbia community laboratory’s report', () => {
  const table: [number, string][][] = [
    [
      [0, 'Test Description'],
      [150, 'Result'],
      [220, 'Units'],
      [300, 'Reference Interval'],
    ],
    [
      [0, 'eGFR'],
      [150, '115'],
      [220, 'mL/min/1.73m2'],
      [300, '> 60'],
    ],
  ];

  it('reads a row of labels over their values where a value is a report status (`Final`, itself a date’s label elsewhere)', () => {
    const { metadata } = parseReport(
      textPage(
        [
          [0, 'Name'],
          [150, 'PHN'],
          [300, 'Birth Date'],
        ],
        [
          [0, 'MOHAMMADI, Arash'],
          [150, '9806 907 043'],
          [300, '1978-Aug-09'],
        ],
        [
          [0, 'Gender'],
          [150, 'Accession #'],
          [300, 'Report Status'],
        ],
        [
          [0, 'M'],
          [150, '25-156-01020'],
          [300, 'Final'],
        ],
        ...table,
      ),
    );
    expect(metadata).toMatchObject({ gender: 'male', specimen_number: '25-156-01020' });
  });

  it('reads no row from the doctors a copy goes to, nor from a note across the columns', () => {
    expect(
      rowsOf(
        [
          [0, 'Name: MOHAMMADI, Arash'],
          [300, 'PHN: 9806 907 043'],
        ],
        [[0, 'Ordering Physician: Thorvaldson, Megan MD MSP# 30572']],
        [[0, 'cc']],
        [[0, 'Nguyen, Sarah MD MSP# 27481; Tehrani, Amir MD MSP# 29915']],
        ...table,
        [[0, 'eGFR by CKD-EPI 2021 (race-free). Repeat within 3 months if < 60.']],
      ),
    ).toEqual([['eGFR', '115', 60, null]]);
  });
});

describe('the same reports read by OCR', () => {
  it('reads a patient name OCR lost the comma of surname first, when the report prints its other names so (`Provider: YBARRA,ROBERTO`)', () => {
    const patient = ocrLine(40, [0, 'PATIENT NAME: HOLLOMAN YOLANDA KAY'], [300, 'DOB: 04/02/1942']);
    expect(metadataOf(patient, ocrLine(60, [0, 'Provider: YBARRA,ROBERTO']))).toMatchObject({ patient_first_name: 'YOLANDA', patient_last_name: 'HOLLOMAN' });
    // Without such a name, three words in capitals are read given name first; from a text layer, as printed.
    expect(metadataOf(patient, ocrLine(60, [0, 'Provider: Roberto Ybarra MD']))).toMatchObject({ patient_first_name: 'HOLLOMAN', patient_last_name: 'KAY' });
    expect(metadataOf(line(40, [0, 'PATIENT NAME: HOLLOMAN YOLANDA KAY']), line(60, [0, 'Provider: YBARRA,ROBERTO']))).toMatchObject({
      patient_first_name: 'HOLLOMAN',
      patient_last_name: 'KAY',
    });
  });

  it("reads labels OCR misread: a capital doubled (`PATTIENI'NAME`), Courier's m as n (`Specinen Collection Date/Tine`), a slash as a bracket (`Age [Gender`)", () => {
    expect(
      metadataOf(
        ocrLine(40, [0, "PATTIENI'NAME: HOLLOMAN, YOLANDA"]),
        ocrLine(60, [0, 'Specinen Collection Date/Tine: Sep 20, 2025@05:44']),
        ocrLine(80, [0, 'Age [Gender'], [120, '53Year(s) /M']),
      ),
    ).toMatchObject({ patient_first_name: 'YOLANDA', patient_last_name: 'HOLLOMAN', date_collected: '2025-09-20', gender: 'male' });
  });

  it('matches a test name after a serum initial that OCR misread (`S. Fenitin`), keeping the initial, and an abbreviation whose stop it lost (`TLB.C`)', () => {
    const catalogue = curatedLoincCatalogue();
    const ferritin = parsedResult('S. Fenitin', 'ng/mL', '91');
    expect(topLoincCode(ferritin, catalogue)).toBe(topLoincCode(parsedResult('Ferritin', 'ng/mL', '91'), catalogue));
    expect(topLoincCode(parsedResult('TLB.C', 'µg/dL', '166'), catalogue)).toBe(topLoincCode(parsedResult('TIBC', 'µg/dL', '166'), catalogue));
  });
});

describe('a date the report was printed', () => {
  it('is the date reported when no other label dates the report, and not beside a `Result Date`', () => {
    expect(metadataOf(line(40, [0, 'Print Date: 07/05/2025 02:02 PM'])).date_reported).toBe('2025-07-05');
    expect(metadataOf(line(40, [0, 'Result Date: 07/04/2025'], [200, 'Print Date: 07/05/2025'])).date_reported).toBe('2025-07-04');
  });
});
