import { line, metadataOf } from '../helpers/lab-report-lines';

describe('blocks headed by whom they are about', () => {
  it("reads a patient block's first line, a name with no label, as the patient, and a physician block's name, bare or after a label no list knows, as the provider", () => {
    const boxes = metadataOf(
      line(40, [0, 'Patient Demographics'], [200, 'Sample Details'], [400, 'Doctor Information']),
      line(51, [0, 'Okafor JR, Daniel K'], [200, 'Accession No: 55-1029'], [400, 'Requestor: PATEL, MEERA']),
      line(62, [0, 'DOB: 04/12/1971'], [200, 'Collected: 11/02/2026'], [400, 'NPI: 1447755990']),
    );
    expect(boxes).toMatchObject({ patient_first_name: 'Daniel', patient_last_name: 'Okafor', dob: '1971-04-12', ordering_provider: 'MEERA PATEL' });
    // A heading alone on its line, and a heading ending in a colon beside another block's field, its name before an NPI.
    const form = metadataOf(
      line(40, [0, 'PATIENT INFORMATION']),
      line(51, [0, 'van der Berg, Anna']),
      line(62, [0, 'PRACTICE / REFERRING PHYSICIAN:'], [250, 'RECEIVED: 11/02/2026']),
      line(73, [0, 'HOLM, ERIK   NPI 1093817735'], [250, 'REPORTED: 11/03/2026']),
    );
    expect(form).toMatchObject({ patient_first_name: 'Anna', patient_last_name: 'van der Berg', ordering_provider: 'ERIK HOLM', date_reported: '2026-11-03' });
  });

  it('reads no patient from a first line that is a label, a doctor, no whole name or not under the heading, and no provider from a known label of another field', () => {
    const cases = [
      [line(40, [0, 'Patient Details']), line(51, [0, 'Name: DOE, JANE'])],
      [line(40, [0, 'Patient Details']), line(51, [0, 'Dr. Ann Lee'])],
      [line(40, [0, 'Patient Details']), line(51, [0, '12 Harbor Street'])],
      [line(40, [0, 'Patient Details']), line(51, [0, 'Okafor'])],
      [line(40, [0, 'Patient Details']), line(51, [60, 'Okafor, Hannah'])],
      [line(40, [0, 'Patient Report']), line(51, [0, 'Okafor, Hannah'])],
    ];
    for (const [heading, first] of cases)
      expect(metadataOf(heading, first)).toMatchObject({ patient_first_name: first.text.startsWith('Name') ? 'JANE' : null });
    // An OCR'd name under the heading, whose letters may be misread: none.
    const ocr = line(51, [0, 'Okafor, Hannah']);
    ocr.cells[0].words.forEach((w) => Object.assign(w, { confidence: 0.95 }));
    expect(metadataOf(line(40, [0, 'Patient Details']), ocr).patient_last_name).toBeNull();
    expect(metadataOf(line(40, [0, 'Physician Details']), line(51, [0, 'NPI: 1447755990'])).ordering_provider).toBeNull();
    expect(metadataOf(line(40, [0, 'Physician Details']), line(51, [0, 'DOB: 04/12/1971'])).ordering_provider).toBeNull();
    // A practice's name of three words, not a doctor's.
    expect(metadataOf(line(40, [0, 'Physician Details']), line(51, [0, 'Acct: RIVERSIDE INTERNAL MED'])).ordering_provider).toBeNull();
  });
});
