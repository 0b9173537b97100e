import type { LabReportResultType } from './types';

/**
 * Printed numbers: `1,234.5`, `.5`, `12`; thousands separators only in groups of three, or as South
 * Asia groups them, the last three then twos (`6,58,000`: six lakh fifty-eight thousand).
 */
const NUMBER = String.raw`(?:\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}|\d+)(?:\.\d+)?|\.\d+`;
const COMPARATOR = String.raw`<=|>=|≤|≥|<|>|=<|=>`;

export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!new RegExp(`^(?:${NUMBER})$`).test(t)) return null;
  return Number(t.replace(/,/g, ''));
}

/**
 * Qualitative results as labs print them, in English and in the other languages of the reports
 * labflow reads (Italian `Non reattivo`, `Negativo`, `Tracce`, `Limpido`; Turkish `Negatif`,
 * `Pozitif`; Spanish and Portuguese `Negativo`, `No reactivo`, `Amarillo`, `Claro`; Dutch `Negatief`; French
 * `Négatif`; Polish `Ujemny`, `Niereaktywny`, `Słomkowa`, `Lekko mętny`; Greek `Αρνητικό`, `Κίτρινο`, `Διαυγής`).
 */
const BOOLEAN = [
  'negative',
  // `Nil`: none found, as South Asian labs print a negative urine test.
  'nil',
  'positive',
  'neg',
  'pos',
  'reactive',
  'non[- ]?reactive',
  'not detected',
  'detected',
  'absent',
  'present',
  'nonreactive',
  'negativo',
  'positivo',
  'non reattivo',
  'reattivo',
  'assente',
  'presente',
  'no reactivo',
  'reactivo',
  'n[ãa]o reagente',
  'reagente',
  'negatif',
  'pozitif',
  'non-?reaktif',
  'reaktif',
  'negatief',
  'positief',
  'n[ée]gatif',
  'positif',
  'non r[ée]actif',
  'ujemn[yae]',
  'dodatni[ae]?',
  'nie ?reaktywn[yae]',
  'reaktywn[yae]',
  'nie wykryto',
  'wykryto',
  'αρνητικ[όο]',
  'θετικ[όο]',
];
const OTHER_QUALITATIVE = [
  // A blood group with its Rh type (`A Positive`, `O NEG`, `AB Rh positive`, `B+`): one value, its `A` no flag.
  '(?:a|b|ab|o) (?:rh )?(?:positive|negative|pos|neg)',
  '(?:a|b|ab|o)[+-]',
  'trace',
  'small',
  'moderate',
  'large',
  'few',
  'many',
  'rare',
  'none',
  'none seen',
  'clear',
  'cloudy',
  'hazy',
  'turbid',
  'slightly cloudy',
  'yellow',
  'pale yellow',
  'light yellow',
  'dark yellow',
  'straw',
  'amber',
  'colorless',
  'red',
  'brown',
  'normal',
  'equivocal',
  'indeterminate',
  '[1-4]\\+',
  'tracce',
  'scarsi',
  'rari',
  'abbondante',
  'giallo',
  'giallo paglierino',
  'paglierino',
  'limpido',
  'torbido',
  'leggermente torbido',
  'normale',
  'eser',
  'sarı',
  'berrak',
  'bulanık',
  'amarillo',
  'amarillo claro',
  'amarillo paja',
  '[áa]mbar',
  'claro',
  'transparente',
  'turbio',
  'ligeramente turbio',
  'trazas',
  'amarelo',
  'l[íi]mpido',
  'żółt[ay]',
  'jasnożółt[ay]',
  'słomkow[ay]',
  'przejrzyst[yae]',
  'mętn[yae]',
  'lekko mętn[yae]',
  'ślad',
  'śladowe',
  'κίτρινο',
  'κιτρινο',
  'ανοιχτό κίτρινο',
  'διαυγής',
  'διαυγης',
  'θολό',
  'θολο',
  'ελαφρώς θολό',
  'ίχνη',
  'ιχνη',
];
const BOOLEAN_WORDS = new RegExp(`^(${BOOLEAN.join('|')})$`, 'i');
const QUALITATIVE_WORDS = new RegExp(`^(${[...BOOLEAN, ...OTHER_QUALITATIVE].join('|')})$`, 'i');
/** The qualitative results of more than one word (`Not detected`, `Lekko mętny`), as patterns: rows.ts keeps each one value. */
export const MULTI_WORD_QUALITATIVE: readonly string[] = [...BOOLEAN, ...OTHER_QUALITATIVE].filter((pattern) => / /.test(pattern));

