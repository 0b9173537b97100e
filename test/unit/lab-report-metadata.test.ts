import type { Line } from '../../src/lab-reports/parsing/layout';
import { metadataCellKind } from '../../src/lab-reports/parsing/label-pairs';
import { parseMetadata } from '../../src/lab-reports/parsing/metadata';
import { readName } from '../../src/lab-reports/parsing/names';

/** Printed lines as the layout step gives them: cells parted by three or more spaces, one column each, a masthead first. */
function lines(...texts: string[]): Line[] {
  return texts.map((text, i) => {
    // Cells on a grid of 200-unit columns, so a value printed under a label overlaps it.
    const cells = text.split(/\s{3,}/).map((cell, column) => ({ text: cell, x0: column * 200, x1: column * 200 + cell.length * 5, words: [] }));
    return { page: 0, y: 20 + i * 14, height: i === 0 ? 16 : 9, cells, text: texts[i], confidence: 1 };
  });
}
const metadataOf = (...texts: string[]) => parseMetadata(lines(...texts), 800);

describe('patient names as labs print them', () => {
  it.each([
    ['DOE, JANE', 'JANE', 'DOE'],
    ['Doe, Jane M', 'Jane', 'Doe'],
    ['Doe, Jane Marie', 'Jane', 'Doe'],
    ['DOE JR, JANE', 'JANE', 'DOE'],
    ['Doe, J. Jane', 'Jane', 'Doe'],
    ['Jane Doe', 'Jane', 'Doe'],
    ['Jane M. Doe', 'Jane', 'Doe'],
    ['Mrs. Jane Doe III', 'Jane', 'Doe'],
    ["O'Brien-García, José Luis", 'José', "O'Brien-García"],
    ['De La Cruz, Maria', 'Maria', 'De La Cruz'],
  ])('reads %s', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last, reason: null });
  });

  it('leaves a name it cannot split null, with the reason', () => {
    expect(readName('Madonna')).toMatchObject({ first: null, last: null, confidence: 0, reason: expect.stringContaining('one name word') });
    expect(readName('Doe,')).toMatchObject({ first: null, last: null, reason: expect.stringContaining('LAST, FIRST') });
    expect(readName('Jane Doe 01/02/1980')).toMatchObject({ first: null, reason: expect.stringContaining('digits') });
  });

  it('reads a Chinese name family name first, its two-syllable given name whole; does not split another name that may be printed family name first', () => {
    expect(readName('TAN MEI LING')).toMatchObject({ first: 'MEI LING', last: 'TAN', reason: null });
    expect(readName('Ng Kok Wah')).toMatchObject({ first: 'Kok Wah', last: 'Ng' });
    expect(readName('Tan Meiling')).toMatchObject({ first: 'Meiling', last: 'Tan' });
    expect(readName('TAN, MEI LING')).toMatchObject({ first: 'MEI LING', last: 'TAN' });
    for (const printed of ['Nguyen Van An', 'Lee Ann Smith', 'Lee Smith', 'Chan Ben']) {
      expect(readName(printed)).toMatchObject({ first: null, last: null, reason: expect.stringContaining('family name first') });
    }
    // After a comma the family name is known, whatever it is.
    expect(readName('TAN, MEI')).toMatchObject({ first: 'MEI', last: 'TAN' });
    expect(readName('Lee, Hannah Marie')).toMatchObject({ first: 'Hannah', last: 'Lee' });
  });

  it.each([
    ['Mallam Musa Bello', 'Musa', 'Bello'],
    ['Sir Daniel Okafor', 'Daniel', 'Okafor'],
    ['Barr. Adebayo Okafor', 'Adebayo', 'Okafor'],
    ['Lolo Ngozi Eze', 'Ngozi', 'Eze'],
    ['John Barr', 'John', 'Barr'],
  ])('drops an honorific, Nigerian and British ones too: %s', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last });
  });

  it.each([
    ['Aoife Ní Bhriain', 'Aoife', 'Ní Bhriain'],
    ['Seán Ó Briain', 'Seán', 'Ó Briain'],
    ['Ciarán Mac Carthaigh', 'Ciarán', 'Mac Carthaigh'],
    ['Siobhán Nic Carthaigh', 'Siobhán', 'Nic Carthaigh'],
    ['Ó BRIAIN, Seán', 'Seán', 'Ó BRIAIN'],
  ])('keeps an Irish surname whole with its particle: %s', (printed, first, last) => {
    expect(readName(printed)).toMatchObject({ first, last });
  });

  it('reads the legal name, not the name the patient goes by', () => {
    expect(readName('Robert "Bobby" J. Whitfield')).toMatchObject({ first: 'Robert', last: 'Whitfield' });
    expect(readName('Whitfield, Robert J (Bobby)')).toMatchObject({ first: 'Robert', last: 'Whitfield' });
  });

  it('leaves the surname null when a Spanish name of three words may be a second given name before one surname', () => {
    expect(readName('José Antonio Santiago', 'two_surnames')).toMatchObject({ first: 'José', last: null, reason: expect.stringContaining('not told apart') });
    expect(readName('María Elena Figueroa', 'two_surnames')).toMatchObject({ first: 'María', last: null });
    expect(readName('José Santiago Colón', 'two_surnames')).toMatchObject({ first: 'José', last: 'Santiago Colón' });
    expect(readName('María Isabel Torres Ortiz', 'two_surnames')).toMatchObject({ first: 'María', last: 'Torres Ortiz' });
  });

  it('reads a name printed in Japan family name first; elsewhere leaves one that starts with a Japanese family name unsplit', () => {
    expect(readName('INOUE SATOSHI', 'japan')).toMatchObject({ first: 'SATOSHI', last: 'INOUE' });
    expect(readName('Oshiro Juliana Akemi', 'japan')).toMatchObject({ first: 'Juliana', last: 'Oshiro' });
    // The residence card's order for everyone: family name (with its particles), given name, middle name.
    expect(readName('DELA CRUZ MARICEL SANTOS', 'japan')).toMatchObject({ first: 'MARICEL', last: 'DELA CRUZ' });
    expect(readName('Hiroshi SATO', 'japan')).toMatchObject({ first: 'Hiroshi', last: 'SATO' });
    expect(readName('Minh NGUYEN', 'japan')).toMatchObject({ first: 'Minh', last: 'NGUYEN' });
    expect(readName('INOUE SATOSHI')).toMatchObject({ first: null, last: null, reason: expect.stringContaining('family name first') });
    expect(readName('Sato Hiroshi')).toMatchObject({ first: null, last: null });
    expect(readName('SATO Hiroshi')).toMatchObject({ first: 'Hiroshi', last: 'SATO' });
    expect(readName('Hiroshi Sato')).toMatchObject({ first: 'Hiroshi', last: 'Sato' });
  });

  it('reads a Brazilian given name of two words whole on a Portuguese-labelled report, and the last surname as the one in use', () => {
    expect(readName('ANA PAULA GOMES RODRIGUES', 'portuguese')).toMatchObject({ first: 'ANA PAULA', last: 'RODRIGUES' });
    expect(readName('João Pedro Ribeiro Magalhães', 'portuguese')).toMatchObject({ first: 'João Pedro', last: 'Magalhães' });
    expect(readName('RODRIGUES, ANA PAULA', 'portuguese')).toMatchObject({ first: 'ANA PAULA', last: 'RODRIGUES' });
    expect(readName('Beatriz Ribeiro Almeida', 'portuguese')).toMatchObject({ first: 'Beatriz', last: 'Almeida' });
    expect(readName('Ana Paula Souza')).toMatchObject({ first: 'Ana', last: 'Souza' });
    // Of three words, the first two one given name, the last the surname.
    expect(readName('Maria Eduarda Moreira', 'portuguese')).toMatchObject({ first: 'Maria Eduarda', last: 'Moreira' });
    // A Portuguese agnomen (`Neto`: grandson) after the surnames is no surname.
    expect(readName('Rafael Ribeiro Moreira Neto', 'portuguese')).toMatchObject({ first: 'Rafael', last: 'Moreira' });
    expect(readName('Rafael Santos Neto', 'portuguese')).toMatchObject({ first: 'Rafael', last: 'Santos' });
  });

  it('reads names as Brazil prints them on a report printed there in English (a certified translation: its CPF, CNES or São Paulo address)', () => {
    for (const printed of ['CPF: 846.470.695-24', 'Av. Paulista, 1500 - São Paulo/SP - CNES 2077485']) {
      const metadata = metadataOf(printed, 'Patient: Pedro Henrique Lima');
      expect([metadata.patient_first_name, metadata.patient_last_name]).toEqual(['Pedro Henrique', 'Lima']);
    }
    expect(metadataOf('Patient: Pedro Henrique Lima').patient_first_name).toBe('Pedro');
  });

  it('is less sure of a surname when there are middle words and no comma', () => {
    const read = readName('Maria Elena Garcia Lopez');
    expect(read).toMatchObject({ first: 'Maria', last: 'Lopez' });
    expect(read.confidence).toBeLessThan(0.95);
  });
});

