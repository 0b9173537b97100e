import { detectAll } from 'tinyld';

/**
 * Words nearly every English lab report prints; their share of a report's words tells English
 * from a report in another language even where the names of analytes are international.
 */
const ENGLISH_MARKERS = new Set(
  (
    'the of and for in to by with result results reference range units unit flag test tests name patient date birth collected ' +
    'received reported report specimen sex gender male female high low normal abnormal negative positive not detected page ' +
    'total blood count cell cells white red serum urine panel comprehensive metabolic lipid iron vitamin hemoglobin glucose ' +
    'cholesterol protein ordering physician doctor account laboratory lab final status value values interval previous age ' +
    'clear yellow none trace free thyroid function kidney liver calcium sodium potassium chloride'
  ).split(' '),
);

/**
 * At or above this share of ENGLISH_MARKERS among its words a report is English, or bilingual
 * with English labels, which the parser reads. Measured on the corpus's text PDFs: English and
 * bilingual (Spanish, French) reports 0.107-0.61, the German report 0.040.
 */
const ENGLISH_SHARE = 0.07;

/** The report's language (ISO 639-1) from its words, or null when there are too few to tell. */
export function detectLanguage(words: string[]): string | null {
  const lettered = words.map((w) => w.toLowerCase().replace(/[^\p{L}]/gu, '')).filter((w) => w.length >= 2);
  if (lettered.length < 15) return null;
  const english = lettered.filter((w) => ENGLISH_MARKERS.has(w)).length / lettered.length;
  // Analyte names and units are shared across languages, so the English-word share decides. The
  // n-gram detector only names the language of a report below it: on a lab report's words it is
  // unreliable (it named English reports Irish, Berber, Greek or Klingon, and a French/English one Greek).
  if (english >= ENGLISH_SHARE) return 'en';
  return detectAll(lettered.join(' '))[0]?.lang ?? 'en';
}
