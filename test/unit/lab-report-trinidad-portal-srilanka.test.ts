import { parseReport } from '../../src/lab-reports/parsing';
import { readNationalId } from '../../src/lab-reports/parsing/national-ids';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by a Trinidad lab, a US patient portal and a Sri Lankan hospital. */

describe('a Trinidad lab’s report', () => {
  it('reads `Non Reactive` whole where it runs over the name column’s edge, never as `Reactive`', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Caroni Medical Laboratories Ltd.']],
        [
          [0, 'Test Name'],
          [180, 'Result'],
          [260, 'FLAG'],
          [320, 'REFERENCE RANGE'],
        ],
        [
          [0, 'VDRL / RPR'],
          [170, 'Non Reactive'],
          [320, 'Non Reactive'],
        ],
        [
          [0, 'Hepatitis C Antibody'],
          [180, 'Reactive'],
          [260, 'ABN'],
          [320, 'Non Reactive'],
        ],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type])).toEqual([
      ['VDRL / RPR', 'Non Reactive', 'boolean'],
      ['Hepatitis C Antibody', 'Reactive', 'boolean'],
    ]);
  });

  it('reads a numeric birth date day first where the report is Trinidad’s', () => {
    expect(metadataOf(line(40, [0, 'Chaguanas, Trinidad, W.I.']), line(54, [0, 'D.O.B.'], [150, ': 09/04/1968'])).dob).toBe('1968-04-09');
  });
});

describe('a patient portal’s printout', () => {
  it('reads the patient from the print header beside the record number or the birth date, not a bare name', () => {
    const header = (text: string) => metadataOf(line(40, [0, text]));
    expect(header('MyBluestem | Nguyen Jr., James T | MRN 850815222 | Printed 08/24/2025 5:45 PM | Page 1 of 1')).toMatchObject({
      patient_first_name: 'James',
      patient_last_name: 'Nguyen',
    });
    expect(header('MyBluestem | Daniel Van der Berg Jr. | DOB 07/15/1964 | MRN 278863049')).toMatchObject({
      patient_first_name: 'Daniel',
      patient_last_name: 'Van der Berg',
      dob: '1964-07-15',
    });
    expect(header('1/6/25, 2:16 PM | MyBluestem - Test Details | Sofia Abernathy | 1/1')).toMatchObject({ patient_first_name: null, patient_last_name: null });
  });

  it('reads a label run into its date though the time has a colon, and `Last updated` as the report date', () => {
    expect(
      metadataOf(line(40, [0, 'Collection date Aug 20, 2025 6:53 AM'], [250, 'Status Final']), line(54, [0, 'Last updated Aug 22, 2025 7:32 PM'])),
    ).toMatchObject({ date_collected: '2025-08-20', date_reported: '2025-08-22' });
  });
});

describe('a Sri Lankan hospital’s report', () => {
  it('reads a National Identity Card number in its old and new forms, and the lab’s reference number as the specimen', () => {
    expect(readNationalId('nic', '885221868V', 2025)).toEqual({ dob: '1988-01-22', sex: 'female' });
    expect(readNationalId('nic', '858482158V', 2025)).toEqual({ dob: '1985-12-13', sex: 'female' });
    expect(readNationalId('nic', '197506101234', 2025)).toEqual({ dob: '1975-03-01', sex: 'male' });
    expect(metadataOf(line(40, [0, 'NIC No'], [150, '885221868V'], [300, 'Reference No'], [420, 'LAB/25/003942']))).toMatchObject({
      gender: 'female',
      dob: '1988-01-22',
      specimen_number: 'LAB/25/003942',
    });
  });

  it('matches `Total Cholesterol / HDL Ratio` as the ratio, not by either side of its slash', () => {
    expect(topLoincCode(parsedResult('Total Cholesterol / HDL Ratio', null, '3.9'), curatedLoincCatalogue())).toBe('9830-1');
  });
});