describe('report header fields', () => {
  it('reads a labelled header: name, DOB, dates, accession, provider and CLIA, each with its confidence', () => {
    const m = metadataOf(
      'Harbor Reference Laboratories',
      'CLIA #: 05D0642827   Lab Director: A. Smith, MD',
      'Patient Name: Jane M. Doe   DOB: 03/14/1980   Sex: F',
      'Ordering Physician: Dr. Robert Chen, MD   NPI 1234567890',
      'Date Collected: 11/02/2026 08:15   Date Reported: 11/03/2026',
      'Accession #: A26-0001842',
    );
    expect(m).toMatchObject({
      patient_first_name: 'Jane',
      patient_last_name: 'Doe',
      dob: '1980-03-14',
      gender: 'female',
      lab_name: 'Harbor Reference Laboratories',
      lab_clia: '05D0642827',
      ordering_provider: 'Robert Chen',
      date_collected: '2026-11-02',
      date_reported: '2026-11-03',
      specimen_number: 'A26-0001842',
    });
    expect(m.confidence.dob).toEqual({ confidence: 0.97, reason: null });
    expect(m.confidence.lab_clia.confidence).toBeGreaterThan(0.9);
  });

  it.each([
    ['DOB: 1980-03-14', '1980-03-14'],
    ['Date of Birth: March 14, 1980', '1980-03-14'],
    ['Birth Date: 14-Mar-1980', '1980-03-14'],
    ['D.O.B.: 14.03.1980', '1980-03-14'],
    ['DOB: 3/14/1980', '1980-03-14'],
  ])('reads the date of birth in %s', (printed, dob) => {
    const m = metadataOf('Lab', 'Patient: DOE, JANE', printed);
    expect(m.dob).toBe(dob);
  });

  it('reads how a report from Japan, a Portuguese-labelled one and a VA print names, dates, accessions and doctors', () => {
    expect(
      metadataOf(
        'Hikarigaoka Health Check Center',
        'Tokyo 179-0072, Japan - Tel +81-3-5555-0123',
        'Examinee: INOUE SATOSHI',
        'Date of Exam: 2025.05.04   Date of Issue: 2025.05.19',
      ),
    ).toMatchObject({
      patient_first_name: 'SATOSHI',
      patient_last_name: 'INOUE',
      date_collected: '2025-05-04',
      date_reported: '2025-05-19',
    });
    // In Brazil the mother's surname comes before the father's: the surname in use is the last one.
    expect(
      metadataOf(
        'Laboratório Paulista',
        'Paciente / Patient: LARISSA GOMES RODRIGUES',
        'Idade / Age: 29 anos',
        'Médico / Physician: Fernanda Ribeiro - CRM-SP 98765',
        'Atendimento / Request no.: 5133040319',
      ),
    ).toMatchObject({ patient_first_name: 'LARISSA', patient_last_name: 'RODRIGUES', ordering_provider: 'Fernanda Ribeiro', specimen_number: '5133040319' });
    expect(
      metadataOf(
        'Palisades VA Medical Center',
        'Patient: DELGADO,DWAYNE DEAN',
        'DOB: MAY 15,1989',
        'Accession [UID]: CY 0719 50 [2520000050]',
        'Collection DT: JUL 19,2025@0800',
      ),
    ).toMatchObject({
      dob: '1989-05-15',
      specimen_number: 'CY 0719 50',
      date_collected: '2025-07-19',
    });
  });

  it('reads the legal name where a report prints the name the patient goes by first, and no preferred name', () => {
    expect(metadataOf('Lab', 'Name: Bobby Whitfield', 'Legal name: Robert J Whitfield')).toMatchObject({
      patient_first_name: 'Robert',
      patient_last_name: 'Whitfield',
    });
    expect(metadataOf('Lab', 'Preferred name: Bobby', 'Patient name: ROBERT J WHITFIELD')).toMatchObject({
      patient_first_name: 'ROBERT',
      patient_last_name: 'WHITFIELD',
    });
  });

  it('reads first and last name printed under their own labels, and a row of labels with values below', () => {
    expect(metadataOf('Lab', 'Last Name: Doe   First Name: Jane M')).toMatchObject({ patient_first_name: 'Jane', patient_last_name: 'Doe' });
    expect(metadataOf('Lab', 'Patient   DOB   Collected', 'SMITH, JOHN   07/04/1975   01/02/2026')).toMatchObject({
      patient_first_name: 'JOHN',
      patient_last_name: 'SMITH',
      dob: '1975-07-04',
      date_collected: '2026-01-02',
    });
  });

  it('knows the wording of labs it was not written against: requisitions, orders, samples taken and reports issued or resulted, referrers', () => {
    expect(
      metadataOf('Lab', 'Name of Patient: Jane DOE   Req #: R12345678', 'Sample Taken: 11/02/2026   Report Issued: 11/03/2026', 'Referrer: Dr Ann Lee'),
    ).toMatchObject({
      patient_last_name: 'DOE',
      specimen_number: 'R12345678',
      date_collected: '2026-11-02',
      date_reported: '2026-11-03',
      ordering_provider: 'Ann Lee',
    });
    expect(metadataOf('Lab', 'PATIENT NAME   LAB ACCESSION   RESULTED', 'DOE, JANE   PR-461035   2026-11-03')).toMatchObject({
      patient_first_name: 'JANE',
      specimen_number: 'PR-461035',
      date_reported: '2026-11-03',
    });
  });

  it('reads a small bold label OCR read with `rn` as `m` (`Bom` for `Born`)', () => {
    expect(metadataOf('Lab', 'Bom', '21 May 1952')).toMatchObject({ dob: '1952-05-21' });
  });

  it('says why a field is null instead of guessing', () => {
    const m = metadataOf('Lab', 'Patient: Madonna   DOB: unknown');
    expect(m).toMatchObject({ patient_first_name: null, patient_last_name: null, dob: null, specimen_number: null, lab_clia: null });
    expect(m.confidence.patient_last_name.reason).toContain('one name word');
    expect(m.confidence.dob.reason).toContain('no date');
    expect(m.confidence.specimen_number.reason).toContain('not printed');
  });

  it('trusts a day/month order only as far as the report shows it', () => {
    expect(metadataOf('Lab', 'Patient: Doe, Jane   DOB: 03/04/1980').confidence.dob).toMatchObject({
      confidence: 0.75,
      reason: expect.stringContaining('month first'),
    });
    const dayFirst = metadataOf('Lab', 'Patient: Doe, Jane   DOB: 03/04/1980', 'Collected: 25/11/2026');
    expect(dayFirst.dob).toBe('1980-04-03');
    expect(dayFirst.confidence.dob.confidence).toBe(0.97);
  });

  it('reads label and value cells of a bordered table, and a label run into its value', () => {
    expect(
      metadataOf(
        'Lab',
        'Patient Name   DOE, JANE   Date of Birth   Mar 14, 1980',
        'Accession No   KS-25-0456-7   Sex   Female',
        'Ordering Provider Robert Chen MD',
      ),
    ).toMatchObject({
      patient_first_name: 'JANE',
      patient_last_name: 'DOE',
      dob: '1980-03-14',
      specimen_number: 'KS-25-0456-7',
      gender: 'female',
      ordering_provider: 'Robert Chen',
    });
  });

  it("reads a letter: its date, the subject line's patient and birth date, the specimen sentence, the doctor it is addressed to", () => {
    const m = metadataOf(
      'Clinic Laboratory',
      '14 March 2025',
      'Dear Dr. Robert Chen,',
      'Re: Mrs Jane M. van der Berg, born 4 March 1980',
      'Specimen S-2025-00123, collected 12 March 2025.',
    );
    expect(m).toMatchObject({
      patient_first_name: 'Jane',
      patient_last_name: 'van der Berg',
      gender: 'female',
      dob: '1980-03-04',
      date_reported: '2025-03-14',
      date_collected: '2025-03-12',
      specimen_number: 'S-2025-00123',
      ordering_provider: 'Robert Chen',
    });
  });

  it('reads the provider as first and last name, whichever way it is printed', () => {
    // `DrRobert`: OCR dropped the space after the title.
    for (const printed of ['Dr. Robert Chen', 'CHEN, ROBERT MD', 'Robert Chen, MD', 'Dr. med. Robert Chen', 'DrRobert Chen', 'Dr.Robert Chen']) {
      expect(metadataOf('Lab', `Ordering Physician: ${printed}`).ordering_provider?.toLowerCase()).toBe('robert chen');
    }
  });

  it('takes day/month order from dotted dates, or from which order puts the report after the collection; never from a reference range', () => {
    expect(metadataOf('Lab', 'Patient: Doe, Jane   DOB: 03.04.1980').dob).toBe('1980-04-03');
    const plausible = metadataOf('Lab', 'Patient: Doe, Jane   DOB: 03/04/1980', 'Collected: 08/09/2025   Reported: 11/09/2025');
    expect(plausible).toMatchObject({ dob: '1980-04-03', date_collected: '2025-09-08', date_reported: '2025-09-11' });
    expect(plausible.confidence.dob.confidence).toBe(0.97);
    const ranged = metadataOf('Lab', 'Patient: Doe, Jane   DOB: 03/04/1980', 'Hemoglobin   15.1   g/dL   13.2-17.1');
    expect(ranged.dob).toBe('1980-03-04');
    expect(ranged.confidence.dob.confidence).toBe(0.75);
  });

  it('takes the order that puts the report days after the collection, not a month, when both orders put it after', () => {
    // 03/12 and 04/12: a day apart read day first, a month apart read month first.
    const dayFirst = metadataOf('Lab', 'Patient: Doe, Jane   DOB: 10/05/1961', 'Collected: 03/12/2025   Reported: 04/12/2025');
    expect(dayFirst).toMatchObject({ dob: '1961-05-10', date_collected: '2025-12-03', date_reported: '2025-12-04' });
    const monthFirst = metadataOf('Lab', 'Patient: Doe, Jane   DOB: 10/05/1961', 'Collected: 12/03/2025   Reported: 12/04/2025');
    expect(monthFirst).toMatchObject({ dob: '1961-10-05', date_collected: '2025-12-03', date_reported: '2025-12-04' });
  });

  it('drops a field read from OCR too poor to trust, with the reason', () => {
    const poor = lines('Lab', 'Patient: Doe, Jane');
    poor[1].confidence = 0.3;
    const m = parseMetadata(poor, 800);
    expect(m.patient_last_name).toBeNull();
    expect(m.confidence.patient_last_name.reason).toBe('too uncertain to report');
  });
});

