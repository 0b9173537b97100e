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
  // Haematology analysers' short names (`NEU%`, `LYM#`).
  'neu%': 'neutrophils %',
  'neu#': 'neutrophils #',
  'lym%': 'lymphocytes %',
  'lym#': 'lymphocytes #',
};

/**
 * Test names in Dutch (`Lymfocyten %`, `Kalium`, `Totaal eiwit`, `Glucose nuchter`), word by word as
 * their English names: a Dutch lab's names then meet the catalogue's English ones (German shares
 * `Natrium`, `Kalium`; French `Albumine`, `Bilirubine`). Words the languages spell alike
 * (`Glucose`, `Calcium`, `Cholesterol`) need nothing.
 */
const DUTCH: Record<string, string> = {
  hemoglobine: 'hemoglobin',
  hematocriet: 'hematocrit',
  leukocyten: 'leukocytes',
  leucocyten: 'leukocytes',
  erytrocyten: 'erythrocytes',
  erythrocyten: 'erythrocytes',
  trombocyten: 'platelets',
  neutrofielen: 'neutrophils',
  neutrofiele: 'neutrophils',
  lymfocyten: 'lymphocytes',
  monocyten: 'monocytes',
  eosinofielen: 'eosinophils',
  eosinofiele: 'eosinophils',
  basofielen: 'basophils',
  basofiele: 'basophils',
  granulocyten: 'granulocytes',
  reticulocyten: 'reticulocytes',
  bse: 'esr',
  bezinking: 'sedimentation',
  ureum: 'urea',
  kreatinine: 'creatinine',
  natrium: 'sodium',
  kalium: 'potassium',
  fosfaat: 'phosphate',
  urinezuur: 'uric acid',
  totaal: 'total',
  eiwit: 'protein',
  albumine: 'albumin',
  bilirubine: 'bilirubin',
  geconjugeerd: 'direct',
  alkalische: 'alkaline',
  fosfatase: 'phosphatase',
  ferritine: 'ferritin',
  transferrine: 'transferrin',
  ijzer: 'iron',
  foliumzuur: 'folate',
  vitamine: 'vitamin',
  vrij: 'free',
  nuchter: 'fasting',
  triglyceriden: 'triglycerides',
  berekend: 'calculated',
};

/**
 * Test names in Italian and Turkish where they differ from the English, word by word as DUTCH
 * (`VES`, `Emoglobina`, `Eritrosit dağılım genişliği`), and the phrases that are one word in
 * English (`Peso specifico`, `Corpi chetonici`, the Vietnamese `lúc đói` after a test's name);
 * Turkish puts `non-` after its noun (`HDL dışı kolesterol`).
 */
const OTHER_LANGUAGE_PHRASES: [RegExp, string][] = [
  [/\bpeso specifico\b/g, 'specific gravity'],
  [/\bcorpi chetonici\b/g, 'ketones'],
  [/\bluc doi\b/g, 'fasting'],
  [/\b(\w+) disi\b/g, 'non $1'],
];
const OTHER_LANGUAGES: Record<string, string> = {
  ves: 'esr',
  aspetto: 'appearance',
  emoglobina: 'hemoglobin',
  glucosio: 'glucose',
  colesterolo: 'cholesterol',
  trigliceridi: 'triglycerides',
  creatinina: 'creatinine',
  azotemia: 'urea',
  potassio: 'potassium',
  sodio: 'sodium',
  ferro: 'iron',
  fosfatasi: 'phosphatase',
  alcalina: 'alkaline',
  cloro: 'chloride',
  bicarbonati: 'bicarbonate',
  kolesterol: 'cholesterol',
  trigliserid: 'triglycerides',
  kreatinin: 'creatinine',
  eritrosit: 'erythrocyte',
  dagilim: 'distribution',
  genisligi: 'width',
  bikarbonat: 'bicarbonate',
};

/**
 * A name's comparable words: accents, case and punctuation dropped, British and Dutch spellings
 * read as the catalogue's, and a word said twice said once (a bilingual `Albumine / Albumin` is
 * `albumin`, as its English half).
 */
export function nameTokens(text: string): string[] {
  const base = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/µ|μ/g, 'u')
    // Letters NFKD does not take apart: Turkish dotless ı, Vietnamese đ.
    .replace(/ı/g, 'i')
    .replace(/đ/g, 'd')
    .replace(/[^a-z0-9%#]+/g, ' ')
    .trim();
  if (!base) return [];
  return OTHER_LANGUAGE_PHRASES.reduce((text, [phrase, english]) => text.replace(phrase, english), base)
    .split(' ')
    .map((token) => SYNONYMS[token] ?? DUTCH[token] ?? OTHER_LANGUAGES[token] ?? token)
    .flatMap((token) => token.split(' '))
    .map((token) => (token.length >= 4 && /[a-z]{2}/.test(token) ? token.replace(/0/g, 'o').replace(/1/g, 'l').replace(/5/g, 's') : token))
    .filter((token, i, all) => all.indexOf(token) === i);
}

/**
 * A name key with the letters OCR reads for one another in test names folded together: capital I,
 * lower-case l, the digit 1 and T (`AIP` for `ALP`, `LDI-C` for `LDL-C`, `Tron` for `Iron`,
 * `Free 13` for `Free T3`), O and 0, and a capital doubled by its lower-case letter (`CcOo2` for
 * `CO2`). Only for a name that meets no catalogue name as read (match.ts): folded, `ALT` and `AIT`
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
    .replace(/[^a-z0-9%#]+/g, ' ')
    .trim()
    .replace(/[il1t]/g, 'l')
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
