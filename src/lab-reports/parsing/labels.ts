import type { NationalIdScheme } from './national-ids';
import { misreadCapitals, narrowMs, respaced, type LabelLookup } from './label-misreads';
/**
 * The labels a report prints before its metadata, and the field each names: first the wordings
 * labs print as such, then rules on a label's words for the wordings no list holds (`Date of
 * findings`, `Verified`, `Lab Acc No`, `Surname, first name`). Used by ./metadata.ts.
 */

export type Field =
  | 'name'
  | 'name_surname_first'
  | 'legal_name'
  | 'first'
  | 'last'
  | 'second_surname'
  | 'surname_prefix'
  | 'subject'
  | 'addressee'
  | 'dob'
  | 'sex'
  | 'age_sex'
  | 'dob_age_sex'
  | 'collected'
  | 'reported'
  | 'reported_fallback'
  | 'specimen'
  | 'specimen_fallback'
  | 'provider'
  | 'provider_fallback'
  | 'birth_id_cpr'
  | 'birth_id_personnummer'
  | 'birth_id_pesel'
  | 'birth_id_curp'
  | 'birth_id_amka'
  | 'birth_id_chi'
  | 'birth_id_nic'
  | 'birth_id_mykad'
  | 'clia'
  | 'other';

/** Header labels labs print, the field each names; `other` ones only end the value before them. */
const LABELS: [RegExp, Field][] = [
  // An employer's screening names its patient the employee, examinee or donor; an insurer's, the applicant.
  [
    /^(patient name|patient|name|name\(s\)|pt name|patient's name|client name|name of patient|patient full name|full name|employee|employee name|examinee|donor|donor name|applicant|applicant name|proposed insured|insured|insured name|naam|pati[ëe]nt|paziente|ad[ıi] soyad[ıi]|ad soyad|hasta ad[ıi]|họ và tên|họ tên|ho va ten|ho ten)$/i,
    'name',
  ],
  // The name on the patient's papers, printed beside the one they go by (`Name: Bobby Whitfield`).
  [/^(legal name|full legal name|patient legal name|patient's legal name|legal name of patient)$/i, 'legal_name'],
  // Polish `Nazwisko i imię` (surname and given name): printed surname first, without a comma.
  [/^(nazwisko i imi[ęe]|nazwisko imi[ęe])$/i, 'name_surname_first'],
  [/^(preferred name|preferred|goes by|nickname|known as|also known as|aka|alias|chosen name|name used)$/i, 'other'],
  // French `prénom` (Québec's bilingual `Prénom / First name`); Dutch `roepnaam` (the name used) and `voornaam`.
  [
    /^(first names?|given names?|given name\(s\)|forenames?|forename\(s\)|first name\(s\)|other names?|other name\(s\)|pr[ée]noms?|roepnaam|voornaam|voornamen|ad[ıi]|imi[ęe])$/i,
    'first',
  ],
  [
    /^(last name|surname|family name|nom de famille|achternaam|geslachtsnaam|cognome|soyad[ıi]|nazwisko|apellido paterno|paternal surname|primer apellido|first surname)$/i,
    'last',
  ],
  // A Spanish name's second surname (the mother's) printed apart: it follows the first.
  [/^(apellido materno|maternal surname|segundo apellido|second surname)$/i, 'second_surname'],
  // A Dutch surname's particles printed apart (`Achternaam: Dijk`, `Voorvoegsel / Prefix: van`): they come before it.
  [/^(voorvoegsels?|tussenvoegsels?|prefix|surname prefix|name prefix)$/i, 'surname_prefix'],
  [/^(re|regarding|patient re)$/i, 'subject'],
  [/^(to|attn\.?|attention)$/i, 'addressee'],
  [/^(dob|d\.o\.b\.?|date of birth|birth date|birthdate|born|born on|geboortedatum|geb\.? ?datum)$/i, 'dob'],
  [/^(sex|gender|legal sex|administrative sex|sex assigned at birth|sex at birth|birth sex|assigned sex|geslacht)$/i, 'sex'],
  [/^(age\s*\/\s*(sex|gender)|(sex|gender)\s*\/\s*age)$/i, 'age_sex'],
  // The birth date, age and sex in one field (`DOB/Age/Sex: 2000-May-04 / 24Y / F`).
  [/^(dob|d\.o\.b\.?|birth date)\s*\/\s*age\s*\/\s*(sex|gender)$/i, 'dob_age_sex'],
  [
    /^(collected|collection date|date collected|collection|collected on|date of collection|coll\.? date|drawn|date drawn|specimen collected|collection date\/time|sample collected|taken|date taken|sample taken|date\/time collected|collected date|date of sample|sample date|date sampled|date of donation|donation date|donated on|donated|prelievo|data prelievo|data del prelievo)$/i,
    'collected',
  ],
  [
    /^(reported|report date|date reported|reported on|date of report|result date|released|report released|final report date|date issued|issued|report issued|issued on|resulted|date resulted|resulted on|reported date|final|last updated|tested|tested on|date tested|referto|data referto|data refertazione)$/i,
    'reported',
  ],
  // The day the report was printed: the day it was reported only when no other label dates the report
  // (an Egyptian lab's `Print Date` alone; beside a `Result Date`, a later copy's).
  [/^(print date|printed on|date printed|printed date|print date\/time)$/i, 'reported_fallback'],
  [
    /^(specimen|specimen id|specimen no\.?|spec|spec no\.?|specimen number|specimen #|accession|accession no\.?|accession number|accession #|lab no\.?|lab #|lab number|sample id|sample no\.?|lab id|lab ref(erence)?|requisition( no\.?| #)?|req\.?( no\.?)?|sample|sample number|lab accession|accession id|barcode|kit barcode|kit no\.?|kit id|lab test id|folio|protocol no\.?|protocol number|lab report no\.?|lab report number|lab report #|sid|sid no\.?|donation number|donation no\.?|donation #|din|unit number|unit number \(din\)|n\.? accettaz\.?|n\.? accettazione|n\.? campione)$/i,
    'specimen',
  ],
  // Numbers that are the specimen's only on some reports: `Acc No` is the accession in American
  // reports, the account in South African and British practices; an order or control number is the
  // request's, which some labs use for the specimen's and others print beside the specimen's own; a
  // Brazilian lab's `Protocol` (protocolo) and a Japanese check-up's `Exam No.` number the visit's requests.
  // metadata.ts reads one as the specimen only when no other specimen label is printed.
  [
    /^(acc\.? ?#|acc\.? no\.?|order no\.?|order #|order number|control no\.?|control #|reference no\.?|protocol|exam no\.?|examination no\.?)$/i,
    'specimen_fallback',
  ],
  [
    /^(ordering physician|ordering provider|ordering doctor|ordered by|physician|provider|doctor|referring doctor|referring physician|requesting physician|requested by|clinician|referring provider|seen by|ordering clinician|referrer|referring dr\.?|ref\.? dr\.?|ordering dr\.?|ordering md|requesting doctor|requester|requestor|requesting practitioner|requesting clinician|physician in charge|doctor in charge)$/i,
    'provider',
  ],
  // Who sent the sample: a doctor on some reports, a ward or unit on others (`Sender: Akutmottagningen
  // SUS Lund`); metadata.ts reads it as the provider only when no doctor's label is printed.
  [/^(sender|einsender)$/i, 'provider_fallback'],
  // Personal identity numbers that carry the birth date (national-ids.ts): Danish CPR, Swedish
  // personnummer, Polish PESEL, Mexican CURP, Greek AMKA, Scottish CHI, Sri Lankan NIC, Malaysian MyKad.
  [/^(cpr|cpr no\.?|cpr number|cpr-nr\.?)$/i, 'birth_id_cpr'],
  [/^(pers\.? no\.?|personnummer|personal identity number|personal id no\.?|personal number)$/i, 'birth_id_personnummer'],
  [/^pesel$/i, 'birth_id_pesel'],
  [/^curp$/i, 'birth_id_curp'],
  [/^(amka|αμκα|α\.μ\.κ\.α\.?)$/i, 'birth_id_amka'],
  [/^(chi|chi no\.?|chi number)$/i, 'birth_id_chi'],
  [/^(nic|nic no\.?|nic number|nic #)$/i, 'birth_id_nic'],
  [/^(i\/c no\.?|ic no\.?|i\/c|nric|nric no\.?|mykad|mykad no\.?|new ic no\.?)$/i, 'birth_id_mykad'],
  [/^(clia|clia no\.?|clia #|clia number|clia id)$/i, 'clia'],
  [
    /^(received|date received|age|phone|address|account|account no\.?|client|mrn|patient id|fasting|status|report status|page|specimen type|sample type|lab director|director|npi|application no\.?|client no\.?|agent|carrier|insurer|insurance company|exam site|examiner|policy no\.?|case no\.?|height \/ weight)$/i,
    'other',
  ],
  // Where the patient was born, their tax or identity number, the insurer, the ward, the diagnosis,
  // the sample's acceptance (Italian `Accettazione`, the received time; `N. accettaz.` is its number),
  // in Italian, Turkish and Vietnamese (their English halves, `Ward`, `Insurer`, need no entry: a
  // bilingual label takes the field of the half it knows): never a name, a date or a specimen's number.
  [
    /^(nato\/a a|nato a|accettazione|luogo di nascita|do[ğg]um yeri|codice fiscale|nre|kurum|reparto|khoa|klinik|chẩn đoán|chan doan|địa chỉ|dia chi|indirizzo|hasta no|protokol no|t\.?\s?c\.? kimlik no|kimlik no|tuổi|tuoi|yaş|yas|età|eta|mã bn|ma bn)$/i,
    'other',
  ],
  // Doctors who did not order the tests: the patient's own (`PCP`, `Pediatrician of Record`), and
  // those sent a copy (`Copy To`, `CC`).
  // Italian `Curante` (the family doctor) too, and a British practice's `Usual GP`.
  [
    /^(pcp|primary care|primary care (physician|provider|doctor)|(pediatrician|physician|provider) of record|copy to|copies to|cc|copy|family (doctor|physician)|curante|medico curante|usual gp|registered gp|usual doctor|named gp)$/i,
    'other',
  ],
  // A medical record number abbreviated (`MR #`, `Med Rec #`; `#` is taken off before matching): in capitals, not `Mr`.
  [/^(MR|MR No\.?|Med\.? Rec\.?( No\.?)?)$/, 'other'],
];

/** Words of a date label that say nothing of which date it is (`Date of …`, `… date/time`), and the small words between. */
const DATE_WORDS = new Set(['date', 'time', 'dt', 'day']);
const SMALL_WORDS = new Set(['on', 'at', 'of', 'the', 'and', '&']);
/** A report's date: the day its results were finished, checked or let out. */
const REPORTED_WORDS =
  /^(verified|released|releases?|finali[sz]ed|signed|authori[sz]ed|authentication|authenticated|validated|validation|approved|completed|reported|reporting|resulted|issued|issue|findings?|verification|release|report|results?|answered|answer)$/;
/** Words that only say a date of reporting with another of them or a date word (`Final Result`, `Findings date`). */
const REPORTED_NEEDS_COMPANY = /^(findings?|report|results?|release|releases|final|verification|validation|authentication|answer)$/;
const COLLECTED_WORDS = /^(collected|collection|drawn|draw|sampled|sampling|taken|obtained|exam|examination|check-up|checkup|specimen|sample)$/;
// A health check's examination is the visit its samples are taken at (`Date of Exam`, `Check-up Date`).
const COLLECTED_CORE = /^(collected|collection|drawn|draw|sampled|sampling|taken|obtained|exam|examination|check-up|checkup)$/;
/** Dates a report prints that are none of its own: when the sample arrived, the stay, the print. */
const OTHER_DATE_WORDS =
  /^(received|rec'd|recd|recv|rcvd|receipt|arrived|arrival|printed|print|admitted|admission|admit|discharged|discharge|registered|entered|ordered|requested|visit|encounter)$/;
/** Of those, the ones that are a date's label without a date word (`Receipt of material`, `Admitted`, `Rec'd`; not `Tests ordered`). */
const OTHER_DATE_ALONE = /^(received|rec'd|recd|recv|rcvd|receipt|arrived|arrival|printed|admitted|admission|discharged|registered)$/;
/**
 * Words of a label about someone other than the patient (`Parent/Guardian`, `Guarantor`,
 * `Responsible Party`, `Emergency Contact`): its name, phone or relationship are never the patient's.
 */
const OTHER_PERSON_WORDS =
  /^(parents?|guardians?|guarantors?|mother|mother's|father|father's|responsible|kin|emergency|caregiver|carer|insured|subscriber|policyholder|spouse|relationship|relation|contact)$/;

/**
 * Whether `words` (lower case) are about someone other than the patient: one of OTHER_PERSON_WORDS,
 * the rest of them or of `others` (a label's words, a heading's: labels.ts, other-people.ts).
 */
export function aboutAnotherPerson(words: readonly string[], others: RegExp): boolean {
  return words.some((w) => OTHER_PERSON_WORDS.test(w)) && words.every((w) => OTHER_PERSON_WORDS.test(w) || others.test(w));
}
/**
 * Who asked for the tests, however the label names them (`Attending`, `Treating physician`, a
 * specialist by name: `Attending Nephrologist`; a pathologist is the lab's, NOT_PROVIDER), and
 * the Dutch `aanvrager` (requester).
 */
const PROVIDER_HEAD = /^(physician|doctor|provider|clinician|practitioner|prescriber|consultant|attending|gp|[a-z]{3,}ologist|aanvrager)$/;
/** Verbs of asking for tests or sending the patient, before `by`. */
const ASKED_BY = /^(ref|referred|requested|ordered|sent|requisitioned|submitted)$/;
/** (A family doctor, Italian `curante`, is the patient's own: labelled `other` as a PCP is.) */
const NOT_PROVIDER = /^(lab|laboratory|director|medical|pathologist|supervisor|family|curante)$/;
/**
 * A specimen's number: a specimen, sample, accession, order, control, kit or lab word with a number word (`Lab
 * Acc No`); an episode is the lab's request in Australian and British pathology (`Episode No`).
 */
const SPECIMEN_WORDS = /^(specimen|sample|accession|acc|requisition|req|request|order|control|lab|barcode|tube|container|kit|episode)$/;
/**
 * Specimen words that alone name a number that is the specimen's only on some reports (LABELS,
 * `specimen_fallback`): an episode is the lab's request in Australian and British pathology, but a
 * hospital's visit beside a `Lab No.` in Malaysia (`OP2502-54621`, outpatient).
 */
const FALLBACK_SPECIMEN_WORDS = /^(acc|order|request|control|episode)$/;
/** (`UID`: a unique identifier, as VistA numbers a specimen: `Specimen UID`.) */
const NUMBER_WORDS = /^(no|nr|number|num|#|id|uid|ref|reference|code|accession|acc)$/;
const NOT_SPECIMEN = /^(type|source|site|volume|condition|status|comments?|date|time|collected|received|taken|drawn)$/;
/** A compound name label (`Surname, first name`, `Last name / given names`): name words only. */
const NAME_WORDS = /^(name|names|surname|first|last|given|family|forenames?|middle|patient|patient's|christian|and|&|cognome|nome|e)$/;

/** The other words of such a label (`Parent/Guardian Name`, `Next of Kin`, `Guardian Phone`), not of a name printed beside a relation (`Delgado, Keisha - Mother`). */
const OTHER_PERSON_LABEL = /^(name|names|phone|tel|telephone|mobile|address|party|next|of|kin|legal|foster|step|number|no|#|and|&|information|info|details)$/;

/**
 * The field a label's words name when no listed wording matches it; null when none. `datedValue`:
 * the label's value is a date, which says what a date word would (`Report: 2025-09-06`).
 */
function fieldByWords(label: string, datedValue = false): Field | null {
  const words = label.toLowerCase().replace(/[.:]/g, ' ').replace(/[,/]/g, ' , ').split(/\s+/).filter(Boolean);
  const plain = words.filter((w) => w !== ',');
  if (!plain.length || plain.length > 5) return null;
  // (`Emergency` or `Responsible` alone is no person: a ward's `Cấp cứu / Emergency`.)
  if (aboutAnotherPerson(plain, OTHER_PERSON_LABEL) && !(plain.length === 1 && /^(emergency|responsible)$/.test(plain[0]))) return 'other';
  // A letter's salutation (`Dear Doctor,`) is no label.
  if (/^(dear|hello|hi)$/.test(plain[0])) return null;
  // A surname first, then the given names: `Surname, first name`, `Name / given names` (`Name, Vorname`),
  // Italian `Cognome e nome`: the name is printed surname first, with or without its comma.
  const given = plain.findIndex((w) => /^(first|given|forenames?|nome)$/.test(w));
  if (
    plain.every((w) => NAME_WORDS.test(w)) &&
    given > 0 &&
    (words.includes(',') || plain.slice(0, given).some((w) => /^(surname|last|family|cognome)$/.test(w)))
  )
    return 'name_surname_first';
  const dated = datedValue || plain.some((w) => DATE_WORDS.has(w));
  const rest = plain.filter((w) => !DATE_WORDS.has(w) && !SMALL_WORDS.has(w));
  if (!rest.length) return null;
  /** A doctor's label (`Attending Nephrologist`, `Visit clinician`): ends in a doctor's word, names no lab staff. */
  const doctor = plain.length <= 3 && PROVIDER_HEAD.test(plain[plain.length - 1]) && !plain.some((w) => NOT_PROVIDER.test(w));
  // The doctor of a visit (`Visit clinician`, `Encounter provider`): a doctor, not a date.
  if (!dated && doctor) return 'provider';
  if (rest.some((w) => OTHER_DATE_WORDS.test(w))) return dated || (rest.length <= 2 && OTHER_DATE_ALONE.test(rest[0])) ? 'other' : null;
  if (rest.every((w) => COLLECTED_WORDS.test(w)) && rest.some((w) => COLLECTED_CORE.test(w))) return 'collected';
  if (rest.every((w) => REPORTED_WORDS.test(w) || w === 'final')) {
    const strong = rest.filter((w) => !REPORTED_NEEDS_COMPANY.test(w));
    if (strong.length || dated || rest.length >= 2) return 'reported';
  }
  // `Referred by`, `Ref. by`, `Sent by`: who asked for the tests (not who collected or checked them).
  if (plain.length === 2 && plain[1] === 'by' && ASKED_BY.test(plain[0])) return 'provider';
  // `Ref. By Dr.`: the title the value begins with printed in the label as well.
  if (plain.length === 3 && plain[1] === 'by' && ASKED_BY.test(plain[0]) && /^(dr|doctor)$/.test(plain[2])) return 'provider';
  if (doctor) return 'provider';
  if (
    plain.some((w) => SPECIMEN_WORDS.test(w)) &&
    plain.every((w) => SPECIMEN_WORDS.test(w) || NUMBER_WORDS.test(w)) &&
    !plain.some((w) => NOT_SPECIMEN.test(w))
  ) {
    if (NUMBER_WORDS.test(plain[plain.length - 1]) || /^(specimen|accession)$/.test(plain[plain.length - 1])) {
      return plain.filter((w) => SPECIMEN_WORDS.test(w)).every((w) => FALLBACK_SPECIMEN_WORDS.test(w)) ? 'specimen_fallback' : 'specimen';
    }
  }
  return null;
}

/** A label's bracketed note of what its value prints beside the field (the age) or of the value's form. */
const VALUE_NOTE = /\s*\((age|yrs?|years|mm\/dd\/yy(yy)?|dd\/mm\/yy(yy)?|m\/d\/y(yyy)?|yyyy-mm-dd|local)\)$|\s*\[(uid|id)\]$/i;

/** The field of the first listed wording `text` is, as printed or with its accents dropped (as OCR reads `Họ và tên`, `Adı Soyadı`: `Ho va tén`, `Adi Soyadi`). */
function listedField(text: string): Field | null {
  for (const [re, field] of LABELS) if (re.test(text)) return field;
  const plain = withoutAccents(text);
  if (plain !== text) for (const [re, field] of LABELS) if (re.test(plain)) return field;
  return null;
}

const ASCII = /^[ -~\t\n\r]*$/;

/** A text with its accents dropped, and the letters that have none to drop read plainly (Turkish `ı`, Vietnamese `đ`). */
export function withoutAccents(text: string): string {
  // (Printable ASCII has no accents, and no compatibility forms NFKD would take apart.)
  if (ASCII.test(text)) return text;
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/ı/g, 'i')
    .replace(/[đĐ]/g, (d) => (d === 'đ' ? 'd' : 'D'))
    .normalize('NFC');
}

/**
 * A slash before a word that OCR read as a bracket or a bar (`Sexe [Sex`, `Analyse |Test`); a
 * bracket that closes is a note, no slash.
 */
const OCR_SLASH = /\s[[|]\s?(?=\p{L})(?![^\]]*\])/gu;

/**
 * A label printed in two languages, the halves parted by a slash (`Paciente / Patient`, `Date de
 * naissance / Date of birth`; OCR_SLASH: `Sexe [Sex`): the field one half names when the other
 * names none (a language no list holds) or the same one. Halves naming two fields (`Name / DOB`)
 * are no one label.
 */
function bilingualField(text: string, datedValue = false): Field | null {
  // (Parted at a slash with a space beside it where another slash is a word's own: `Nato/a il /Born on`.)
  const spaced = /\s\/|\/\s/.test(text.replace(OCR_SLASH, ' / ')) && (text.match(/\//g) ?? []).length > 1;
  const halves = text
    .replace(OCR_SLASH, ' / ')
    .split(spaced ? /\s\/\s?|\/\s/ : '/')
    .map((half) => half.trim());
  if (halves.length !== 2 || halves.some((half) => !/\p{L}{2}/u.test(half))) return null;
  // OCR reads `rn` as `m` in small bold labels (`Bom on` for `Born on`), in either half.
  const [a, b] = halves.map(
    (half) => listedField(half) ?? fieldByWords(half, datedValue) ?? (half.includes('m') ? listedField(half.replace(/m/g, 'rn')) : null),
  );
  // A name label in one language, a part of the name in the other (`Adı / Name`, `Cognome e nome / Patient`): the part.
  if (a === 'name' && NAME_PARTS.includes(b)) return b;
  if (b === 'name' && NAME_PARTS.includes(a)) return a;
  // A field in one language and where it is only sometimes that field in the other (`N. accettazione / Acc. no.`): the field.
  if (a !== null && b === `${a}_fallback`) return a;
  if (b !== null && a === `${b}_fallback`) return b;
  if (a !== null && b !== null) return a === b ? a : null;
  return a ?? b;
}

/** Fields that name a part of the patient's name, or the order of its parts. */
const NAME_PARTS: (Field | null)[] = ['first', 'last', 'name_surname_first'];

/** Whether a label names its field only in one of two languages it is printed in (`Paciente / Patient`). */
export function inTwoLanguages(text: string): boolean {
  const t = text.trim().replace(/[:#]$/, '').trim();
  return listedField(t) === null && fieldByWords(t) === null && bilingualField(t) !== null;
}

/** The lookups the OCR misreadings of a label are tried against (label-misreads.ts). */
const LOOKUP: LabelLookup<Field> = { listed: listedField, byWords: (t) => fieldByWords(t) };

/**
 * Fields of the label texts met so far: a report's cells are looked up many times (each pairing
 * rule asks, and a page read twice is parsed twice), and a lookup tries ~90 wordings and the OCR
 * misreadings of each. A pure function of the text, so kept; emptied when it grows large.
 */
const labelFields = new Map<string, Field | null>();
const LABEL_FIELDS_KEPT = 20_000;

/** The field a label names, or null when the text is no label. */
export function labelField(text: string): Field | null {
  const known = labelFields.get(text);
  if (known !== undefined) return known;
  if (labelFields.size >= LABEL_FIELDS_KEPT) labelFields.clear();
  const field = fieldOfLabel(text);
  labelFields.set(text, field);
  return field;
}

function fieldOfLabel(text: string): Field | null {
  // `Lab #` is a label, `Lab` alone none: a label ending in `#` is looked up with it first.
  const hashed = text.trim().replace(/:$/, '').trim();
  const withHash = hashed.endsWith('#') ? listedField(hashed.replace(/\s*#$/, ' #')) : null;
  if (withHash !== null) return withHash;
  const t = text.trim().replace(/[:#]$/, '').trim();
  // A bracketed note of what else the value prints, or of its form (`Birth Date (Age)`, `DOB (MM/DD/YYYY)`).
  const noted = VALUE_NOTE.exec(t);
  if (noted && noted.index > 0) return fieldOfLabel(t.slice(0, noted.index));
  const named = listedField(t) ?? fieldByWords(t) ?? bilingualField(t) ?? respaced(t, LOOKUP);
  if (named !== null) return named;
  // OCR reads `rn` as `m` in small bold labels (`Bom` for `Born`).
  if (t.includes('m')) {
    const born = listedField(t.replace(/m/g, 'rn'));
    if (born !== null) return born;
  }
  // OCR reads the slash between two labels' words as a bracket or a bar (`Age [Gender`).
  const slashed = /\p{L}\s*[[|]\s*\p{L}/u.test(t) ? listedField(t.replace(/\s*[[|]\s*/g, ' / ')) : null;
  return slashed ?? narrowMs(t, LOOKUP) ?? misreadCapitals(t, LOOKUP);
}

/** Whether a label names its field only with its `n`s read as `m` (`Patient Nane`): OCR misread the line's m's. */
export function namedByNarrowMs(text: string): boolean {
  const t = text.trim().replace(/[:#]$/, '').trim();
  return listedField(t) === null && fieldByWords(t) === null && narrowMs(t, LOOKUP) !== null;
}

/**
 * The field a label names when its value is a date: as `labelField`, and a word that says a
 * report's date only beside a date word (`Report`, `Final`, `Findings`) says it beside the date
 * itself (`Report: 2025-09-06 17:44`, `Rapport/Report: …`).
 */
export function datedLabelField(text: string): Field | null {
  const t = text.trim().replace(/[:#]$/, '').trim();
  return labelField(t) ?? fieldByWords(t, true) ?? bilingualField(t, true);
}

/** The identity-number scheme a `birth_id_*` field names (national-ids.ts), or null for another field. */
export function nationalIdScheme(field: Field | null): NationalIdScheme | null {
  return field?.startsWith('birth_id_') ? (field.slice('birth_id_'.length) as NationalIdScheme) : null;
}
