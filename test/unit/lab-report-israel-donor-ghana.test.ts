import { line, metadataOf } from '../helpers/lab-report-lines';

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
