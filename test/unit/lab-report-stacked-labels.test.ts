import { metadataCellKind } from '../../src/lab-reports/parsing/label-pairs';
import { parseDate } from '../../src/lab-reports/parsing/dates';
import { line, metadataOf } from '../helpers/lab-report-lines';

describe('labels printed over their values, each in its column', () => {
  it('reads each value under its label by the columns the values start in, past a label no list knows and two labels set close enough to read as one cell', () => {
    const m = metadataOf(
      // `Birth date` and `Age` print 5 points apart: one cell, parted at the age value's column.
      line(40, [0, 'Patient'], [150, 'Birth date'], [205, 'Age'], [300, 'Sex']),
      line(51, [0, 'DOE, JANE'], [150, '3/14/1980'], [205, '45'], [300, 'F']),
      line(66, [0, 'Accession No'], [150, 'Collected'], [300, 'Plan tier']),
      line(77, [0, 'A26-0001842'], [150, '11/02/2026 08:15'], [300, 'Gold']),
      line(92, [0, 'Physician'], [150, 'Reported'], [300, 'Ward']),
      line(103, [0, 'Dr. Ann Lee'], [150, '11/03/2026'], [300, '4E']),
    );
    expect(m).toMatchObject({
      patient_first_name: 'JANE',
      patient_last_name: 'DOE',
      dob: '1980-03-14',
      gender: 'female',
      specimen_number: 'A26-0001842',
      date_collected: '2026-11-02',
      date_reported: '2026-11-03',
      ordering_provider: 'Ann Lee',
    });
  });

  it('reads nothing from a row whose words do not start where the values under them do, nor from a table header over a result row', () => {
    const shifted = metadataOf(
      line(40, [0, 'Patient'], [150, 'Birth date'], [300, 'Plan tier']),
      line(51, [60, 'DOE, JANE'], [210, '03/14/1980'], [360, 'Gold']),
    );
    expect(shifted).toMatchObject({ patient_last_name: null, dob: null });
    const table = metadataOf(
      line(40, [0, 'Test'], [150, 'Result'], [250, 'Units'], [330, 'Reference range']),
      line(51, [0, 'Sodium'], [150, '140'], [250, 'mmol/L'], [330, '135-145']),
    );
    expect(table).toMatchObject({ patient_last_name: null, specimen_number: null, date_collected: null });
  });
});

describe('a grid of labels over values', () => {
  it('reads a row with one known label beside labels no list knows when another row of the grid has its values in the same columns, without taking the unknown label for the value', () => {
    const grid = [
      line(40, [0, 'Given names'], [150, 'Birth date'], [300, 'Sex']),
      line(51, [0, 'Hana'], [150, '1988-04-02'], [300, 'F']),
      line(66, [0, 'Lab accession'], [150, 'Ward'], [300, 'Bed']),
      line(77, [0, 'B-7719020'], [150, '4 East'], [300, '12']),
    ];
    expect(metadataOf(...grid)).toMatchObject({ patient_first_name: 'Hana', dob: '1988-04-02', specimen_number: 'B-7719020' });
    // The row alone is not known to be labels over values.
    expect(metadataOf(...grid.slice(2)).specimen_number).toBeNull();
    // Values in other columns: another grid, or no grid.
    const shifted = [...grid.slice(0, 2), line(66, [0, 'Lab accession'], [100, 'Ward']), line(77, [0, 'B-7719020'], [100, '4 East'])];
    expect(metadataOf(...shifted).specimen_number).toBeNull();
  });
});

describe('labels said by their value', () => {
  it('reads a label that says a report date only beside a date word as the report date when a date follows it', () => {
    expect(metadataOf(line(40, [0, 'Report: 2026-02-11 09:40'])).date_reported).toBe('2026-02-11');
    expect(metadataOf(line(40, [0, 'Befund / Findings: 11 Feb 2026'])).date_reported).toBe('2026-02-11');
    expect(metadataOf(line(40, [0, 'Report: Final, 2 pages'])).date_reported).toBeNull();
  });

  it("reads an episode number, the lab's request in Australian and British pathology, as the specimen", () => {
    expect(metadataOf(line(40, [0, 'Episode No: 26E118204'])).specimen_number).toBe('26E118204');
  });
});

