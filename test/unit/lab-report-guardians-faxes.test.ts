import { parseReport } from '../../src/lab-reports/parsing';
import { pageLines } from '../../src/lab-reports/parsing/layout';
import { readName } from '../../src/lab-reports/parsing/names';
import { separateSideColumns } from '../../src/lab-reports/parsing/side-columns';
import type { ExtractedDocument } from '../../src/lab-reports/parsing/types';
import { line, metadataOf } from '../helpers/lab-report-lines';

/** A text-layer page from `[y, [x, text], …]` rows: 5 points a character, words a space apart, 9 high. */
function page(...rows: [number, ...[number, string][]][]): ExtractedDocument {
  const words = rows.flatMap(([y, ...cells]) =>
    cells.flatMap(([x, text]) => {
      let at = x;
      return text.split(' ').map((t) => {
        const word = { text: t, x: at, y, w: t.length * 5, h: 9, confidence: null };
        at += word.w + 5;
        return word;
      });
    }),
  );
  return { kind: 'pdf', method: 'text', pages: [{ width: 612, height: 792, words }], ocrConfidence: null, language: 'en' };
}

describe("a fax's transmittal block, a child's guardian, a sidebar's bracketed labels", () => {
  it("never reads a report's words as a name: a fax's `RE: Lab results - …` gives way to the labelled patient, `Attn: Dr …` to the ordering label", () => {
    const m = metadataOf(
      line(40, [0, 'TO: Prairie Family Medicine'], [300, 'FAX: (308) 555-0011']),
      line(52, [0, 'ATTN: Dr. Ann Copley']),
      line(64, [0, "RE: Lab results - O'ROURKE, DALE (DOB 09/13/1949)"]),
      line(76, [0, "PATIENT NAME: O'Rourke, Dale"], [300, 'BIRTHDATE: 09/13/1949']),
      line(88, [0, 'ORDERING PROVIDER: Vogel, Teresa APRN'], [300, 'COPY TO: Copley, Ann MD']),
    );
    expect(m).toMatchObject({ patient_first_name: 'Dale', patient_last_name: "O'Rourke", dob: '1949-09-13', ordering_provider: 'Teresa Vogel' });
    expect(readName('Lab results')).toMatchObject({ first: null, last: null, reason: expect.stringContaining('no word of a name') });
    const subjectOnly = metadataOf(line(40, [0, 'Re: Laboratory results for your patient']));
    expect(subjectOnly).toMatchObject({ patient_first_name: null, patient_last_name: null });
    // A letter naming its patient only in its subject still reads it, and a doctor addressee with no ordering label is the provider.
    const letter = metadataOf(line(40, [0, 'To: Dr. Anna Reyes']), line(52, [0, 'Re: Mr John A. Smith, born 4 March 1980']));
    expect(letter).toMatchObject({ patient_first_name: 'John', patient_last_name: 'Smith', dob: '1980-03-04', ordering_provider: 'Anna Reyes' });
  });

  it("does not take a guardian for the patient: a PARENT / GUARDIAN block's own `Name:`, a guardian's column in a row of labels over values", () => {
    const sections = metadataOf(
      line(40, [0, 'PARENT / GUARDIAN'], [300, 'PATIENT']),
      line(52, [0, 'Name: THOMPSON, TUAN'], [300, 'Name: DELGADO, Liam M']),
      line(64, [0, 'Relationship: Father'], [300, 'DOB: 11/20/2010']),
      line(90, [0, 'ORDER / SPECIMEN']),
      line(102, [0, 'Accession: W25-6919127']),
    );
    expect(sections).toMatchObject({ patient_first_name: 'Liam', patient_last_name: 'DELGADO', dob: '2010-11-20', specimen_number: 'W25-6919127' });
    const grid = metadataOf(
      line(40, [0, 'Patient Name'], [370, 'Parent/Guardian']),
      line(51, [0, 'Kowalski, Amir Michael'], [370, 'Denise Kowalski (Foster Parent)']),
      line(66, [0, "Rec'd"], [185, 'Resulted']),
      line(77, [0, 'Jul 28, 2025 10:35 AM'], [185, 'Jul 31, 2025 8:25 PM']),
    );
    expect(grid).toMatchObject({ patient_first_name: 'Amir', patient_last_name: 'Kowalski', date_reported: '2025-07-31' });
    const guardianFirst = metadataOf(line(40, [0, 'Guarantor: NGUYEN, LINDA']), line(52, [0, 'Patient: Nguyen-Park, Mia']));
    expect(guardianFirst).toMatchObject({ patient_first_name: 'Mia', patient_last_name: 'Nguyen-Park' });
  });

  it('takes neither the primary care doctor nor a copied one for the ordering provider', () => {
    expect(metadataOf(line(40, [0, 'Patient: DOE, JANE']), line(52, [0, 'Primary Care Physician: Benjamin Feld, DO'])).ordering_provider).toBeNull();
    expect(metadataOf(line(40, [0, 'Patient: DOE, JANE']), line(52, [0, 'PCP'], [120, 'Benjamin Feld, DO'])).ordering_provider).toBeNull();
    expect(metadataOf(line(40, [0, 'Patient: DOE, JANE']), line(52, [0, 'Copy To: Feld, Benjamin DO'])).ordering_provider).toBeNull();
  });

  it('reads a label with a bracketed note of what its value prints beside the field (`Birth Date (Age)`) over that value', () => {
    const m = metadataOf(
      line(100, [400, 'Patient Name']),
      line(110, [400, 'Ms. Imogene Vu']),
      line(124, [400, 'Birth Date (Age)']),
      line(134, [400, '12/28/1947 (77)']),
    );
    expect(m).toMatchObject({ patient_first_name: 'Imogene', patient_last_name: 'Vu', dob: '1947-12-28' });
  });

  it('keeps a table whole beside a block of labelled lines: the table header is not parted from the test names by a side column', () => {
    const parsed = parseReport(
      page(
        [38, [45, 'Wrenfield Hospital']],
        [91, [40, 'Patient: HADDAD, LIAM X'], [306, 'Bed: 4']],
        [103, [40, 'Date of Birth: 10/30/2020'], [306, 'Visit: 77']],
        [115, [40, 'Sex: M'], [306, 'Team: Blue']],
        [127, [40, 'Specimen: W25-3482933'], [306, 'Ward: 5 East']],
        [139, [306, 'Coll: 1/7/2025 04:12']],
        [151, [306, 'Rep: 1/8/2025 18:40']],
        [175, [45, 'GLYCEMIC MARKERS']],
        [193, [45, 'Test Name'], [235, 'Result'], [300, 'Flag'], [340, 'Units'], [440, 'Ref. Range']],
        [207, [45, 'A1c'], [235, '17.4'], [300, 'H'], [340, '%'], [440, '<5.7']],
        [221, [45, 'Insulin'], [235, '22.5'], [340, 'uIU/mL'], [440, '2.6-24.9']],
        [235, [45, 'FBG'], [235, '71'], [340, 'mg/dL'], [440, '65-99']],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text])).toEqual([
      ['A1c', '17.4', '<5.7'],
      ['Insulin', '22.5', '2.6-24.9'],
      ['FBG', '71', '65-99'],
    ]);
  });

  it('reads a `Normal` column beside the result column as the reference interval, and a `Result / Flag` heading as the result column', () => {
    const parsed = parseReport(
      page(
        [38, [45, 'Hearthside Draws']],
        [80, [40, 'Patient: DOE, JANE']],
        [99, [40, 'Urine Analysis']],
        [116, [40, 'Test'], [192, 'Result'], [258, 'Units'], [330, 'Normal']],
        [131, [40, 'Color'], [192, 'Yellow'], [330, 'Yellow']],
        [144, [40, 'Protein'], [192, 'Trace A'], [330, 'Negative']],
        [157, [40, 'Nitrite'], [192, 'Negative'], [330, 'Negative']],
        [180, [40, 'Urinalysis']],
        [197, [40, 'Test'], [192, 'Result / Flag'], [258, 'Units'], [330, 'Ref Range']],
        [212, [40, 'Glucose'], [192, 'Negative'], [330, 'Negative']],
        [225, [40, 'pH'], [192, '7.1'], [330, '5.0-8.0']],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text, r.interpretation, r.specimen])).toEqual([
      ['Color', 'Yellow', 'Yellow', 'normal', 'urine'],
      ['Protein', 'Trace', 'Negative', 'abnormal', 'urine'],
      ['Nitrite', 'Negative', 'Negative', 'normal', 'urine'],
      ['Glucose', 'Negative', 'Negative', 'normal', 'urine'],
      ['pH', '7.1', '5.0-8.0', 'normal', 'urine'],
    ]);
  });

  it("keeps what the other seeds' reports showed apart: a name beside a relation, a salutation, a heading over `Lab #:`, `Final` over a date, credentials", () => {
    // `Delgado, Keisha - Mother` under `Guardian` is a value, not a guardian's label: the sex under it is still read.
    const stacked = metadataOf(
      line(100, [40, 'Patient Name'], [410, 'Guardian']),
      line(111, [40, 'WASHINGTON, EZRA M'], [410, 'Delgado, Keisha - Mother']),
      line(126, [410, 'Sex']),
      line(137, [410, 'Male']),
      line(230, [40, 'Final']),
      line(241, [40, '07/24/2025 10:45']),
    );
    expect(stacked).toMatchObject({ patient_first_name: 'EZRA', patient_last_name: 'WASHINGTON', gender: 'male', date_reported: '2025-07-24' });
    const letter = metadataOf(line(40, [0, 'To: Dr. Yuki Tanaka']), line(60, [0, 'Dear Doctor,']), line(72, [0, "Your patient's results are below."]));
    expect(letter.ordering_provider).toBe('Yuki Tanaka');
    const heading = metadataOf(line(40, [0, 'ORDER / SPECIMEN']), line(52, [0, 'Lab #: 25C-832509'], [300, 'Ordering Provider: Tasha Monroe, APRN, CPNP']));
    expect(heading).toMatchObject({ specimen_number: '25C-832509', ordering_provider: 'Tasha Monroe' });
  });

  it("parts a sidebar whose `Name` label prints on the table header's line", () => {
    const doc = page(
      [38, [45, 'Hearthside Draws']],
      [89, [40, 'Urine Analysis'], [416, 'PATIENT']],
      [103, [40, 'Test'], [192, 'Result / Flag'], [258, 'Units'], [330, 'Range'], [416, 'Name']],
      [113, [416, 'Ms. Evelyn M. Fitzgerald']],
      [121, [40, 'Color'], [192, 'Yellow'], [330, 'Yellow']],
      [126, [416, 'DOB']],
      [134, [40, 'Protein'], [192, 'Negative'], [330, 'Negative']],
      [136, [416, 'Nov 13, 1947']],
      [147, [40, 'pH'], [192, '5.6'], [330, '5.0-8.0']],
      [149, [416, 'Sex']],
      [159, [416, 'Female']],
    );
    // The sidebar's `Name` is parted from the header's line, as its other labels from the rows'.
    expect(separateSideColumns(pageLines(doc.pages[0], 0)).lines.map((l) => l.text)).toContain('Name');
    const parsed = parseReport(doc);
    expect(parsed.metadata).toMatchObject({ patient_first_name: 'Evelyn', patient_last_name: 'Fitzgerald', dob: '1947-11-13', gender: 'female' });
    expect(parsed.results.map((r) => [r.test_name, r.value, r.reference_text])).toEqual([
      ['Color', 'Yellow', 'Yellow'],
      ['Protein', 'Negative', 'Negative'],
      ['pH', '5.6', '5.0-8.0'],
    ]);
  });

  it('reads no result row from a date written out under a label no list knows', () => {
    const parsed = parseReport(
      page(
        [38, [45, 'Hearthside Draws']],
        [80, [40, 'Patient: DOE, JANE']],
        [116, [40, 'Test'], [192, 'Result'], [258, 'Units'], [330, 'Ref Range']],
        [131, [40, 'TSH'], [192, '1.98'], [258, 'uIU/mL'], [330, '0.40-4.50']],
        [160, [40, 'Received at Lab']],
        [170, [40, 'Dec 16, 2025 1:05 PM']],
      ),
    );
    expect(parsed.results.map((r) => r.test_name)).toEqual(['TSH']);
  });
});
