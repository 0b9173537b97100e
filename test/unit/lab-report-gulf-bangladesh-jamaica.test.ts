import { parseReport } from '../../src/lab-reports/parsing';
import { parseDate } from '../../src/lab-reports/parsing/dates';
import type { Line } from '../../src/lab-reports/parsing/layout';
import { parseMetadata } from '../../src/lab-reports/parsing/metadata';
import { repairOcrUnit } from '../../src/lab-reports/parsing/ocr-units';
import { parseRange, parseValue } from '../../src/lab-reports/parsing/values';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by an Abu Dhabi hospital, a Dhaka diagnostic centre and a Kingston laboratory (the twentieth independent set). */

describe('a patient block of labels, each with its value after a colon set apart (`Nationality   : United Arab Emirates`)', () => {
  it('is read label by label, not parted as a side column of bare labels over one another', () => {
    const labelled = (label: string, value: string, right?: [string, string]): [number, string][] => [
      [0, label],
      [110, `: ${value}`],
      ...(right
        ? ([
            [270, right[0]],
            [370, `: ${right[1]}`],
          ] as [number, string][])
        : []),
    ];
    const page = textPage(
      labelled('Patient Name', 'Meera Hamad Al-Qubaisi'),
      labelled('MRN', '1000515430', ['Accession No.', '25-CH-101956']),
      labelled('Emirates ID No.', '784-1964-2367774-7', ['FIN', 'OP25-2532830']),
      labelled('DOB', '15/12/1964', ['Specimen Collected', '22/08/2025 07:38']),
      labelled('Age', '60 Years', ['Received in Lab', '22/08/2025 08:44']),
      labelled('Sex', 'Female', ['Result Verified', '24/08/2025 13:04']),
      labelled('Nationality', 'United Arab Emirates', ['Specimen', 'Blood']),
      labelled('Consultant', 'AL KAABI, MAITHA'),
      labelled('Location', 'Family Medicine - Al Bateen'),
      [],
      [
        [0, 'Test Name'],
        [170, 'Result'],
        [250, 'Units'],
        [320, 'Ref. Interval'],
      ],
      [
        [0, 'Cholesterol, Total'],
        [170, '4.1'],
        [250, 'mmol/L'],
        [320, '< 5.2'],
      ],
    );
    expect(parseReport(page).metadata).toMatchObject({
      patient_first_name: 'Meera',
      patient_last_name: 'Al-Qubaisi',
      dob: '1964-12-15',
      gender: 'female',
      ordering_provider: 'MAITHA AL KAABI',
      date_collected: '2025-08-22',
    });
  });
});

describe('a Bangladeshi diagnostic centre’s report', () => {
  it('reads a patient’s name in its order where a signer’s degree was earned in Japan (`PhD (Japan)`)', () => {
    const signer = line(300, [0, 'MBBS, M.Phil (Biochemistry), PhD (Japan)']);
    expect(metadataOf(line(40, [0, 'Patient Name: MR. MAHBUB HOSSAIN']), signer)).toMatchObject({ patient_first_name: 'MAHBUB', patient_last_name: 'HOSSAIN' });
    // Printed in Japan, a name in capitals is read family name first.
    expect(metadataOf(line(20, [0, 'Tokyo, Japan']), line(40, [0, 'Patient Name: INOUE SATOSHI']))).toMatchObject({ patient_first_name: 'SATOSHI' });
  });

  it('reads dates with a month’s name and a two-digit year (`25-Feb-25 11:56 AM`)', () => {
    expect(parseDate('25-Feb-25 11:56 AM', 'month_first')).toBe('2025-02-25');
    expect(parseDate('03/Jan/64', 'day_first')).toBe('1964-01-03');
    expect(metadataOf(line(40, [0, 'Collection Date: 25-Feb-25 11:56 AM'], [200, 'Reporting Date: 28-Feb-25 03:45 PM']))).toMatchObject({
      date_collected: '2025-02-25',
      date_reported: '2025-02-28',
    });
  });

  it('names the referring doctor without the degrees after the name (`FCPS (Medicine)`, `M.Phil`) or an associate professor’s title', () => {
    expect(metadataOf(line(40, [0, 'Ref. Dr.: Prof. Dr. Nazmul Hoque, MBBS, FCPS (Medicine), MD (Gastroenterology)'])).ordering_provider).toBe('Nazmul Hoque');
    expect(metadataOf(line(40, [0, 'Ref. Dr.: Assoc. Prof. Dr. Sabrina Yasmin, MBBS, FCPS'])).ordering_provider).toBe('Sabrina Yasmin');
    expect(metadataOf(line(40, [0, 'Ref. Dr.: Dr. Md. Tanvir Ahmed, MBBS, M.Phil (Pathology)'])).ordering_provider).toBe('Tanvir Ahmed');
  });

  it('reads counts grouped in lakhs (`6,58,000`, `1,50,000 - 4,50,000`), and no other grouping of twos', () => {
    expect(parseValue('6,58,000')).toMatchObject({ type: 'numeric' });
    expect(parseRange('1,50,000 - 4,50,000')).toMatchObject({ min: 150000, max: 450000 });
    expect(parseRange('4,000 - 11,000')).toMatchObject({ min: 4000, max: 11000 });
    expect(parseValue('6,58,00')).toBeNull();
  });
});

describe('the same reports read by OCR', () => {
  it('reads a date whose year OCR ran into the month (`17 Apr2025`), a `/cumm` whose slash it read as J, and `Ltd.` read as `Lid.`', () => {
    expect(parseDate('17 Apr2025 9:04 AM', 'month_first')).toBe('2025-04-17');
    expect(repairOcrUnit('Jcumm')).toBe('/cumm');
    const masthead: Line = {
      page: 0,
      y: 10,
      height: 16,
      cells: [{ text: 'Liguanea Medical Laboratory Lid.', x0: 0, x1: 200, words: [] }],
      text: '',
      confidence: 0.9,
    };
    expect(parseMetadata([masthead, line(40, [0, 'Patient: ANNMARIE BAILEY'])], 800).lab_name).toBe('Liguanea Medical Laboratory Ltd.');
  });
});