/** The same lines as OCR gives them: each cell's words with a confidence (a text layer's have none). */
function ocrLines(...texts: string[]): Line[] {
  return lines(...texts).map((line) => ({
    ...line,
    cells: line.cells.map((cell) => ({
      ...cell,
      words: cell.text.split(' ').map((text, i) => ({ text, x: cell.x0 + i * 10, y: line.y, w: 8, h: 9, confidence: 0.9 })),
    })),
  }));
}
const ocrMetadataOf = (...texts: string[]) => parseMetadata(ocrLines(...texts), 800);

describe('the lab name on an OCR reading', () => {
  it('is not a line OCR was unsure of, however tall its garbled boxes', () => {
    const read = lines('Fjordvale Laboratory Medicine', 'Patient: Doe, Jane');
    const garbled: Line = { ...read[0], y: 40, height: 40, text: 'os Compl', cells: [{ text: 'os Compl', x0: 300, x1: 500, words: [] }], confidence: 0.15 };
    expect(parseMetadata([read[0], garbled, read[1]], 800).lab_name).toBe('Fjordvale Laboratory Medicine');
    expect(parseMetadata([read[0], { ...garbled, confidence: 0.9 }, read[1]], 800).lab_name).toBe('os Compl');
  });
});

describe("bold capitals OCR misread (a faxed report's Courier labels)", () => {
  it("reads a label with `T` read as `I'`, a word split or two run together, `O` read as `C`, `I` as `T`", () => {
    expect(ocrMetadataOf('Lab', "PATIENI'NAME: KUCERA, JAMES")).toMatchObject({ patient_first_name: 'JAMES', patient_last_name: 'KUCERA' });
    expect(ocrMetadataOf('Lab', "PATI ENI' NAME: DOE, JANE")).toMatchObject({ patient_first_name: 'JANE', patient_last_name: 'DOE' });
    expect(ocrMetadataOf('Lab', "PATTENI' NAME: DOE, JANE")).toMatchObject({ patient_first_name: 'JANE', patient_last_name: 'DOE' });
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   DATE CF BIRTH: 05/10/2001', 'OOLL DATE: 08/07/2025')).toMatchObject({
      dob: '2001-05-10',
      date_collected: '2025-08-07',
    });
  });

  it('leaves mixed case and `other` labels as they are', () => {
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   Date cf birth: 05/10/2001').dob).toBeNull();
    // `OC` is no label, and a value one letter from one (`CC`: a copied doctor) names no field.
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   OC: Dr. Ann Lee').ordering_provider).toBeNull();
  });

  it("reads a label OCR read without its colon beside labels read with theirs, on an OCR'd line", () => {
    expect(ocrMetadataOf('Lab', 'PATIENT NAME: KUCERA, JAMES   DATE CF BIRTH 05/10/2001')).toMatchObject({ patient_last_name: 'KUCERA', dob: '2001-05-10' });
  });

  it('reads a sex OCR misread by one letter, and no other word', () => {
    expect(ocrMetadataOf('Lab', 'Patient: Doe, John   SEX: Mle').gender).toBe('male');
    expect(ocrMetadataOf('Lab', 'Patient: Doe, John   SEX: Mile').gender).toBe('male');
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   SEX: Femle').gender).toBe('female');
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   SEX: Unknown').gender).toBeNull();
    expect(ocrMetadataOf('Lab', 'Patient: Doe, Jane   SEX: Mixed').gender).toBeNull();
  });

  it('reads a CLIA number whose bold `A` OCR lost, by its shape', () => {
    expect(ocrMetadataOf('Lab', 'CLI 38D9296628 - Medical Director: P. Engstrom, MD').lab_clia).toBe('38D9296628');
    expect(ocrMetadataOf('Lab', 'CLI A 38D9296628 - Medical Director: P. Engstrom, MD').lab_clia).toBe('38D9296628');
    expect(ocrMetadataOf('Lab', 'CLI 3800296628 - Medical Director: P. Engstrom, MD').lab_clia).toBeNull();
  });

  it('leaves the given name null, with the reason, where OCR split it after its first letter (`KUCERA, J AMES`), never `AMES`', () => {
    const m = ocrMetadataOf('Lab', 'PATIENT NAME: KUCERA, J AMES');
    expect(m).toMatchObject({ patient_first_name: null, patient_last_name: 'KUCERA' });
    expect(m.confidence.patient_first_name.reason).toContain('OCR may have split');
    // A text layer prints what it prints.
    expect(metadataOf('Lab', 'PATIENT NAME: KUCERA, J AMES').patient_last_name).toBe('KUCERA');
    // A middle initial after the given name is no split word.
    expect(ocrMetadataOf('Lab', 'PATIENT NAME: KUCERA, JAMES A').patient_first_name).toBe('JAMES');
    // An apostrophe OCR lost (`O'ROURKE` read `O ROURKE`): the surname null, the given name read.
    const lost = ocrMetadataOf('Lab', 'PATIENT NAME: O ROURKE, TAMARA');
    expect(lost).toMatchObject({ patient_first_name: 'TAMARA', patient_last_name: null });
    expect(lost.confidence.patient_last_name.reason).toContain('apostrophe');
  });
});

