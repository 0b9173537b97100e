import { dateOrder, type DateField, readDate } from './date-order';
import { parseDate, twoDigitYear } from './dates';
import { lineContext } from './label-grid';
import { inTwoLanguages, namedByNarrowMs, nationalIdScheme, withoutAccents } from './labels';
import { pairsOf } from './label-pairs';
import { ocrRead, type Line } from './layout';
import { givenName, readName, surname, withoutSplitWords } from './names';
import { nameShaped, splitNameValue } from './name-values';
import { isDoctor, providerName } from './providers';
import { honorificSex, misreadSex, parseSex } from './sex';
import { ALL_GIVEN_NAMES, inLatinLetters, nameConvention } from './name-conventions';
import { curpGivenName, curpNameLetters, type NationalIdScheme, readNationalId } from './national-ids';
import { CLIA, labName } from './lab-name';
import { DATE_ONLY, PATIENT_SALUTATION, patientBanner, PROSE, PROSE_DOB, SALUTATION } from './metadata-text';
import { withoutOtherPeoplesBlocks } from './other-people';
import { rowsCollectionDate } from './row-dates';
import type { MetadataField, ReportMetadata } from './types';

/** How sure the parser is of each metadata field, and why one it left null is null. */
export type MetadataConfidence = Record<MetadataField, { confidence: number; reason: string | null }>;

