import { parseReport } from '../../src/lab-reports/parsing';
import { parseDate } from '../../src/lab-reports/parsing/dates';
import { readNationalId } from '../../src/lab-reports/parsing/national-ids';
import { flagMeaning } from '../../src/lab-reports/parsing/values';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by a Scottish GP practice's system, a Bangkok hospital and a US insurance testing lab. */

describe('a Scottish GP practice’s print of a lab result', () => {
  it('reads the birth date and sex from a CHI number whose check digit holds', () => {
    expect(readNationalId('chi', '0611758415', 2025)).toEqual({ dob: '1975-11-06', sex: 'male' });
    expect(readNationalId('chi', '091156 8867', 2025)?.dob).toBe('1956-11-09');
    expect(readNationalId('chi', '0611758416', 2025)).toBeNull();
  });

  it('reads the requester, not the usual GP, as the ordering provider, and the patient from a banner without labels', () => {
    expect(metadataOf(line(40, [0, 'Usual GP:'], [150, 'Dr A Campbell']), line(54, [0, 'Requester:'], [150, 'Dr Kirsteen Baird'])).ordering_provider).toBe(
      'Kirsteen Baird',
    );
    expect(metadataOf(line(40, [0, 'Mr Iain J MacLeod'], [150, 'Age 64y'], [250, 'Male'], [350, 'CHI 1109614616']))).toMatchObject({
      patient_first_name: 'Iain',
      patient_last_name: 'MacLeod',
      gender: 'male',
      dob: '1961-09-11',
    });
  });

  it('reads no result from the banner or a filing note, and keeps the panel over a line of sample details', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Strathmore Royal Infirmary Laboratories']],
        [
          [0, 'Ms Isla J Mackay'],
          [150, 'Age 32y'],
          [250, 'Female'],
          [350, 'CHI 1709924428'],
        ],
        [[0, 'Urinalysis']],
        [
          [0, 'Sample taken 19/11/25 10:17'],
          [200, 'Specimen No B,25.6689056.X'],
          [400, 'Source: Sidlaw View Health Centre'],
        ],
        [
          [0, 'Result name'],
          [150, 'Result'],
          [250, 'Units'],
          [350, 'Range'],
        ],
        [
          [0, 'Red Cell Count'],
          [150, '4.49'],
          [250, 'x10*12/L'],
          [350, '4.20-5.80'],
        ],
        [
          [0, 'Leucocytes'],
          [150, 'Negative'],
          [350, 'Negative'],
        ],
        [
          [0, 'Filed by Dr M Ogilvie 26/05/2025'],
          [350, 'Normal'],
        ],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.specimen])).toEqual([
      ['Red Cell Count', '4.49', 'urine'],
      ['Leucocytes', 'Negative', 'urine'],
    ]);
    expect(parsed.metadata).toMatchObject({ patient_first_name: 'Isla', patient_last_name: 'Mackay', gender: 'female' });
  });
});

describe('a Bangkok hospital’s report', () => {
  it('reads Buddhist Era years, a title run into the name, and a surname ending in `Na` and a place', () => {
    expect(parseDate('16/03/2545 (B.E.)', 'day_first')).toBe('2002-03-16');
    expect(parseDate('10 Dec 2568 08:23', 'day_first')).toBe('2025-12-10');
    const thai = (name: string) => metadataOf(line(40, [0, 'Bangkok 10110, Thailand']), line(54, [0, 'Patient Name:'], [150, name]));
    expect(thai('MR. APICHAT SNIDVONGS NA AYUDHYA')).toMatchObject({ patient_first_name: 'APICHAT', patient_last_name: 'SNIDVONGS NA AYUDHYA' });
    expect(thai('Mr.Somchai Jaidee')).toMatchObject({ patient_first_name: 'Somchai', patient_last_name: 'Jaidee', gender: 'male' });
  });
});

describe('an insurance testing lab’s applicant profile', () => {
  it('reads the applicant or insured as the patient, PANIC as a critical flag, and no row from a grid of case details', () => {
    expect(metadataOf(line(40, [0, 'Insured:'], [150, 'ABERNATHY, Robert A']))).toMatchObject({ patient_first_name: 'Robert', patient_last_name: 'ABERNATHY' });
    expect(metadataOf(line(40, [0, 'Applicant Name:'], [150, 'DE LA CRUZ, ROBERT']))).toMatchObject({ patient_last_name: 'DE LA CRUZ' });
    expect(flagMeaning('PANIC')).toBe('critical');
    const parsed = parseReport(
      textPage(
        [[0, 'Tallgrass Insurance Laboratories']],
        [
          [0, 'Client'],
          [150, 'Application No.'],
          [300, 'Client No.'],
          [400, 'Agent'],
        ],
        [
          [0, 'Great Plains Life & Annuity'],
          [150, 'NB54106405'],
          [300, '1759'],
          [400, 'Gregory Oyelaran'],
        ],
        [
          [0, 'Test'],
          [150, 'Result'],
          [220, 'Flag'],
          [280, 'Units'],
          [350, 'Expected Range'],
        ],
        [
          [0, 'Iron Binding Capacity'],
          [150, '1193'],
          [220, 'PANIC'],
          [280, 'ug/dL'],
          [350, '250 - 450'],
        ],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.units, r.flag])).toEqual([['Iron Binding Capacity', '1193', 'ug/dL', 'PANIC']]);
  });
});
