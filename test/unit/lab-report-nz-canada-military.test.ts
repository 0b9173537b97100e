import { parseReport } from '../../src/lab-reports/parsing';
import { parseDate } from '../../src/lab-reports/parsing/dates';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';
import { readName } from '../../src/lab-reports/parsing/names';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed in New Zealand, by an Ontario hospital's cumulative print and by a US Army hospital: their dates, names and doctors. */

describe('dates and names as New Zealand, Canadian and US military reports print them', () => {
  it('reads a numeric birth date day first where the report is New Zealand’s (NHI, IANZ, a .nz address), month first where nothing says', () => {
    const born = (...where: string[]) => metadataOf(line(40, [0, 'D.O.B.'], [150, '02/04/1975']), ...where.map((text, i) => line(54 + i * 14, [0, text]))).dob;
    expect(born('NHI No: FLY4364')).toBe('1975-04-02');
    expect(born('IANZ accredited medical laboratory')).toBe('1975-04-02');
    expect(born('results enquiries 0800 555 190 - kowhailabs.example.nz')).toBe('1975-04-02');
    expect(born('Fort Mercer, TX 76544')).toBe('1975-02-04');
  });

  it('reads day, month and year run together, as military systems print them', () => {
    expect(parseDate('19JAN2011 (14Y)', 'month_first')).toBe('2011-01-19');
    expect(parseDate('03JUN2025 0700', 'month_first')).toBe('2025-06-03');
    expect(metadataOf(line(40, [0, 'Collection Date/Time:'], [200, '03JUN2025 0700']), line(54, [0, 'Final:'], [200, '06JUN2025 1410']))).toMatchObject({
      date_collected: '2025-06-03',
      date_reported: '2025-06-06',
    });
  });

  it('keeps a Māori `Te` and a `St.` with the surname, and reads no rank as a name', () => {
    expect(readName('Mikaere Rangi TE WHATA')).toMatchObject({ first: 'Mikaere', last: 'TE WHATA' });
    expect(readName('Ashley St. Clair')).toMatchObject({ first: 'Ashley', last: 'St. Clair' });
    expect(readName('HUGHES, SARAH J MAJ MC')).toMatchObject({ first: 'SARAH', last: 'HUGHES' });
    expect(metadataOf(line(40, [0, 'Ordering Physician:'], [200, 'LCDR Dana Whitcomb, MD'])).ordering_provider).toBe('Dana Whitcomb');
  });

  it('reads a requester without the prescriber number in brackets or the practice after a comma', () => {
    const requested = (label: string, value: string) => metadataOf(line(40, [0, label], [150, value])).ordering_provider;
    expect(requested('Requester:', 'Jo Whitaker (LMC Midwife) [CPN 37JWMW], Waikato Midwives Collective')).toBe('Jo Whitaker');
    expect(requested('Requested by:', 'Dr Sione Havili [CPN 22MHVD]')).toBe('Sione Havili');
    expect(requested('Requested by:', 'Dr Hamish DUNCAN, Frankton Medical Centre')).toBe('Hamish DUNCAN');
    expect(requested('Requested by:', 'Kate Morrison (Nurse Practitioner) [CPN 41KMNP], Huntly Medical Centre')).toBe('Kate Morrison');
    // A practice alone names no doctor.
    expect(requested('Requested by:', 'Huntly Medical Centre')).toBeNull();
  });

  it('reads a birth date, age and sex printed in one field, and `Spec #` as the specimen', () => {
    expect(metadataOf(line(40, [0, 'DOB/Age/Sex:'], [150, '2000-May-04 / 24Y / F']), line(54, [0, 'Spec #:'], [150, '0405:C61671R']))).toMatchObject({
      dob: '2000-05-04',
      gender: 'female',
      specimen_number: '0405:C61671R',
    });
  });
});