describe('layouts no rule was written against (issue #43)', () => {
  it('knows a label by its words: a surname-then-given-names label, validated/authorised dates, draw dates, any … Physician, lab numbers', () => {
    expect(
      metadataOf(
        'Lab',
        'Last name, given name: GARCIA, LUIS   Draw date: 2026-02-08',
        'Treating Physician: Dr. Omar Haddad   Authorised: 2026-02-10',
        'Requisition ID: RQ-55812   Arrival date: 2026-02-09',
      ),
    ).toMatchObject({
      patient_first_name: 'LUIS',
      patient_last_name: 'GARCIA',
      date_collected: '2026-02-08',
      date_reported: '2026-02-10',
      ordering_provider: 'Omar Haddad',
      specimen_number: 'RQ-55812',
    });
  });

  it("reads a colon printed in a column of its own, or at the head of the value, as its label's: never as the value", () => {
    const expected = { patient_first_name: 'JANE', patient_last_name: 'DOE', date_collected: '2026-02-11', specimen_number: 'A7-554201' };
    expect(metadataOf('Lab', 'Accession No   :   A7-554201', 'Patient   :   DOE, JANE', 'Collected   :   02/11/2026')).toMatchObject(expected);
    expect(metadataOf('Lab', 'Accession No   : A7-554201', 'Patient   : DOE, JANE', 'Collected   : 02/11/2026')).toMatchObject(expected);
  });

  it('does not take a table header or a lab director for a label', () => {
    expect(metadataCellKind('Tests Ordered')).toBeNull();
    expect(metadataCellKind('Result')).toBeNull();
    expect(metadataOf('Lab', 'Medical Director: Dr. Ada Stone').ordering_provider).toBeNull();
  });

  it('reads bare labels by the column their values align in, a one-word label and labels no list holds among them', () => {
    const m = metadataOf(
      'Lab',
      'Patient   MORALES, ANA LUCIA',
      'Client ref   LX-4471',
      'Specimen taken   02/11/2026',
      'Validated on   02/12/2026',
      'Ward   3B',
    );
    expect(m).toMatchObject({
      patient_first_name: 'ANA',
      patient_last_name: 'MORALES',
      date_collected: '2026-02-11',
      date_reported: '2026-02-12',
      specimen_number: null,
    });
  });

  it('parts a label from its value at the value column when they print too close to be two cells', () => {
    const word = (text: string, x: number) => ({ text, x, y: 0, w: text.length * 5, h: 9, confidence: null });
    // `Family name, given name` ends 5 points before its value: one cell (a ward beside it, so no label run into a line's only value).
    // Cells as the layout step makes them: words parted by a wide gap start a new one.
    const line = (y: number, ...words: ReturnType<typeof word>[]): Line => {
      const cells = words.reduce<Line['cells']>((into, w) => {
        const last = into[into.length - 1];
        if (last && w.x - last.x1 < 12) Object.assign(last, { text: `${last.text} ${w.text}`, x1: w.x + w.w, words: [...last.words, w] });
        else into.push({ text: w.text, x0: w.x, x1: w.x + w.w, words: [w] });
        return into;
      }, []);
      return { page: 0, y, height: 9, cells, text: cells.map((c) => c.text).join('   '), confidence: 1 };
    };
    const m = parseMetadata(
      [
        { page: 0, y: 10, height: 16, cells: [{ text: 'Lab', x0: 0, x1: 20, words: [] }], text: 'Lab', confidence: 1 },
        line(
          30,
          word('Family', 0),
          word('name,', 33),
          word('given', 63),
          word('name', 93),
          word('Lindqvist,', 118),
          word('Eva', 170),
          word('Ward', 250),
          word('4E', 300),
        ),
        line(42, word('Sex', 0), word('F', 118)),
        line(54, word('Date', 0), word('of', 25), word('birth', 38), word('30.07.1961', 118)),
      ],
      800,
    );
    expect(m).toMatchObject({ patient_first_name: 'Eva', patient_last_name: 'Lindqvist', gender: 'female', dob: '1961-07-30' });
  });

  it('reads a letter: the doctor it is for, the patient by a name followed by a birth date, the date results were authorised', () => {
    const m = metadataOf(
      'Northfield Pathology',
      'Attn: Dr Priya Raman, MD',
      'Chen, Wei Ming (DOB 1961-07-30)',
      'Hi Dr. Raman,',
      'Sample no. NP/26/04411 received with thanks.',
      'Results authorised 14 February 2026 by the duty biochemist.',
    );
    expect(m).toMatchObject({
      patient_first_name: 'Wei Ming', // a Chinese given name of two syllables is one name
      patient_last_name: 'Chen',
      dob: '1961-07-30',
      ordering_provider: 'Priya Raman',
      specimen_number: 'NP/26/04411',
      date_reported: '2026-02-14',
    });
  });

  it('takes a letter addressed to Mr or Ms as to the patient, and a name with its age and birth date as the patient', () => {
    expect(metadataOf('Lab', 'To: Mr. Tomasz Nowak', 'Your sample of 3 May 2026 was tested.')).toMatchObject({
      patient_first_name: 'Tomasz',
      patient_last_name: 'Nowak',
      gender: 'male',
    });
    expect(metadataOf('Lab', 'Tomasz Nowak, aged 64, DOB 03.05.1961')).toMatchObject({
      patient_first_name: 'Tomasz',
      patient_last_name: 'Nowak',
      dob: '1961-05-03',
    });
    // A doctor's name with a date is no patient line.
    expect(metadataOf('Lab', 'Dr. Alan Moss, born 1950-01-01').patient_last_name).toBeNull();
  });

  it('leaves the provider null when only a salutation names a doctor, and by surname only', () => {
    const m = metadataOf('Lab', 'Re: Ms Ana Silva', 'Dear Dr. Okafor,');
    expect(m.ordering_provider).toBeNull();
    expect(m.confidence.ordering_provider.reason).toContain('salutation');
  });

  it('reads a first-name label over "LAST, FIRST" as both names, not the surname as the first', () => {
    expect(metadataOf('Lab', 'First name: Lindqvist, Eva')).toMatchObject({ patient_first_name: 'Eva', patient_last_name: 'Lindqvist' });
  });

  it('takes no date from a report-date label over a heading', () => {
    const m = metadataOf('Lab', 'Final report', 'Haematology');
    expect(m.date_reported).toBeNull();
  });
});

