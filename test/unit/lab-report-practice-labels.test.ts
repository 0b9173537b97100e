import type { Line } from '../../src/lab-reports/parsing/layout';
import { line, metadataOf } from '../helpers/lab-report-lines';

describe('labels of private practices and EHR summaries', () => {
  it('takes the specimen number from `Lab Ref` or `Specimen No` over `Acc No` (the account) printed before it', () => {
    const m = metadataOf(
      line(40, [0, 'Patient: PILLAY, MOHAMMED'], [300, 'Referring Dr: Dr Farhana Ebrahim']),
      line(52, [0, 'Acc No: A7973900'], [300, 'Lab Ref: CT66907582']),
    );
    expect(m).toMatchObject({ specimen_number: 'CT66907582', ordering_provider: 'Farhana Ebrahim' });
  });

  it('still reads `Acc No` as the specimen number when nothing else labels one', () => {
    const m = metadataOf(line(40, [0, 'Patient: DOE, JANE']), line(52, [0, 'Acc No: 25-001-69251'], [300, 'Collected: 01/02/2025']));
    expect(m.specimen_number).toBe('25-001-69251');
  });

  it('reads `Name(s)` after a `Surname` label as the given names, and `Ref Dr` as the ordering provider', () => {
    const m = metadataOf(
      line(40, [0, 'Surname: PRETORIUS'], [300, 'Ref Dr: Dr Farhana Ebrahim']),
      line(52, [0, 'Name(s): Anneke Johanna'], [300, 'DOB: 1960/04/13']),
    );
    expect(m).toMatchObject({ patient_last_name: 'PRETORIUS', patient_first_name: 'Anneke', ordering_provider: 'Farhana Ebrahim' });
  });

  it('does not take a whole name after the surname for the given name', () => {
    const m = metadataOf(line(40, [0, 'Surname: SMITH']), line(52, [0, 'Patient Name: SMITH, JOHN']));
    expect(m).toMatchObject({ patient_last_name: 'SMITH', patient_first_name: null });
  });

  it('reads the sex under `Legal Sex`', () => {
    const m = metadataOf(line(40, [0, 'Patient Name'], [120, 'DELACROIX, MATEO A']), line(52, [0, 'Legal Sex'], [120, 'Male']));
    expect(m).toMatchObject({ patient_last_name: 'DELACROIX', gender: 'male' });
  });

  it("drops a doctor's bracketed registration number, reads a Chinese name family name first, and leaves null another that may be", () => {
    const western = metadataOf(line(40, [0, 'Requesting Physician'], [150, ': Dr Sarah Wong (MCR M10165E)']));
    expect(western.ordering_provider).toBe('Sarah Wong');
    const chinese = metadataOf(line(40, [0, 'Requesting Physician'], [150, ': Dr Ng Kok Wah (MCR M34528A)']));
    expect(chinese.ordering_provider).toBe('Kok Wah Ng');
    const unsure = metadataOf(line(40, [0, 'Requesting Physician'], [150, ': Dr Lee Ann Smith']));
    expect(unsure.ordering_provider).toBeNull();
  });

  it('keeps Filipino particles with the surname, and takes a kit ID over an order number, an order or control number only when nothing else labels the specimen', () => {
    const kit = metadataOf(line(40, [0, 'Name: Juan B. Dela Cruz']), line(52, [0, 'Order #: 895-4935555'], [200, 'Kit ID: EG85203298']));
    expect(kit).toMatchObject({ patient_first_name: 'Juan', patient_last_name: 'Dela Cruz', specimen_number: 'EG85203298' });
    const control = metadataOf(line(40, [0, 'Name : SANTOS, JERICHO M.']), line(52, [0, 'Control No. : 2508-013540']));
    expect(control.specimen_number).toBe('2508-013540');
  });

  it('reads an order number written in a sentence as the specimen only when nothing else names one', () => {
    const both = metadataOf(line(40, [0, 'Your order no. 895-4935555 was received; specimen S-2025-00123, collected 12 March 2025.']));
    expect(both.specimen_number).toBe('S-2025-00123');
    const alone = metadataOf(line(40, [0, 'Results for order no. 895-4935555, collected 12 March 2025.']));
    expect(alone.specimen_number).toBe('895-4935555');
  });

  it("reads a Nigerian report: the family name in capitals first, titles dropped, Other Names, day ordinals, a bracketed Mrs in the doctor's title, SELF no doctor", () => {
    const capitalsFirst = metadataOf(
      line(40, [0, 'Patient Name: YAKUBU Hadiza Muhammad'], [300, 'Sample ID: 250701634']),
      line(52, [0, 'DOB: 27th June, 1963'], [300, 'Collection Date: 1st July, 2025 8:19am']),
      line(64, [0, 'Referring Doctor: Dr. (Mrs.) Nkechi Obi'], [300, 'Result Date: 4th July, 2025 7:30pm']),
    );
    expect(capitalsFirst).toMatchObject({
      patient_first_name: 'Hadiza',
      patient_last_name: 'YAKUBU',
      dob: '1963-06-27',
      date_collected: '2025-07-01',
      date_reported: '2025-07-04',
      ordering_provider: 'Nkechi Obi',
    });
    const titled = metadataOf(line(40, [0, "Patient's Name: ALHAJI USMAN GARBA YAKUBU"]), line(52, [0, 'Referred by: SELF']));
    expect(titled).toMatchObject({ patient_first_name: 'USMAN', patient_last_name: 'YAKUBU', ordering_provider: null });
    const boxed = metadataOf(line(40, [0, 'Surname'], [100, 'BALOGUN']), line(52, [0, 'Other Names'], [100, 'Samuel Ifeoluwa']));
    expect(boxed).toMatchObject({ patient_first_name: 'Samuel', patient_last_name: 'BALOGUN' });
  });

  it('reads a birth date printed with its Hijri date beside it, and an employee as the patient', () => {
    const saudi = metadataOf(line(40, [0, 'Patient Name: Sara bint Abdulaziz Al-Qahtani']), line(52, [0, 'DOB: 25-SEP-2004 (11/08/1425 H)']));
    expect(saudi).toMatchObject({ patient_first_name: 'Sara', patient_last_name: 'Al-Qahtani', dob: '2004-09-25' });
    const employee = metadataOf(line(40, [0, 'Examinee: VAN DER BERG, KWAME JR']));
    expect(employee).toMatchObject({ patient_first_name: 'KWAME', patient_last_name: 'VAN DER BERG' });
  });

  it("reads through OCR's slips on these reports: an age and sex run together, a J read as a bracket, a tall lone word in a bordered box", () => {
    const m = metadataOf(
      line(40, [0, 'Age/Sex: 62YF'], [300, 'Collection Date: 1st]July, 2025 8:19am']),
      line(52, [0, 'DOB: 27th June, 1963'], [300, 'Result Date: 4th ]uly, 2025 7:30pm']),
    );
    expect(m).toMatchObject({ gender: 'female', date_collected: '2025-07-01', date_reported: '2025-07-04', dob: '1963-06-27' });
    const boxed: Line = { ...line(30, [0, '[Male']), height: 30 };
    expect(metadataOf(boxed, line(40, [0, 'Sex']), line(52, [0, 'Name: Jane Doe'])).lab_name).toBe('Harbor Lab');
  });

  it('reads the birth date in a CPR or personnummer when no other is printed, a doctor over the sending unit, Answered as the report date', () => {
    const danish = metadataOf(
      line(40, [0, 'CPR no.'], [100, '201046-1743'], [300, 'Sample no.'], [400, '2025-9000639']),
      line(52, [0, 'Sender: Akutmottagningen SUS Lund'], [300, 'Answered'], [400, '2025-06-16 13:20']),
      line(64, [0, 'Referring doctor: Sara Wikström, MD']),
    );
    expect(danish).toMatchObject({ dob: '1946-10-20', ordering_provider: 'Sara Wikström', date_reported: '2025-06-16' });
    expect(metadataOf(line(40, [0, 'Pers. no.: 890313-4438'])).dob).toBe('1989-03-13');
    expect(metadataOf(line(40, [0, 'Personnummer: 19461020-1234'])).dob).toBe('1946-10-20');
    // A personnummer's century counts back from the report's year, not the year it is read in:
    // born in '26 on a report of 2025 is 1926.
    const answered = line(52, [0, 'Sender: Akutmottagningen SUS Lund'], [300, 'Answered'], [400, '2025-06-16 13:20']);
    const personnummer = (id: string) => line(40, [0, 'Pers. no.'], [100, id], [300, 'Sample no.'], [400, '2025-9000639']);
    expect(metadataOf(personnummer('260313-4438'), answered)).toMatchObject({ dob: '1926-03-13', date_reported: '2025-06-16' });
    expect(metadataOf(personnummer('240313-4438'), answered).dob).toBe('2024-03-13');
    expect(metadataOf(line(40, [0, 'Sender: Dr Anna Berg'])).ordering_provider).toBe('Anna Berg');
  });

  it("reads a clinician's credentials and a clinical officer's title apart from the name, Seen by as the provider, the sex assigned at birth", () => {
    expect(metadataOf(line(40, [0, 'Seen by: Yuki Tanaka, FNP-C'])).ordering_provider).toBe('Yuki Tanaka');
    expect(metadataOf(line(40, [0, 'Clinician: C.O. Samuel Kiprop'])).ordering_provider).toBe('Samuel Kiprop');
    expect(metadataOf(line(40, [0, 'Sex assigned at birth: F'])).gender).toBe('female');
  });
});
