/**
 * Units as OCR reads them, repaired to the spellings labs print: a slash lost or read as a letter,
 * a µ read as a p, Courier's narrow m read as an n, a cell count's power of ten garbled, a unit
 * split in two at a gap OCR saw after its slash. Text layers are never repaired.
 */
import { isFlag } from './values';

/**
 * Unit spellings labs print, the forms an OCR misread is repaired to (`repairOcrUnit`). A unit
 * printed in another spelling that OCR read whole is kept as printed.
 */
export const KNOWN_UNITS = [
  '%',
  'mg/dL',
  'g/dL',
  'g/L',
  'mg/L',
  'ug/mL',
  'mcg/mL',
  'mmol/L',
  'umol/L',
  'µmol/L',
  'nmol/L',
  'pmol/L',
  'mEq/L',
  'mOsm/kg',
  'U/L',
  'IU/L',
  'U/mL',
  'IU/mL',
  'kU/L',
  'mIU/L',
  'mIU/mL',
  'uIU/mL',
  'µIU/mL',
  'ng/mL',
  'ng/dL',
  'ng/L',
  'pg/mL',
  'mcg/dL',
  'ug/dL',
  'µg/dL',
  'ug/L',
  'mcg/L',
  'fL',
  'pg',
  '/uL',
  '/µL',
  '/cumm',
  '/cmm',
  '/hpf',
  '/lpf',
  'cells/uL',
  'x10E3/uL',
  'x10E6/uL',
  '10^3/uL',
  '10^6/uL',
  '10^9/L',
  '10^12/L',
  'K/uL',
  'M/uL',
  'Million/uL',
  'Thousand/uL',
  'mL/min/1.73m2',
  'mm/hr',
  'mm/h',
  'mg/g',
  'mg/24h',
  'sec',
  'seconds',
  'ratio',
  'Index',
  'titer',
  'mg/mmol',
  'nmol/min/mL',
  'Eq/L',
];
const KNOWN_UNIT_BY_KEY = new Map(KNOWN_UNITS.map((unit) => [unit.toLowerCase(), unit]));
/** What OCR makes of the caret of `10^3`: nothing, or one of these. */
const CARET_MISREADS = '[7^*~"\'`”“’‘°]';
const PER_MICROLITRE = new RegExp(`^10\\s*${CARET_MISREADS}?\\s*([36])\\s*[/|]?\\s*(?:[uµμLlp]|mu|pu)?\\s*[lL]{1,2}[.,]?$`);
const PER_LITRE = new RegExp(`^10\\s*${CARET_MISREADS}?\\s*(9|12)\\s*[/|]\\s*[lL][.,]?$`);
/** A cell count's power of ten as OCR reads it (`10~3/uL`, `107 3/uL`), repaired; null for anything else. */
export function cellCountUnit(text: string): string | null {
  const t = text.trim();
  const perMicrolitre = PER_MICROLITRE.exec(t);
  if (perMicrolitre) return `10^${perMicrolitre[1]}/uL`;
  const perLitre = PER_LITRE.exec(t);
  return perLitre ? `10^${perLitre[1]}/L` : null;
}
/** What OCR makes of a slash: nothing, or one of these. */
const SLASH_MISREADS = /[JIl1|]/;

/** Letters OCR reads in a unit in place of others: Courier's narrow m as n (`ncg/dL`, `pg/nL`), an I as l (`ulU/mL`). */
const LETTER_MISREADS: Readonly<Record<string, string>> = { n: 'm', l: 'I' };
/** Most letters put back in one unit: `ul U nL.` needs two (`uIU/mL`). */
const MAX_LETTERS_RESTORED = 2;

/** `unit` with none, then one, then two of its misread letters (`LETTER_MISREADS`) put back. */
function withLettersRestored(unit: string): string[][] {
  const levels = [[unit]];
  for (let level = 1; level <= MAX_LETTERS_RESTORED; level += 1) {
    const next = new Set<string>();
    for (const read of levels[level - 1]) {
      for (let i = 0; i < read.length; i += 1) if (LETTER_MISREADS[read[i]]) next.add(`${read.slice(0, i)}${LETTER_MISREADS[read[i]]}${read.slice(i + 1)}`);
    }
    levels.push([...next]);
  }
  return levels;
}