describe('labels printed in two languages', () => {
  it('knows a label by the half that names a field, not by halves that name two', () => {
    expect(metadataCellKind('Nom / Name')).toBe('label');
    expect(metadataCellKind('Date de naissance / Date of birth')).toBe('label');
    expect(metadataCellKind('Name / DOB')).toBeNull();
    const m = metadataOf(
      line(40, [0, 'Nom / Name'], [110, 'MARTIN, LUC'], [250, 'Sexe / Sex'], [350, 'M']),
      line(57, [0, 'Date de naissance / DOB'], [130, '1962-05-30'], [250, 'Médecin / Physician'], [360, 'Dr. Ann Lee']),
    );
    expect(m).toMatchObject({ patient_first_name: 'LUC', patient_last_name: 'MARTIN', gender: 'male', dob: '1962-05-30', ordering_provider: 'Ann Lee' });
  });

  it('reads a bordered grid whose labels fill their boxes, each label and its value read as one cell, beside label and value cells', () => {
    // Labels 4 points before their values: one cell each, as the layout step parts them.
    const m = metadataOf(
      line(40, [0, 'Nom / Name MARTIN, LUC'], [250, 'Dossier / MRN'], [350, '774699']),
      line(57, [0, 'Prélèvement / Collected 12/22/2025 10:34'], [250, 'Rapport / Reported 12/25/2025 12:33']),
      line(74, [0, 'Échantillon / Specimen 25-914962'], [250, 'Médecin / Physician Dr. Ann Lee']),
    );
    expect(m).toMatchObject({
      patient_first_name: 'LUC',
      patient_last_name: 'MARTIN',
      date_collected: '2025-12-22',
      date_reported: '2025-12-25',
      specimen_number: '25-914962',
      ordering_provider: 'Ann Lee',
    });
  });

  it('reads the last two words of a name without a comma as two surnames on a report labelled in Spanish; leaves them null in another language', () => {
    const m = metadataOf(line(40, [0, 'Paciente / Patient'], [150, 'Fecha de nacimiento / DOB']), line(51, [0, 'Javier Santiago Colón'], [150, '02/21/2001']));
    expect(m).toMatchObject({ patient_first_name: 'Javier', patient_last_name: 'Santiago Colón', dob: '2001-02-21' });
    expect(m.confidence.patient_last_name.reason).toContain('two surnames');
    const twoGiven = metadataOf(line(40, [0, 'Paciente / Patient']), line(51, [0, 'María Isabel Torres Ortiz']));
    expect(twoGiven).toMatchObject({ patient_first_name: 'María', patient_last_name: 'Torres Ortiz' });
    const particle = metadataOf(line(40, [0, 'Paciente / Patient']), line(51, [0, 'Juan Pérez de la Cruz']));
    expect(particle).toMatchObject({ patient_first_name: 'Juan', patient_last_name: 'Pérez de la Cruz' });
    const french = metadataOf(line(40, [0, 'Patient / Patiente'], [150, 'Né le / DOB']), line(51, [0, 'Jean Pierre Dupont'], [150, '02/21/2001']));
    expect(french).toMatchObject({ patient_first_name: 'Jean', patient_last_name: null });
    const comma = metadataOf(
      line(40, [0, 'Paciente / Patient'], [150, 'Fecha de nacimiento / DOB']),
      line(51, [0, 'SANTIAGO COLÓN, JAVIER'], [150, '02/21/2001']),
    );
    expect(comma).toMatchObject({ patient_first_name: 'JAVIER', patient_last_name: 'SANTIAGO COLÓN' });
    // An English report's middle names stay middle names.
    const english = metadataOf(line(40, [0, 'Patient'], [150, 'DOB']), line(51, [0, 'Jane Marie Doe'], [150, '02/21/2001']));
    expect(english).toMatchObject({ patient_first_name: 'Jane', patient_last_name: 'Doe' });
  });

  it("reads a year-first date with the month's name (`2025-FEB-15`)", () => {
    expect(parseDate('2025-FEB-15 06:01', 'month_first')).toBe('2025-02-15');
    expect(parseDate('2025/Sep/03', 'day_first')).toBe('2025-09-03');
    expect(parseDate('2025-FEB-31', 'day_first')).toBeNull();
  });

  it('reads Spanish month abbreviations', () => {
    expect(parseDate('12-ago-2025', 'day_first')).toBe('2025-08-12');
    expect(parseDate('03-ene-2025', 'day_first')).toBe('2025-01-03');
  });
});

describe('dates as OCR reads them', () => {
  it('reads `10/Jan/2025` whose slash and J OCR ran into one gap (`10 an/2025`), and French months', () => {
    expect(parseDate('10 an/2025 09:37 AM', 'month_first')).toBe('2025-01-10');
    expect(parseDate('21 ul/1995', 'month_first')).toBe('1995-07-21');
    expect(parseDate('6 juillet 1976', 'month_first')).toBe('1976-07-06');
    expect(parseDate('3 juin 2025', 'month_first')).toBe('2025-06-03');
    expect(parseDate('12 févr. 2025', 'month_first')).toBe('2025-02-12');
    expect(parseDate('15 août 2024', 'month_first')).toBe('2024-08-15');
  });

  it("reads a month's O read as a zero (`17/0ct/2025`) or with a zero before it (`0Oct`), and takes no run of digits for a month", () => {
    expect(parseDate('17/0ct/2025 11:26 AM', 'month_first')).toBe('2025-10-17');
    expect(parseDate('N0v 3, 2025', 'month_first')).toBe('2025-11-03');
    expect(parseDate('20/0Oct/2025 05:03 PM', 'month_first')).toBe('2025-10-20');
    expect(parseDate('12 000 2025', 'day_first')).toBeNull();
    const m = metadataOf(line(40, [0, 'Collected On : 17/0ct/2025 11:26 AM']), line(51, [0, 'Report Date : 20/0ct/2025 05:03 PM']));
    expect(m).toMatchObject({ date_collected: '2025-10-17', date_reported: '2025-10-20' });
  });
});

describe('who referred the patient', () => {
  it.each(['Referred By', 'Ref. By', 'Requested by'])('reads %s as the ordering provider', (label) => {
    expect(metadataOf(line(40, [0, `${label} : Dr. Ann Lee`])).ordering_provider).toBe('Ann Lee');
  });

  it('takes no one who only collected or checked the sample for the provider', () => {
    expect(metadataOf(line(40, [0, 'Collected by : Dr. Ann Lee'])).ordering_provider).toBeNull();
    expect(metadataOf(line(40, [0, 'Verified by : Dr. Ann Lee'])).ordering_provider).toBeNull();
  });
});