describe('a cumulative report', () => {
  it('reads the newest draw’s column as the result, newest last or first, and the lines of each draw’s time and specimen as no rows', () => {
    const cumulative = (dates: string[], rows: [string, string[], string, string][]) =>
      parseReport(
        textPage(
          [[0, 'Trentvale Regional Health Centre']],
          [[0, 'LIPID PROFILE']],
          [[0, 'Date'], ...dates.map((d, i): [number, string] => [150 + i * 80, d])],
          [[0, 'Spec #'], ...dates.map((_, i): [number, string] => [150 + i * 80, `0120:H6407${i}R`])],
          [[0, 'Time'], ...dates.map((_, i): [number, string] => [150 + i * 80, `08${i}2`]), [400, 'Reference'], [480, 'Units']],
          ...rows.map(([name, values, range, units]): [number, string][] => [
            [0, name],
            ...values.map((v, i): [number, string] => [150 + i * 80, v]),
            [400, range],
            [480, units],
          ]),
        ),
      ).results.map((r) => [r.test_name, r.value, r.flag, r.min_reference_range, r.max_reference_range, r.units, r.source_panel_name]);
    const rows: [string, string[], string, string][] = [
      ['CHOLESTEROL', ['6.2 H', '5.3 H', '7.3 H'], '<5.2', 'mmol/L'],
      ['HDL CHOLESTEROL', ['0.97 L', '1.04', '0.78 L'], '>1.03', 'mmol/L'],
    ];
    const newestLast = cumulative(['19-Jul-24', '23-Aug-24', '20-Jan-25'], rows);
    expect(newestLast).toEqual([
      ['CHOLESTEROL', '7.3', 'H', null, 5.2, 'mmol/L', 'LIPID PROFILE'],
      ['HDL CHOLESTEROL', '0.78', 'L', 1.03, null, 'mmol/L', 'LIPID PROFILE'],
    ]);
    const newestFirst = cumulative(
      ['2025-Jan-20', '2024-Aug-23', '2024-Jul-19'],
      rows.map(([name, values, range, units]) => [name, [...values].reverse(), range, units]),
    );
    expect(newestFirst).toEqual(newestLast);
    // One draw's date misread by OCR (`2025-an-20`, its `J` lost): placed by the others' order.
    expect(cumulative(['2024-Jul-19', '2024-Aug-23', '2025-an-20'], rows)).toEqual(newestLast);
    expect(
      cumulative(
        ['2025-an-20', '2024-Aug-23', '2024-Jul-19'],
        rows.map(([name, values, range, units]) => [name, [...values].reverse(), range, units]),
      ),
    ).toEqual(newestLast);
  });

  it('reads the `This sample` column as the result beside an earlier draw’s dated column, whichever comes first', () => {
    const table = (headings: [number, string][], values: [string, string]) =>
      parseReport(
        textPage(
          [[0, 'Kingsmead Hospitals NHS Foundation Trust']],
          [[0, 'Complete Blood Count (CBC)']],
          [[0, 'Test'], ...headings, [350, 'Units'], [430, 'Reference range']],
          [
            [0, 'White cell count'],
            [200, values[0]],
            [270, values[1]],
            [350, '10^9/L'],
            [430, '3.8 - 10.8'],
          ],
          [
            [0, 'Haemoglobin'],
            [200, '149'],
            [270, '149'],
            [350, 'g/L'],
            [430, '132 - 171'],
          ],
        ),
      ).results.map((r) => [r.test_name, r.value]);
    expect(
      table(
        [
          [200, '01-Aug-24'],
          [270, 'This sample'],
        ],
        ['9.0', '9.4'],
      )[0],
    ).toEqual(['White cell count', '9.4']);
    expect(
      table(
        [
          [200, 'Latest'],
          [270, '01-Aug-24'],
        ],
        ['9.4', '9.0'],
      )[0],
    ).toEqual(['White cell count', '9.4']);
  });

  it('matches a dipstick’s qualitative `Leucocytes` to leukocyte esterase, not to a count', () => {
    const result = parsedResult('Leucocytes', null, 'Negative', { type: 'boolean', source_panel_name: 'URINE DIPSTICK', specimen: 'urine' });
    expect(topLoincCode(result, curatedLoincCatalogue())).toBe('5799-2');
  });
});