/** The known units `unit` is, or is one slash away from: a slash lost (`IUmL`) or read as a letter (`mgldL`). */
function oneSlashAway(unit: string): string[] {
  const exact = KNOWN_UNIT_BY_KEY.get(unit.toLowerCase());
  if (exact) return [exact];
  const candidates = new Set<string>();
  for (let i = 0; i <= unit.length; i += 1) {
    const inserted = KNOWN_UNIT_BY_KEY.get(`${unit.slice(0, i)}/${unit.slice(i)}`.toLowerCase());
    if (inserted && i > 0 && i < unit.length) candidates.add(inserted);
    if (i < unit.length && SLASH_MISREADS.test(unit[i])) {
      const replaced = KNOWN_UNIT_BY_KEY.get(`${unit.slice(0, i)}/${unit.slice(i + 1)}`.toLowerCase());
      if (replaced) candidates.add(replaced);
    }
  }
  return [...candidates];
}

/**
 * A unit OCR misread, repaired when exactly one known spelling is one slash away: a slash lost
 * (`IUmL` → `IU/mL`) or read as a letter (`Jul` → `/uL`, `mgldL` → `mg/dL`), after its spaces and a
 * full stop at its end are dropped and, only where nothing nearer is known, one or two misread
 * letters put back (`ncg/dL` → `mcg/dL`, `ul U nL.` → `uIU/mL`). Anything else is returned as read.
 */
export function repairOcrUnit(unit: string | null): string | null {
  if (!unit || KNOWN_UNIT_BY_KEY.has(unit.toLowerCase())) return unit;
  // A cell count's power of ten, its caret read as a 7, a tilde or a quote mark and its slash
  // and µ as anything (`1073uL`, `1076 ul.`, `1073 pL`, `10~3/uL`, `10” 6/uL`, `107 3/ulL` for
  // `10^3/uL` and `10^6/uL`; `1079/L` for `10^9/L`).
  const cells = cellCountUnit(unit);
  if (cells) return cells;
  // A µ read as another letter (`Hg/dL`, `pg/dL`, `HIU/mL`, `pIU/mL`, and `plu/mL` with its I read
  // as l, for `µg/dL` and `µIU/mL`): µ where that makes a unit labs print, the unit as read none.
  const micro = /^[pPhHyY]/.test(unit) ? KNOWN_UNIT_BY_KEY.get(`µ${unit.slice(1).replace(/^lu\//i, 'IU/')}`.toLowerCase()) : undefined;
  if (micro) return micro;
  const [asRead, ...restored] = withLettersRestored(unit.replace(/\s+/g, '').replace(/[.,]+$/, ''));
  const nearest = oneSlashAway(asRead[0]);
  if (nearest.length === 1) return nearest[0];
  if (nearest.length > 1) {
    // Of two (`KuL`: `K/uL` or `kU/L`), the one whose letters are the read ones, case and all.
    const sameCase = nearest.filter((c) => c.replace('/', '') === unit || [...unit].some((_, i) => `${unit.slice(0, i)}/${unit.slice(i + 1)}` === c));
    return sameCase.length === 1 ? sameCase[0] : unit;
  }
  for (const level of restored) {
    const found = new Set(level.flatMap(oneSlashAway));
    if (found.size === 1) return [...found][0];
    if (found.size > 1) return unit;
  }
  return unit;
}

/** Whether `unit` is spelled as labs print it (`KNOWN_UNITS`). */
export function isKnownUnit(unit: string): boolean {
  return KNOWN_UNIT_BY_KEY.has(unit.toLowerCase());
}

/**
 * A unit OCR read as two or three words (`ng/ nl`: Courier prints a gap after the slash that OCR
 * takes for a space; `ul U nL.`): the words joined, when the first is not a unit as read, no word
 * after it is a flag (`U L` is a unit and its flag), and the joined ones repair to a known unit.
 * Null for anything else.
 */
export function splitOcrUnit(words: readonly string[]): string | null {
  const [first] = words;
  if (!first || isKnownUnit(first)) return null;
  for (const count of [2, 3]) {
    if (words.length < count || isFlag(words[count - 1])) break;
    const joined = words.slice(0, count).join(' ');
    if (isKnownUnit(repairOcrUnit(joined) ?? '')) return joined;
  }
  return null;
}
