import { parseReport } from '../../src/lab-reports/parsing';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by an Israeli hospital, a US blood donor centre and a Ghanaian teaching hospital (the twenty-first independent set). */

describe('an Israeli hospital’s report', () => {
  it('reads a name in capitals without a comma family name first, as Israeli hospitals print it', () => {
    for (const israeli of ['14 Weizmann St., Tel Aviv-Yafo 6423906', 'Kupah: Clalit', 'ID (T.Z.): 001761675', 'Tel +972-3-555-0142']) {
      expect(metadataOf(line(20, [0, israeli]), line(40, [0, 'Patient Name: BEN-DAVID ADI']))).toMatchObject({
        patient_first_name: 'ADI',
        patient_last_name: 'BEN-DAVID',
      });
    }
    // Mixed case is printed given name first; without a sign of Israel, capitals are too.
    expect(metadataOf(line(20, [0, 'Kupah: Clalit']), line(40, [0, 'Patient Name: Shira Levi-Mizrahi']))).toMatchObject({ patient_first_name: 'Shira' });
    expect(metadataOf(line(40, [0, 'Patient Name: BEN-DAVID ADI'])).patient_first_name).toBe('BEN-DAVID');
  });
});

it('names the doctor without a licence number after the name (`Dr. Noa Friedman, Lic. No. 34567`)', () => {
  expect(metadataOf(line(40, [0, 'Referring Physician: Dr. Noa Friedman, Lic. No. 34567'])).ordering_provider).toBe('Noa Friedman');
});

describe('a blood donor’s results', () => {
  const letter = (salutation: string, street = '1509 Cherokee Blvd') =>
    metadataOf(
      line(30, [0, 'May 5, 2025']),
      line(50, [0, 'KAYLA MARIE BLEDSOE']),
      line(63, [0, street]),
      line(76, [0, 'Morristown, TN 37814']),
      line(97, [0, 'Donation Number: W0432 25 299976'], [200, 'Procedure: Whole Blood']),
      line(118, [0, salutation]),
      line(131, [0, 'Thank you for your donation on May 2, 2025 at']),
    );

  it('names the donor a letter is addressed to, by the given name it greets or by the street line under the name', () => {
    expect(letter('Dear Kayla,')).toMatchObject({
      patient_first_name: 'KAYLA',
      patient_last_name: 'BLEDSOE',
      specimen_number: 'W0432 25 299976',
      date_collected: '2025-05-02',
    });
    expect(letter('Dear Donor,')).toMatchObject({ patient_first_name: 'KAYLA', patient_last_name: 'BLEDSOE' });
    // Greeting someone else, or a name with no street under it: no patient.
    expect(letter('Dear Megan,').patient_last_name).toBeNull();
    expect(letter('Dear Donor,', 'Pilot Corp. HQ').patient_last_name).toBeNull();
  });

  it('reads the donation’s number as the specimen’s, its date as the collection’s and the testing date as the report’s', () => {
    expect(
      metadataOf(line(40, [0, 'DIN: W0432 25 485330'], [200, 'Date of Donation: Feb 26, 2025 16:03']), line(60, [200, 'Tested: Feb 27, 2025'])),
    ).toMatchObject({ specimen_number: 'W0432 25 485330', date_collected: '2025-02-26', date_reported: '2025-02-27' });
  });
});

it('reads a blood group with its Rh type as one value, its `A` no flag (`A Positive`, `B POS`, `O-`)', () => {
  const rowsOf = (value: string) =>
    parseReport(
      textPage(
        [
          [0, 'Test Performed'],
          [150, 'Your Result'],
          [250, 'Units'],
          [320, 'Reference Range'],
        ],
        [
          [0, 'ABO/Rh Blood Group'],
          [150, value],
        ],
        [
          [0, 'Hgb (pre-donation)'],
          [150, '14.5'],
          [250, 'g/dL'],
          [320, '12.5-20.0'],
        ],
      ),
    ).results.map((r) => [r.test_name, r.value, r.flag]);
  for (const group of ['A Positive', 'B POS', 'AB Rh negative', 'O-']) expect(rowsOf(group)[0]).toEqual(['ABO/Rh Blood Group', group, null]);
});