export function isQualitative(text: string): boolean {
  return QUALITATIVE_WORDS.test(text.trim());
}

/** Flags labs print beside a result (the `*` and `!` variants included). */
const FLAG = /^(?:\*?(?:H|L|HH|LL|A|AA|C|CH|CL|HIGH|LOW|ABN|ABNORMAL|CRIT|CRITICAL|H\*|L\*|HI|LO|ALTO|BAJO|CR[IÍ]TICO|ANORMAL|PANIC)\*?|\*|!|!!|↑|↓|↑↑|↓↓)$/i;

export function isFlag(text: string): boolean {
  return FLAG.test(text.trim());
}

export type FlagMeaning = 'high' | 'low' | 'abnormal' | 'critical_high' | 'critical_low' | 'critical';

export function flagMeaning(flag: string): FlagMeaning {
  const raw = flag.trim().toUpperCase();
  const f = raw.replace(/\*/g, '');
  // A starred high or low (`H*`, `*L`) is the critical mark of many lab systems.
  // (Spanish `ALTO`, `BAJO`, `CRÍTICO`; Polish arrows, doubled for a critical value; a panic value is critical.)
  if (f === 'HH' || f === 'CH' || f === '!!' || f === '↑↑' || (f === 'H' && raw !== f)) return 'critical_high';
  if (f === 'LL' || f === 'CL' || f === '↓↓' || (f === 'L' && raw !== f)) return 'critical_low';
  if (f === 'C' || f === 'CRIT' || f === 'CRITICAL' || f === 'CRITICO' || f === 'CRÍTICO' || f === 'PANIC') return 'critical';
  if (f === 'H' || f === 'HI' || f === 'HIGH' || f === 'ALTO' || f === '↑') return 'high';
  if (f === 'L' || f === 'LO' || f === 'LOW' || f === 'BAJO' || f === '↓') return 'low';
  return 'abnormal';
}

/** A result value: a number, a number with a comparator, a titre or ratio, or a qualitative word. */
export interface ParsedValue {
  value: string;
  type: LabReportResultType;
  number: number | null;
  comparator: string | null;
}

export function parseValue(text: string): ParsedValue | null {
  const t = text.trim().replace(/\s+/g, ' ');
  const n = parseNumber(t);
  if (n !== null) return { value: t.replace(/,/g, ''), type: 'numeric', number: n, comparator: null };
  const cmp = new RegExp(`^(${COMPARATOR})\\s*(${NUMBER})$`).exec(t);
  if (cmp) {
    const number = Number(cmp[2].replace(/,/g, ''));
    const comparator = normaliseComparator(cmp[1]);
    return { value: `${comparator}${cmp[2].replace(/,/g, '')}`, type: 'range', number, comparator };
  }
  const ratio = /^(\d+)\s*:\s*(\d+)$/.exec(t);
  if (ratio) return { value: `${ratio[1]}:${ratio[2]}`, type: 'ratio', number: null, comparator: null };
  if (isQualitative(t)) {
    return { value: t, type: BOOLEAN_WORDS.test(t) ? 'boolean' : 'comment', number: null, comparator: null };
  }
  return null;
}

function normaliseComparator(c: string): string {
  if (c === '=<' || c === '≤') return '<=';
  if (c === '=>' || c === '≥') return '>=';
  return c;
}

