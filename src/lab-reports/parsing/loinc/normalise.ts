import { OTHER_LANGUAGE_PHRASES, OTHER_LANGUAGE_WORDS } from './other-languages';

/**
 * Test names and units as comparable keys. OCR misreads are folded the same way on both sides
 * (`HbAlc`, `HbA1c` → `hbalc`; a lone `Alc`/`AIC` → `a1c`), so a noisy name still meets its alias.
 */
export function nameKey(text: string): string {
  return nameTokens(text).join(' ');
}

const SYNONYMS: Record<string, string> = {
  alc: 'a1c',
  aic: 'a1c',
  a1c: 'a1c',
  haemoglobin: 'hemoglobin',
  haematocrit: 'hematocrit',
  oestradiol: 'estradiol',
  leucocytes: 'leukocytes',
  tot: 'total',
  abs: 'absolute',
  chol: 'cholesterol',
  bili: 'bilirubin',
  calc: 'calculated',
  vit: 'vitamin',
  sgot: 'ast',
  sgpt: 'alt',
  // European labs' transaminases (Dutch, German, Scandinavian): `ASAT`, `ALAT`.
  asat: 'ast',
  alat: 'alt',
  '25oh': '25 hydroxy',
  hydroxyvitamin: 'hydroxy vitamin',
  gamma: 'gamma',
  // A urine's clarity as some labs name it.
  transparency: 'clarity',
  // Haematology analysers' short names (`NEU%`, `LYM#`).
  'neu%': 'neutrophils %',
  'neu#': 'neutrophils #',
  'lym%': 'lymphocytes %',
  'lym#': 'lymphocytes #',
};

/**
 * A name's comparable words: accents, case and punctuation dropped, British and Dutch spellings
 * read as the catalogue's, and a word said twice said once (a bilingual `Albumine / Albumin` is
 * `albumin`, as its English half).
 */
export function nameTokens(text: string): string[] {
  const base = text
    // An abbreviation written with stops is one word (`M.C.H.C`, `T.I.B.C`, `M.P .V` as a text layer
    // may space it): its letters apart, `M.C.H.C` read as MCH.
    .replace(/(?<!\p{L})\p{L}(?:\s?\.\s?\p{L}(?!\p{L})){2,}\.?/gu, (abbreviation) => abbreviation.replace(/[\s.]/g, ''))
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    // A micro sign, not the mu of a Greek word (`Χρώμα`).
    .replace(/(?<![α-ω])[µμ](?![α-ω])/g, 'u')
    // Letters NFKD does not take apart: Turkish dotless ı, Vietnamese đ, Polish ł; Greek's final sigma.
    .replace(/ı/g, 'i')
    .replace(/đ/g, 'd')
    .replace(/ł/g, 'l')
    .replace(/ς/g, 'σ')
    .replace(/[^a-z0-9%#α-ω]+/g, ' ')
    .trim();
  if (!base) return [];
  return OTHER_LANGUAGE_PHRASES.reduce((text, [phrase, english]) => text.replace(phrase, english), base)
    .split(' ')
    .map((token) => SYNONYMS[token] ?? OTHER_LANGUAGE_WORDS[token] ?? token)
    .flatMap((token) => token.split(' '))
    .filter(Boolean)
    .map((token) => (token.length >= 4 && /[a-z]{2}/.test(token) ? token.replace(/0/g, 'o').replace(/1/g, 'l').replace(/5/g, 's') : token))
    .filter((token, i, all) => all.indexOf(token) === i);
}

/**
 * A name key with the letters OCR reads for one another in test names folded together: capital I,
 * lower-case l, the digit 1 and T (`AIP` for `ALP`, `LDI-C` for `LDL-C`, `Tron` for `Iron`,
 * `Free 13` for `Free T3`), O and 0, `rr` and `n` (`Fenitin` for `Ferritin`), `rn` and `m`, a capital
 * doubled by its lower-case letter (`CcOo2` for `CO2`), and stops between letters dropped or kept
 * (`TLB.C` for `T.I.B.C`). Only for a name that meets no catalogue name as read (match.ts): folded, `ALT` and `AIT`
 * are one name, so a name that is a test's own must never be looked up this way.
 */
export function ocrFoldedKey(text: string): string {
  const undoubled = text.replace(/([A-Z])([a-z])/g, (pair, upper: string, lower: string) => (upper.toLowerCase() === lower ? upper : pair));
  // Words as printed (no synonyms: `Oesiradiol` must meet `Oestradiol`, not `estradiol`).
  return undoubled
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/µ|μ/g, 'u')
    .replace(/(?<=[a-z])\.(?=[a-z])/g, '')
    .replace(/[^a-z0-9%#]+/g, ' ')
    .trim()
    .replace(/[il1t]/g, 'l')
    .replace(/rr/g, 'n')
    .replace(/rn/g, 'm')
    .replace(/0/g, 'o');
}

/** Units of the same meaning print in many spellings: `x10E3/uL`, `10^3/µL`, `K/uL`, `10^9/L`. */
export function unitKey(unit: string | null | undefined): string | null {
  if (!unit) return null;
  const u = unit
    .toLowerCase()
    .replace(/µ|μ/g, 'u')
    .replace(/\s+/g, '')
    // A power of ten set as a superscript (`x10³/µL`, `10⁹/L`).
    .replace(/[³⁶⁹]/g, (d) => ({ '³': '3', '⁶': '6', '⁹': '9' })[d] ?? d)
    .replace(/^mcg/, 'ug')
    .replace(/mcg\//, 'ug/')
    .replace(/mcmol/, 'umol')
    .replace(/\/hpf$/, '/[hpf]')
    // OCR reads the I of mIU and uIU as l.
    .replace(/^([mu])lu\//, '$1iu/')
    .replace(/[.,;:]+$/, '');
  if (/^(x?10[\^e*]?3\/u?l|k\/ul|thou\/ul|thousand\/ul|10[\^e*]?9\/l|x10[\^e*]?9\/l|x?10\*9\/l|giga\/l|g\/l_cells)$/.test(u) && !/^g\/l$/.test(u))
    return '10^3/ul';
  if (/^(x?10[\^e*]?6\/u?l|m\/ul|mil\/ul|million\/ul|10[\^e*]?12\/l|x10[\^e*]?12\/l|tera\/l)$/.test(u)) return '10^6/ul';
  if (u === 'miu/l' || u === 'uiu/ml' || u === 'uu/ml' || u === 'mu/l') return 'miu/l';
  if (u === 'iu/l' || u === 'u/l' || u === 'units/l') return 'u/l';
  if (u === 'ng/ml' || u === 'ug/l') return 'ng/ml';
  if (u === 'pg/ml' || u === 'ng/l') return 'pg/ml';
  if (u === 'ml/min/1.73m2' || u === 'ml/min/1.73' || u === 'ml/min/{1.73_m2}' || u === 'ml/min/1.73m^2' || u === 'ml/min/1.73sqm') return 'ml/min/1.73m2';
  if (u === 'meq/l') return 'mmol/l';
  if (u === 'mm/hr' || u === 'mm/h') return 'mm/h';
  return u;
}

/** Two units that measure the same kind of quantity (both concentrations, say) without being equal. */
export function sameDimension(a: string, b: string): boolean {
  const kind = (u: string) => (u === '%' ? 'fraction' : /\/(d?l|ml|ul)$/.test(u) ? 'concentration' : /^(fl|pg|sec|s|min|ratio|mm\/h)$/.test(u) ? u : 'other');
  return kind(a) === kind(b) && kind(a) !== 'other';
}