describe('reports of Britain, India and Québec (the tenth independent set)', () => {
  it('reads a British report day first, and a birth date by the age printed beside it', () => {
    expect(
      metadataOf('Kingsmead Hospitals NHS Foundation Trust', 'Forename(s):   Aisha Grace', 'Surname:   ASHWORTH', 'Date of birth:   10/03/1963'),
    ).toMatchObject({
      patient_first_name: 'Aisha',
      patient_last_name: 'ASHWORTH',
      dob: '1963-03-10',
    });
    // 12 January: 1 December 1957 would be 67 on 27 February 2025.
    const aged = metadataOf(
      'Moorside Family Practice',
      'Patient:   FEATHERSTONE, Chloe Jane',
      'Born:   12/01/1957 (68y)',
      'Sample collected:   27 Feb 2025 09:22',
    );
    expect(aged).toMatchObject({ dob: '1957-01-12' });
    expect(aged.confidence.dob.reason).toBeNull();
    // With no age and nothing else to go by, still month first, with the doubt said.
    expect(metadataOf('Lab', 'Patient:   DOE, JANE', 'DOB:   12/01/1957').confidence.dob.reason).toContain('month first');
  });

  it('reads a French birth date, a Québec name whose parts have labels of their own, and a woman doctor’s title', () => {
    expect(
      metadataOf(
        'Hôpital Mont-Royal - Laboratoire',
        'Nom / Name:   Lévesque-Tremblay',
        'Prénom / First name:   Élise',
        'Date de naissance / Date of birth:   6 juillet 1976',
        'Médecin / Physician:   Dre Isabelle Gagnon',
      ),
    ).toMatchObject({ patient_first_name: 'Élise', patient_last_name: 'Lévesque-Tremblay', dob: '1976-07-06', ordering_provider: 'Isabelle Gagnon' });
    // `Nom/Name` over a whole name (New Brunswick) is still the whole name.
    expect(metadataOf('Laboratoires Val-des-Pins', 'Nom/Name:   LEBLANC, LUC DANIEL')).toMatchObject({
      patient_first_name: 'LUC',
      patient_last_name: 'LEBLANC',
    });
  });

  it('reads an Indian referring doctor with his degrees after his name', () => {
    expect(metadataOf('Sanjeevani Diagnostics', 'Ref. By Dr. :   Dr. Vivek Malhotra, MD, DM')).toMatchObject({ ordering_provider: 'Vivek Malhotra' });
  });
});