/** A label, then a name in capitals printed `SURNAME,GIVEN` and maybe a middle name or initial. */
const LABELLED_SURNAME_FIRST = /:\s*[A-Z][A-Z'-]+,\s?[A-Z][A-Z'-]+(?:\s[A-Z][A-Z'-]*\.?)?\s*$/;

/** Patient, dates, specimen, provider and CLIA from the report's labelled fields; the lab's name from its masthead. */
export function parseMetadata(printed: Line[], firstPageHeight: number): ReportMetadata {
  // A guardian's or next of kin's block names someone other than the patient (other-people.ts).
  const lines = withoutOtherPeoplesBlocks(printed);
  const notes: Partial<Record<MetadataField, { confidence: number; reason: string | null }>> = {};
  // The surest reading of a field counts (a label may appear twice, once unreadable).
  const note = (field: MetadataField, confidence: number, reason: string | null = null) => {
    if (!notes[field] || notes[field].confidence < confidence) notes[field] = { confidence, reason };
  };
  const firstPage = lines.filter((l) => l.page === 0);
  const metadata: Omit<ReportMetadata, 'confidence'> = {
    patient_first_name: null,
    patient_last_name: null,
    dob: null,
    gender: null,
    lab_name: labName(firstPage, firstPageHeight, MIN_CONFIDENCE),
    lab_clia: null,
    ordering_provider: null,
    date_reported: null,
    date_collected: null,
    specimen_number: null,
  };
  // Dates are read once all are found: the order of day and month may show only in their company.
  const dates: Partial<Record<DateField, { text: string; ocr: number; confidence: number }>> = {};
  const date = (field: DateField, text: string, ocr: number, confidence = 1) => {
    if (!dates[field] && (parseDate(text, 'month_first') ?? parseDate(text, 'day_first')) !== null) dates[field] = { text, ocr, confidence };
    else if (!dates[field]) note(field, 0, `no date in "${text.slice(0, 40)}"`);
  };
  // A report printing its labels in two languages may name its patients by another convention
  // than middle names between the given name and the surname (two surnames).
  const bilingual = firstPage.some((l) => l.cells.some((c) => inTwoLanguages(c.text.split(':')[0])));
  const convention = nameConvention(firstPage, bilingual);
  // Labelled in Dutch (`Geslacht`): a sex of `V` is `vrouw`, female (in Spanish, `varón`: male).
  const dutch = firstPage.some((l) => /\bgeslacht\b/i.test(l.text));
  // Labelled in Turkish (`Cinsiyet`): `K` is `kadın`, female, and `E` is `erkek`, male.
  const turkish = convention === 'turkey';
  // Printed in Greece, `Θ` is `θήλυ`, female, and `Α` is `άρρεν`, male.
  const greek = convention === 'greece';
  const letterSex = (value: string): 'male' | 'female' | null => {
    const letter = value.trim().toLowerCase();
    if (dutch && letter === 'v') return 'female';
    if (turkish && letter === 'k') return 'female';
    if (turkish && letter === 'e') return 'male';
    if (greek && letter === 'θ') return 'female';
    if (greek && letter === 'α') return 'male';
    return null;
  };
  // Another name printed in capitals surname first after its label (VistA's `Provider: YBARRA,ROBERTO`):
  // the report files names so, and a patient name in capitals OCR read without its comma is read so too.
  const namesSurnameFirst = firstPage.some((l) => l.cells.some((c) => LABELLED_SURNAME_FIRST.test(c.text)));
  const commaLost = (printed: string) => namesSurnameFirst && !printed.includes(',') && printed === printed.toUpperCase();
  let honorific: 'male' | 'female' | null = null;
  /** A patient name value; what the line prints after the name (`- DOB 1/2/1980 - F`) is read for the birth date and sex. */
  const name = (value: string, ocr: number, confidence = 1, fromOcr = false, surnameFirst = false) => {
    if (metadata.patient_last_name !== null) {
      givenNamesAfterSurname(value, ocr * confidence);
      return;
    }
    const { name: printed, rest } = splitNameValue(value);
    const lost = fromOcr && !surnameFirst && commaLost(printed);
    const asRead = fromOcr ? withoutSplitWords(readName(printed, convention, surnameFirst || lost), printed) : readName(printed, convention, surnameFirst);
    const read = lost && asRead.last ? { ...asRead, reason: 'surname first, as the report prints its other names (OCR lost the comma)' } : asRead;
    [metadata.patient_first_name, metadata.patient_last_name] = [read.first, read.last];
    note('patient_first_name', read.first ? read.confidence * ocr * confidence : 0, read.reason);
    note('patient_last_name', read.last ? read.confidence * ocr * confidence : 0, read.reason);
    honorific ??= honorificSex(printed) ?? (rest ? parseSex(rest.replace(/\b(dob|d\.o\.b)\b/gi, '')) : null);
    if (rest) prose(rest, ocr);
  };
  /**
   * `Surname: PRETORIUS` then `Name(s): Anneke`: a name printed after the surname's own label, and
   * without it, is the given names (a value that repeats the surname is a whole name, read already).
   */
  const givenNamesAfterSurname = (value: string, ocr: number) => {
    const last = metadata.patient_last_name;
    if (metadata.patient_first_name !== null || last === null || value.toLowerCase().includes(last.toLowerCase())) return;
    metadata.patient_first_name = givenName(splitNameValue(value).name, ALL_GIVEN_NAMES.includes(convention));
    if (metadata.patient_first_name) note('patient_first_name', 0.95 * ocr);
  };
  let salutation: string | null = null;
  const specimen = (value: string, ocr: number) => {
    if (metadata.specimen_number !== null || !/\d/.test(value)) return;
    // `CH 0312 45`, `CH 1022 9`: an accession printed as a short area code and groups of digits is one number;
    // so is a blood donation's ISBT 128 number (`W0432 25 299976`: the collecting facility, the year, a serial).
    const grouped = /^(?:[A-Z]{1,3}|[A-Z]\d{4})(?: \d{2,6})(?: \d{1,6}){0,2}(?=\s|$)/.exec(value.trim());
    metadata.specimen_number = grouped ? grouped[0] : value.split(/\s+/)[0].replace(/[.,;]$/, '');
    note('specimen_number', 0.9 * ocr);
  };
  /** Values under `Print Date`: the date reported only when nothing else labels one. */
  const fallbackReported: { value: string; ocr: number }[] = [];
  /** Values under `Acc No`, `Order #`, `Control No`: the specimen's only when nothing else labels one (labels.ts says why). */
  const fallbackSpecimens: { value: string; ocr: number }[] = [];
  /**
   * Values under `Sender` (labels.ts says why) and a letter's or fax's doctor addressee (`Attn: Dr. …`,
   * who may be a copied physician): the provider's only when no doctor's label is printed.
   */
  const fallbackProviders: { value: string; ocr: number }[] = [];
  /** Personal identity numbers that carry the birth date (and the sex), for a report that prints neither otherwise. */
  const nationalIds: { value: string; scheme: NationalIdScheme; ocr: number }[] = [];
  const provider = (value: string, ocr: number) => {
    if (metadata.ordering_provider !== null) return;
    metadata.ordering_provider = providerName(value, convention);
    if (metadata.ordering_provider) note('ordering_provider', 0.9 * ocr);
  };
  /**
   * Patients named by a letter's or a fax's subject (`Re:`) or addressee (`To: Ms …`): read only
   * when no label names one, as a transmittal's `Re:` may say anything (`Re: Lab results - DOE, JANE`).
   */
  const addressed: { value: string; ocr: number }[] = [];
  /** Values of one name word under a name label (`Nom / Name: Bouchard`). */
  const loneNames: { value: string; ocr: number }[] = [];
  /** Values under `Legal name`: the first is read in place of any other patient name. */
  const legalNames: { value: string; ocr: number }[] = [];
  /** Values under a second surname's own label (`Apellido materno`). */
  const secondSurnames: string[] = [];
  /** Values under a surname's particles' own label (`Voorvoegsel`). */
  const surnamePrefixes: string[] = [];
  /** Lines read as the value under a label. */
  const values = new Set<Line>();
  const context = lineContext(lines);
  lines.forEach((line, i) => {
    // OCR confidence of the line lowers a field's only when poor: most good scans read 0.7-0.9.
    const lineOcr = Math.min(1, line.confidence / OCR_TRUSTED);
    for (const { field, value: printedValue, below, confidence } of pairsOf(line, lines[i + 1], context)) {
      const value = inLatinLetters(printedValue);
      if (!value) continue;
      // A value printed under its label is as well read as its own words.
      const ocr = confidence === undefined ? lineOcr : Math.min(1, confidence / OCR_TRUSTED);
      if (below) values.add(lines[i + 1]);
      if (field === 'name' || field === 'name_surname_first') {
        if (oneNameWord(value)) loneNames.push({ value, ocr });
        // OCR read the label's m as n (`Patient Nane`): it may have read the name's so too (`Kwane`).
        if (ocrRead(line) && /n/i.test(value) && line.cells.some((c) => namedByNarrowMs(c.text.split(':')[0]))) {
          const reason = `OCR read m as n in the name's label; the name may be misread too: "${value.slice(0, 40)}"`;
          note('patient_first_name', 0, reason);
          note('patient_last_name', 0, reason);
          continue;
        }
        name(value, ocr, 1, ocrRead(below ? (lines[i + 1] ?? line) : line), field === 'name_surname_first');
      } else if (field === 'legal_name') legalNames.push({ value, ocr });
      // A letter's subject line: `Re: Mr John A. Smith, born 4 March 1980`.
      else if (field === 'subject') addressed.push({ value, ocr });
      // A letter to a doctor is to the one who asked for the tests; one to Mr or Ms Doe, to the patient.
      else if (field === 'addressee') {
        if (isDoctor(value)) fallbackProviders.push({ value, ocr });
        else if (honorificSex(value)) addressed.push({ value, ocr });
        // A `LAST, FIRST` value under a label of one part of the name (`Nom/Name: LEBLANC, LUC`): the whole name.
      } else if ((field === 'first' || field === 'last') && value.includes(',') && metadata.patient_last_name === null) name(value, ocr, 0.95);
      else if (field === 'first' && metadata.patient_first_name === null) {
        metadata.patient_first_name = givenName(value, ALL_GIVEN_NAMES.includes(convention));
        note('patient_first_name', (metadata.patient_first_name ? 0.95 : 0) * ocr, metadata.patient_first_name ? null : `no name in "${value}"`);
      } else if (field === 'last' && metadata.patient_last_name === null) {
        metadata.patient_last_name = surname(value);
        note('patient_last_name', (metadata.patient_last_name ? 0.95 : 0) * ocr, metadata.patient_last_name ? null : `no name in "${value}"`);
      } else if (field === 'second_surname') secondSurnames.push(value);
      else if (field === 'surname_prefix') surnamePrefixes.push(value.trim());
      else if (field === 'dob') date('dob', value, ocr);
      else if (field === 'sex') metadata.gender ??= parseSex(value) ?? misreadSex(value) ?? letterSex(value);
      else if (field === 'age_sex') metadata.gender ??= parseSex(value);
      else if (field === 'dob_age_sex') {
        date('dob', value, ocr);
        metadata.gender ??= parseSex(value);
      } else if (field === 'collected') date('date_collected', value, ocr);
      else if (field === 'reported') date('date_reported', value, ocr);
      else if (field === 'reported_fallback') fallbackReported.push({ value, ocr });
      else if (field === 'specimen') specimen(value, ocr);
      else if (field === 'specimen_fallback') fallbackSpecimens.push({ value, ocr });
      else if (field === 'provider') provider(value, ocr);
      else if (field === 'provider_fallback') fallbackProviders.push({ value, ocr });
      else {
        const scheme = nationalIdScheme(field);
        if (scheme) nationalIds.push({ value, scheme, ocr });
      }
    }
    prose(line.text, lineOcr);
    salutation ??= SALUTATION.exec(line.text.trim())?.[1] ?? null;
    // A letter signed off by a doctor (`Sincerely,` over `Leila Haddad, MD, FACOG`): the provider when nothing labels one.
    const signer = lines[i + 1];
    if (CLOSING.test(line.text.trim()) && signer && isDoctor(signer.text)) fallbackProviders.push({ value: signer.text, ocr: lineOcr });
    const clia = CLIA.exec(line.text);
    if (clia && metadata.lab_clia === null) {
      metadata.lab_clia = clia[1].toUpperCase();
      note('lab_clia', 0.97 * lineOcr);
    }
  });
  // `Ms Isla J Mackay   Age 32y   Female   CHI 1709924428`: a banner of the patient without labels.
  for (const line of metadata.patient_last_name === null ? firstPage : []) {
    const banner = patientBanner(line);
    if (!banner) continue;
    name(banner.name, Math.min(1, line.confidence / OCR_TRUSTED), 0.9);
    metadata.gender ??= banner.sex;
    for (const id of banner.ids) nationalIds.push({ ...id, ocr: 1 });
    break;
  }
  // A letter to the patient (`Dear Kayla,` or `Dear Donor,`: a blood donor's results) under its address block: the
  // name line above it that starts with that given name, or that a street line follows (`1509 Cherokee Blvd`).
  const salutedAt = metadata.patient_last_name === null ? firstPage.findIndex((l) => PATIENT_SALUTATION.test(l.text.trim())) : -1;
  const given = salutedAt >= 0 ? (PATIENT_SALUTATION.exec(firstPage[salutedAt].text.trim())?.[1]?.toLowerCase() ?? null) : null;
  const toPatient = (l: Line, i: number) =>
    l.cells.length === 1 &&
    nameShaped(l.text) &&
    !isDoctor(l.text) &&
    (given ? l.text.trim().toLowerCase().startsWith(`${given} `) : /^\d+\s+\p{L}/u.test(firstPage[i + 1]?.text.trim() ?? ''));
  const addressee = salutedAt >= 0 ? [...firstPage.slice(0, salutedAt).entries()].reverse().find(([i, l]) => toPatient(l, i))?.[1] : undefined;
  if (addressee) name(addressee.text, Math.min(1, addressee.confidence / OCR_TRUSTED), 0.9);
  // `Nom / Name: Bouchard` beside `Prénom / First name: Geneviève` (Québec): a name label's one word is the surname when the given name has a label of its own.
  if (metadata.patient_last_name === null && metadata.patient_first_name !== null && notes.patient_first_name?.reason === null && loneNames.length) {
    metadata.patient_last_name = surname(loneNames[0].value);
    if (metadata.patient_last_name) note('patient_last_name', 0.9 * loneNames[0].ocr);
  }
  // `Apellido paterno: LOPEZ` and `Apellido materno: GUTIERREZ`: the surname is both.
  const second = secondSurnames.length ? surname(secondSurnames[0]) : null;
  if (metadata.patient_last_name !== null && second && notes.patient_last_name?.reason === null) metadata.patient_last_name += ` ${second}`;
  // `Dijk` with its particles `van` printed apart: `van Dijk`.
  const particles = surnamePrefixes.find((p) => /^[\p{Ll}']+( [\p{Ll}']+){0,2}$/u.test(p));
  const filed = metadata.patient_last_name;
  if (filed !== null && particles && !filed.toLowerCase().startsWith(`${particles} `)) metadata.patient_last_name = `${particles} ${filed}`;
  // The legal name is who the report is about, whatever name it prints first.
  if (legalNames.length) {
    [metadata.patient_first_name, metadata.patient_last_name] = [null, null];
    name(legalNames[0].value, legalNames[0].ocr);
  }
  for (const { value, ocr } of addressed) if (metadata.patient_last_name === null && metadata.patient_first_name === null) name(value, ocr, 0.95);
  if (!dates.date_reported && fallbackReported.length) date('date_reported', fallbackReported[0].value, fallbackReported[0].ocr, 0.85);
  if (fallbackSpecimens.length) specimen(fallbackSpecimens[0].value, fallbackSpecimens[0].ocr);
  if (fallbackProviders.length) provider(fallbackProviders[0].value, fallbackProviders[0].ocr);
  if (nationalIds.length) {
    // The year the report was printed in, not the year it is read in: a century is counted back from it.
    const printed = [dates.date_reported, dates.date_collected]
      .map((d) => d && (parseDate(d.text, 'day_first') ?? parseDate(d.text, 'month_first')))
      .find(Boolean);
    const { value, scheme, ocr } = nationalIds[0];
    const read = readNationalId(scheme, value, printed ? Number(printed.slice(0, 4)) : new Date().getUTCFullYear());
    if (read?.dob && !dates.dob) date('dob', read.dob, ocr, 0.9);
    metadata.gender ??= read?.sex ?? null;
  }
  // A CURP begins with the surname's letter and ends its four with the given name's: a name read
  // the other way round (`PENA ALEJANDRA`, printed surname first) is turned.
  const curp = nationalIds.find((id) => id.scheme === 'curp');
  const letters = curp ? curpNameLetters(curp.value) : null;
  const { patient_first_name: first, patient_last_name: last } = metadata;
  if (letters && first && last && initial(first) === letters[0] && initial(curpGivenName(last)) === letters[3] && letters[0] !== letters[3]) {
    [metadata.patient_first_name, metadata.patient_last_name] = [last, first];
  }
  // A letter is dated: a line that is only a date, high on the first page, is the report's date.
  // (Not a date printed under a label: a birth date in a stacked block is no letter's date.)
  // nor one aligned with such values, under a label OCR could not read.)
  const inStack = (l: Line) => [...values].some((v) => v.page === l.page && Math.abs(v.cells[0].x0 - l.cells[0].x0) < l.height);
  const dated = firstPage.find((l) => l.y < firstPageHeight * 0.4 && l.cells.length === 1 && DATE_ONLY.test(l.text.trim()) && !values.has(l) && !inStack(l));
  if (dated) date('date_reported', dated.text, Math.min(1, dated.confidence / OCR_TRUSTED), 0.8);
  const collectedOnRows = dates.date_collected ? null : rowsCollectionDate(lines);
  if (collectedOnRows) date('date_collected', collectedOnRows.text, Math.min(1, collectedOnRows.line.confidence / OCR_TRUSTED), 0.8);
  if (metadata.patient_last_name === null) patientLine(firstPage);
  // A letter's salutation names the doctor only when nothing labels one, and only by a whole name
  // (`Dear Dr. Reyes` leaves the provider null, not `Dr. Reyes`).
  if (metadata.ordering_provider === null && salutation !== null) {
    const read = readName(salutation);
    if (read.first && read.last) {
      metadata.ordering_provider = `${read.first} ${read.last}`;
      note('ordering_provider', 0.6);
    } else note('ordering_provider', 0, `a salutation without a whole name: "${salutation}"`);
  }

  /**
   * A patient printed without a label, by a name and then the birth date on the same line
   * (`Jane M. Doe, female, date of birth 3 May 1950`, `DOE, JANE  (DOB 05/03/1950)`): the
   * person whose birth date a report prints is its patient.
   */
  function patientLine(candidates: Line[]): void {
    for (const line of candidates) {
      // The line, or one of its cells (a portal's print header: `8/28/25, 12:21 PM | MyBluestem - Test
      // Details | De la Cruz, Samuel (DOB: 7/16/1969) | 1/1`), with no label's colon before the name.
      // (Such a header's parts may be printed parted by bars in one run of text.)
      const cells = line.cells.flatMap((cell) => cell.text.split(/\s+\|\s+/)).map((text) => text.trim());
      const texts = [line.text.trim(), ...(cells.length > 1 ? cells : [])];
      for (const text of texts) {
        if (text.split('(')[0].includes(':')) continue;
        const { name: printed, rest } = splitNameValue(text);
        if (!rest || !PROSE_DOB.test(rest) || !nameShaped(printed) || isDoctor(printed)) continue;
        const read = readName(printed);
        if (!read.first || !read.last) continue;
        name(text, Math.min(1, line.confidence / OCR_TRUSTED), 0.9);
        return;
      }
      // `MyBluestem | Nguyen Jr., James T | MRN 850815222 | Printed …`: a `LAST, FIRST` cell beside the
      // record number or the birth date; a name in another form beside the birth date (`Daniel Van der Berg Jr. | DOB 07/15/1964`).
      // Beside a social security number, VistA's `MCCRAY,DWIGHT J` (no space after its comma) is such a name too.
      const dated = cells.some((cell) => PROSE_DOB.test(cell));
      const ssn = cells.some((cell) => SSN.test(cell));
      const identified = dated || ssn || cells.some((cell) => RECORD_NUMBER.test(cell));
      const shaped = (cell: string) => nameShaped(ssn ? cell.replace(/,(?=\p{L})/u, ', ') : cell);
      const named = cells.find((cell) => (COMMA_NAME.test(cell) || dated) && !/\d/.test(cell) && shaped(cell) && !isDoctor(cell));
      const read = named ? readName(named) : null;
      if (named && identified && read?.first && read.last) {
        name(named, Math.min(1, line.confidence / OCR_TRUSTED), 0.9);
        return;
      }
    }
  }
  /** Fields written into sentences: `born 4 March 1980`, `Specimen S-2025-00123, collected 12 March 2025`, `Dear Dr. Anna Reyes,`. */
  function prose(text: string, ocr: number): void {
    for (const [re, field] of PROSE) {
      const hit = re.exec(text);
      if (!hit) continue;
      if (field === 'specimen') specimen(hit[1], ocr * 0.95);
      else if (field === 'specimen_fallback') fallbackSpecimens.push({ value: hit[1], ocr: ocr * 0.95 });
      else date(field, hit[1], ocr, 0.9);
    }
  }

  const order = dateOrder(
    lines.map((l) => l.text),
    dates,
  );
  for (const [field, found] of Object.entries(dates) as [DateField, { text: string; ocr: number; confidence: number }][]) {
    const read = readDate(found.text, order);
    metadata[field] = read.value;
    note(field, read.confidence * found.ocr * found.confidence, read.reason);
  }
  // A birth year of two digits put after the report's own date (`12/15/45` read 2045) is the century before's.
  const reportDay = metadata.date_collected ?? metadata.date_reported;
  if (metadata.dob && reportDay && metadata.dob > reportDay && dates.dob && twoDigitYear(dates.dob.text)) {
    metadata.dob = `${Number(metadata.dob.slice(0, 4)) - 100}${metadata.dob.slice(4)}`;
  }
  metadata.gender ??= honorific;
  if (metadata.gender) note('gender', 0.9);
  if (metadata.lab_name) note('lab_name', 0.7, 'the largest line at the top of the first page');
  const confidence = Object.fromEntries(
    METADATA_FIELDS.map((field) => [field, notes[field] ?? { confidence: 0, reason: 'not printed, or not found under a known label' }]),
  ) as MetadataConfidence;
  // A field the parser doubts is left out rather than guessed; its reason stays.
  for (const field of METADATA_FIELDS) {
    if (metadata[field] !== null && confidence[field].confidence < MIN_CONFIDENCE) {
      confidence[field].reason ??= 'too uncertain to report';
      (metadata as Record<MetadataField, unknown>)[field] = null;
    }
  }
  return { ...metadata, confidence };
}

/** A letter's closing before its signature. */
const CLOSING = /^(sincerely|yours sincerely|yours truly|kind regards|best regards|regards|with regards|warm regards),?$/i;
/** A name printed `LAST, FIRST` and nothing else. */
const COMMA_NAME = /^[\p{L}' .-]+,\s*[\p{L}' .-]+$/u;
/** A social security number, its digits masked or not (`xxx-xx-6496`, `123-45-6789`). */
const SSN = /^[\dx]{3}-[\dx]{2}-\d{4}$/i;
/** A cell of the patient's record number with its short label (`MRN 850815222`). */
const RECORD_NUMBER = /^(MRN|Patient ID|PID)\s*#?:?\s*\d/i;
/** A name's first letter in capitals without its accent (`Á` → `A`). */
function initial(name: string): string {
  return withoutAccents(name.trim()[0] ?? '').toUpperCase();
}

/** A name value of one word (`Bouchard`, `LÉVESQUE-TREMBLAY`, `St-Pierre`). */
function oneNameWord(value: string): boolean {
  return /^[\p{L}'’-]{2,}$/u.test(splitNameValue(value).name.trim());
}

/** Line OCR confidence from which a field read from it is trusted as from a text layer. */
const OCR_TRUSTED = 0.7;

/** Below this a field is reported null (OCR'd lines carry their words' confidence into it). */
const MIN_CONFIDENCE = 0.5;

const METADATA_FIELDS: MetadataField[] = [
  'patient_first_name',
  'patient_last_name',
  'dob',
  'gender',
  'lab_name',
  'lab_clia',
  'ordering_provider',
  'date_reported',
  'date_collected',
  'specimen_number',
];