/** A reference interval: `0.40-4.50`, `3.5 - 5.0`, `<200`, `>= 40`, `(> 60)`, `Up to 5.6`, `Negative`. */
export interface ParsedRange {
  min: number | null;
  max: number | null;
  text: string;
  /** The expected qualitative result (`Negative`), when the interval is a word. */
  expected: string | null;
}

export function parseRange(text: string): ParsedRange | null {
  const t = text
    .trim()
    .replace(/^(ref(erence)?( range| interval)?|normal|range)[:.]?\s*/i, '')
    // An interval in brackets (`(3,5 - 5,3)`, `(> 60)`, `[< 9]`) is the interval inside them.
    .replace(/^\((.*)\)$|^\[(.*)\]$/, '$1$2')
    .trim()
    .replace(/[–—]/g, '-')
    .replace(/\s+/g, ' ');
  if (!t) return null;
  const between = new RegExp(`^(${NUMBER})\\s*(?:-|to)\\s*(${NUMBER})$`, 'i').exec(t);
  if (between) {
    const min = Number(between[1].replace(/,/g, ''));
    const max = Number(between[2].replace(/,/g, ''));
    if (min <= max) return { min, max, text: t, expected: null };
    return null;
  }
  const below = new RegExp(`^(?:<=|<|≤|=<|up to|less than|below)\\s*(${NUMBER})$`, 'i').exec(t);
  if (below) return { min: null, max: Number(below[1].replace(/,/g, '')), text: t, expected: null };
  const above = new RegExp(`^(?:>=|>|≥|=>|greater than|above|over)\\s*(${NUMBER})$`, 'i').exec(t);
  if (above) return { min: Number(above[1].replace(/,/g, '')), max: null, text: t, expected: null };
  if (isQualitative(t)) return { min: null, max: null, text: t, expected: t };
  return null;
}

/** Units as labs print them: `mg/dL`, `x10E3/uL`, `10^3/µL`, `x10³/µL`, `%`, `mL/min/1.73m2`, `U/L`. */
const UNIT = /^(?:%|[a-zA-Zµμ][a-zA-Z0-9µμ/.*^×\-²³⁶⁹]*|(?:x\s?)?10(?:[E^*]?\d+|[³⁶⁹])\/[a-zA-Zµμ]+|\d+\*\d+\/[a-zA-Zµμ]+|\/[a-zA-Zµμ]+)$/;
const NOT_UNITS = /^(?:to|and|or|up|less|than|see|note|comment|ref|range|of|the|in|from|on|by|final|pending)$/i;

export function isUnit(text: string): boolean {
  const t = text.trim();
  return t.length <= 18 && UNIT.test(t) && !isFlag(t) && !isQualitative(t) && !NOT_UNITS.test(t) && /[a-zA-Zµμ%]/.test(t);
}

/**
 * A decimal point read as a colon (`2:5`, `15:3`, `13:2-17:1`): a number, not a lone `1` (titres are
 * `1:N`), a colon, and one digit (times have two).
 */
const DECIMAL_COLON = /(?<![\p{L}\d:.])(?!1:)(\d+):(\d)(?![\d:])/gu;

/** `15:3` → `15.3` wherever OCR read a decimal point as a colon (`DECIMAL_COLON`); the rest as read. */
export function repairDecimalColons(text: string): string {
  return text.replace(DECIMAL_COLON, '$1.$2');
}

/** OCR reads of digits: `O`→0, `l`/`I`→1, `S`→5 inside a token that is otherwise a number. */
export function repairOcrNumber(token: string): string {
  // A comparator before one letter that reads as a digit (`<l` for `<1`, `<O` for `<0`): a bound.
  if (/^(<=|>=|<|>|≤|≥)[OoIl]$/.test(token)) return token.replace(/[Oo]$/, '0').replace(/[Il]$/, '1');
  if (!/\d/.test(token)) return token;
  if (/^(?!1:)\d+:\d$/.test(token)) return token.replace(':', '.');
  if (!/^[<>≤≥=]*[\dOoIlS.,]+$/.test(token)) return token;
  return token.replace(/[Oo]/g, '0').replace(/[Il]/g, '1').replace(/S/g, '5');
}