describe('a results panel’s heading beside a name label', () => {
  it('is no name (OCR joined a sidebar’s `Nom / Name` with the table heading on its line)', () => {
    const read = metadataOf('Hôpital Mont-Royal', 'Nom / Name:   Cardiac Risk Markers');
    expect(read).toMatchObject({ patient_first_name: null, patient_last_name: null });
    expect(read.confidence.patient_first_name.reason).toContain('no word of a name');
  });
});

describe('reports of the Netherlands, Korea and a US dialysis lab (the eleventh independent set)', () => {
  it('reads Dutch names: initials are no given name, the particles filed after them are the surname’s, the name used in brackets', () => {
    expect(readName('Groot, S.A.M. de')).toMatchObject({ first: null, last: 'de Groot', reason: expect.stringContaining('initials') });
    expect(readName('MEER, J.P. VAN DER')).toMatchObject({ first: null, last: 'VAN DER MEER' });
    expect(readName('Mevr. I. Kuijpers-Hendriks')).toMatchObject({ first: null, last: 'Kuijpers-Hendriks' });
    expect(readName('J.P. van der Meer')).toMatchObject({ first: null, last: 'van der Meer' });
    expect(readName('Cruz, Juan de la')).toMatchObject({ first: 'Juan', last: 'de la Cruz' });
    // A lone capital without its stop may be a bold word OCR split (`J AMES`): no surname from it.
    expect(readName('J Smith')).toMatchObject({ first: null, last: null });
    expect(metadataOf('Noordwaard Ziekenhuis', 'Naam / Name:   BROUWER, C.A. (KEES)')).toMatchObject({
      patient_first_name: 'KEES',
      patient_last_name: 'BROUWER',
    });
    expect(metadataOf('Noordwaard Ziekenhuis', 'Naam / Name:   JONG, J.J.J. DE (JOOST)')).toMatchObject({
      patient_first_name: 'JOOST',
      patient_last_name: 'DE JONG',
    });
    // Initials under the name label, the given name under its own.
    expect(metadataOf('Noordwaard Ziekenhuis', 'Naam / Name:   Groot, S.A.M. de', 'Roepnaam / First name:   Sanne')).toMatchObject({
      patient_first_name: 'Sanne',
      patient_last_name: 'de Groot',
    });
  });

  it('reads a Dutch sex and honorific, and a doctor’s specialty after the name', () => {
    expect(metadataOf('Noordwaard Ziekenhuis', 'Geslacht / Sex:   Vrouw')).toMatchObject({ gender: 'female' });
    expect(metadataOf('Noordwaard Ziekenhuis', 'Geslacht:   V')).toMatchObject({ gender: 'female' });
    // `V` in Spanish is `varón`: not read as female there.
    expect(metadataOf('Laboratorio Clínico', 'Sexo:   V').gender).not.toBe('female');
    expect(metadataOf('Noordwaard Ziekenhuis', 'Naam / Name:   Mevr. I. Kuijpers-Hendriks')).toMatchObject({ gender: 'female', patient_first_name: null });
    expect(metadataOf('Noordwaard Ziekenhuis', 'Arts / Doctor:   Bart van Beek, MDL-arts')).toMatchObject({ ordering_provider: 'Bart van Beek' });
    expect(metadataOf('Noordwaard Ziekenhuis', 'Aanvrager:   Boer, Kees de (huisarts)')).toMatchObject({ ordering_provider: 'Kees de Boer' });
  });

  it('reads Italian names surname first where the label or the registry’s capitals say so, and every given name under `Nome`', () => {
    const italian = (...texts: string[]) => metadataOf('Ospedale Santa Chiara', 'Codice fiscale / Tax code:   RSSMRT66T61G388K', ...texts);
    expect(italian('Cognome e nome / Patient:   ROSSI MARIA TERESA')).toMatchObject({ patient_first_name: 'MARIA TERESA', patient_last_name: 'ROSSI' });
    expect(italian('Paziente / Patient:   Sig. DE LUCA ANTONIO')).toMatchObject({ patient_first_name: 'ANTONIO', patient_last_name: 'DE LUCA' });
    expect(italian('Cognome / Surname:   MANCINI', 'Nome / First name:   MARIA TERESA')).toMatchObject({
      patient_first_name: 'MARIA TERESA',
      patient_last_name: 'MANCINI',
    });
    expect(italian('Sesso / Sex:   Femminile / Female', 'Medico / Requesting doctor:   Dott.ssa Silvia Marchetti')).toMatchObject({
      gender: 'female',
      ordering_provider: 'Silvia Marchetti',
    });
    // The family doctor is not who asked for the tests; `Accesso diretto` (walked in) names no doctor.
    expect(italian('Richiedente / Physician:   Accesso diretto', 'Curante / Family doctor:   Dott. Enzo Carbone').ordering_provider).toBeNull();
    // Outside Italy a name in capitals keeps the order it is printed in.
    expect(metadataOf('Lab', 'Patient:   JOHN MICHAEL SMITH')).toMatchObject({ patient_first_name: 'JOHN', patient_last_name: 'SMITH' });
  });

  it('puts a two-digit birth year after the report’s own date into the century before, and takes no rank for a given name', () => {
    expect(metadataOf('DOB:   12/15/45', 'Collected:   03/04/2025').dob).toBe('1945-12-15');
    expect(metadataOf('DOB:   12/15/05', 'Collected:   03/04/2025').dob).toBe('2005-12-15');
    expect(metadataOf('Patient:   Capt Tevita Fifita')).toMatchObject({ patient_first_name: 'Tevita', patient_last_name: 'Fifita' });
  });

  it('reads an Italian report’s labels printed in Italian alone, and its dates day first by its `.it` address', () => {
    const metadata = metadataOf(
      'Viale dei Mille 19, 27029 Vigevano (PV) - laboratorio@santachiara-lomellina.example.it',
      'Nato il / Born:   05-08-1997',
      'N. accettaz.:   250708/4051',
      'Prelievo:   08-07-2025 08:17',
      'Accettazione:   08-07-2025 11:36',
      'Referto:   09-07-2025 18:00',
    );
    expect(metadata).toMatchObject({ dob: '1997-08-05', specimen_number: '250708/4051', date_collected: '2025-07-08', date_reported: '2025-07-09' });
    // Its accession number printed in both languages, the English half (`Acc. no.`) one some labs use for another number.
    expect(metadataOf('Ospedale', 'N. accettazione / Acc. no.:   0844460040').specimen_number).toBe('0844460040');
  });

  it('reads Turkish given and family names, a sex of K or E, and a specialist’s titles', () => {
    const turkish = (...texts: string[]) => metadataOf('Kordon University Hospital', 'Cinsiyet / Sex:   K', ...texts);
    expect(turkish('Adı / Name:   BÜŞRA', 'Soyadı / Surname:   ŞAHİN')).toMatchObject({
      patient_first_name: 'BÜŞRA',
      patient_last_name: 'ŞAHİN',
      gender: 'female',
    });
    expect(turkish('Adı Soyadı / Full name:   Burak Ali YILDIZ')).toMatchObject({ patient_first_name: 'Burak Ali', patient_last_name: 'YILDIZ' });
    expect(turkish('Hekim / Physician:   Doç. Dr. Kerem Güneş').ordering_provider).toBe('Kerem Güneş');
    expect(metadataOf('Lab', 'Cinsiyet / Sex:   E').gender).toBe('male');
    // Elsewhere a `K` says nothing of the sex.
    expect(metadataOf('Lab', 'Sex:   K').gender).toBeNull();
  });

  it('reads labels and conventions as OCR reads them without their accents, and `Born` read as `Bom` in either half of a label', () => {
    expect(metadataOf('Song Huong International Hospital', 'Ho va tén / Name:   HOANG THANH MAI')).toMatchObject({
      patient_first_name: 'MAI',
      patient_last_name: 'HOANG',
    });
    expect(metadataOf('Kordon University Hospital', 'Cinsiyet / Sex:   K', 'Adi Soyadi:   Ayse Nur KAYA')).toMatchObject({
      patient_first_name: 'Ayse Nur',
      patient_last_name: 'KAYA',
    });
    expect(metadataOf('Ospedale', 'Nato/a il /Bom on:   16/12/1952').dob).toBe('1952-12-16');
    // A label of no field read may open a row of label and value pairs.
    expect(metadataOf('Kordon University Hospital', 'T.C. Kimlik No   476******94   Hekim / Physician   Uzm. Dr. Hakan Polat').ordering_provider).toBe(
      'Hakan Polat',
    );
  });

  it('reads a Polish name under `Nazwisko i imię` surname first, `lek.` as a title, a Greek sex, a Mexican name with both surnames first and its folio', () => {
    expect(
      metadataOf('Laboratorium Wislana', 'Nazwisko i imię / Name:   WISNIEWSKI ANDRZEJ', 'Lekarz kierujący / Referring physician:   lek. med. Jerzy Baran'),
    ).toMatchObject({
      patient_first_name: 'ANDRZEJ',
      patient_last_name: 'WISNIEWSKI',
      ordering_provider: 'Jerzy Baran',
    });
    expect(metadataOf('Akropolis', 'Φύλο / Sex:   Άρρεν').gender).toBe('male');
    // Greek: a name printed in both scripts is read in its Latin letters; in capitals, surname first.
    expect(metadataOf('Akropolis', 'Επώνυμο / Surname:   ΠΑΠΑΔΑΚΗΣ / PAPADAKIS', 'Όνομα / Name:   ΒΑΣΙΛΕΙΟΣ / VASILEIOS')).toMatchObject({
      patient_first_name: 'VASILEIOS',
      patient_last_name: 'PAPADAKIS',
    });
    // OCR's reading of Greek capitals whose every letter looks Latin (`ΒΑΣΙΛΕΙΟΣ` as `BAZIAEIOZ`).
    expect(metadataOf('Akropolis', 'Επώνυμο / Surname:   ΠΑΠΑΔΑΚΗΣ / PAPADAKIS', 'Όνομα / Name:   BAZIAEIOZ / VASILEIOS').patient_first_name).toBe('VASILEIOS');
    expect(metadataOf('Akropolis', 'Ονοματεπώνυμο / Full name:   ΑΝΤΩΝΙΟΥ ΑΙΚΑΤΕΡΙΝΗ / ANTONIOU AIKATERINI')).toMatchObject({
      patient_first_name: 'AIKATERINI',
      patient_last_name: 'ANTONIOU',
    });
    const mexican = metadataOf(
      'Laboratorio Clínico Bajamar',
      'Paciente / Patient:   Ibarra Hernández Ana Lucía',
      'CURP:   IAHJ731209HBCBRS82',
      'Folio:   28-586548',
      'Convenio / Plan:   GNP Seguros',
    );
    expect(mexican).toMatchObject({ patient_first_name: 'Ana Lucía', patient_last_name: 'Ibarra Hernández', specimen_number: '28-586548' });
    // Given names first, as before (`María Isabel Torres Ortiz`).
    expect(metadataOf('Laboratorio Clínico', 'Paciente / Patient:   María Isabel Torres Ortiz')).toMatchObject({
      patient_first_name: 'María',
      patient_last_name: 'Torres Ortiz',
    });
  });

  it('reads a Vietnamese name family name first, the given name last, for patient and doctor', () => {
    const vietnamese = metadataOf(
      'Song Huong International Hospital',
      'Họ và tên / Name:   HOANG THANH MAI',
      'Giới tính / Sex:   Nữ',
      'Bác sĩ / Physician:   BS. Tran Quang Minh',
    );
    expect(vietnamese).toMatchObject({ patient_first_name: 'MAI', patient_last_name: 'HOANG', gender: 'female', ordering_provider: 'Minh Tran' });
  });

  it('reads a Korean name in the Western order, a doctor’s family name in capitals first, and an attending nephrologist', () => {
    const korean = metadataOf(
      'Hanbit University Hospital',
      '88 Hanbit-ro, Seocho-gu, Seoul 06591, Republic of Korea',
      'Name:   Sung Min Hwang',
      'Ordering Physician:   LEE Seo-yeon',
    );
    expect(korean).toMatchObject({ patient_first_name: 'Sung Min', patient_last_name: 'Hwang', ordering_provider: 'Seo-yeon LEE' });
    // Elsewhere the middle word is a middle name, as before.
    expect(metadataOf('Lab', 'Name:   Sung Min Hwang')).toMatchObject({ patient_first_name: 'Sung', patient_last_name: 'Hwang' });
    // All in capitals, a Korean family name first: printed family name first there (not elsewhere).
    const inKorea = (name: string) => metadataOf('Hanbit University Hospital', 'Seoul 06591, Republic of Korea', `Name:   ${name}`);
    expect(inKorea('CHO HYUN-WOO')).toMatchObject({ patient_first_name: 'HYUN-WOO', patient_last_name: 'CHO' });
    expect(inKorea('KIM MIN JUN')).toMatchObject({ patient_first_name: 'MIN JUN', patient_last_name: 'KIM' });
    // Both ends a Korean family name (`LEE SEO YOON`): which is which, the report does not say.
    expect(inKorea('LEE SEO YOON')).toMatchObject({ patient_first_name: null, patient_last_name: null });
    expect(metadataOf('Lab', 'Name:   CHO HYUN-WOO').patient_last_name).not.toBe('CHO');
    expect(metadataOf('Cedarline Renal Laboratories', 'Attending Nephrologist:   Kwabena Asante, MD, FASN')).toMatchObject({
      ordering_provider: 'Kwabena Asante',
    });
    // A degree printed with its stops is no initials.
    expect(metadataOf('Hikarigaoka Clinic', 'Physician:   TANAKA Kenji, M.D.')).toMatchObject({ ordering_provider: 'Kenji TANAKA' });
  });
});
