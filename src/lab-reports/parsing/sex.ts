import { withinOneEdit } from './edit-distance';

/** The sex a report prints for its patient: an honorific before the name, a sex label's value as labs print it, or as OCR misread it. Used by ./metadata.ts. */

/** The sex an honorific before a name says (`Mr` male; `Mrs`, `Ms`, `Miss` female). */
export function honorificSex(text: string): 'male' | 'female' | null {
  // (`Mr.Somchai`: the title's stop may run into the name.)
  const first = text
    .trim()
    .split(/[\s.]+/)[0]
    ?.toLowerCase();
  // Dutch `Dhr.` (de heer) and `Mevr.` / `Mw.` (mevrouw) as well.
  if (first === 'mr' || first === 'dhr') return 'male';
  if (first === 'mrs' || first === 'ms' || first === 'miss' || first === 'mevr' || first === 'mw' || first === 'mevrouw') return 'female';
  return null;
}

export function parseSex(text: string): 'male' | 'female' | null {
  const t = text.toLowerCase();
  // An age and sex run together (`62Y/F`, OCR's `62YF`).
  const ageSex = /\d\s*y(?:rs?|ears?)?\s*[/|\\]?\s*([mf])\b/.exec(t);
  if (ageSex) return ageSex[1] === 'f' ? 'female' : 'male';
  // Dutch `Vrouw` (a `V` alone is Dutch female but Spanish male, `varón`: metadata.ts reads it by the report's labels).
  // Italian `Femminile` / `Maschile`, Turkish `Kadın` / `Erkek`, Vietnamese `Nữ` / `Nam` (a `K` or `E` alone: metadata.ts, by the report's labels).
  // Greek `Θήλυ` / `Γυναίκα`, `Άρρεν` / `Άνδρας`; Spanish `Femenino` / `Mujer`, `Masculino` / `Hombre`
  // (Portuguese `Feminino`); Polish `Kobieta`, `Mężczyzna`.
  if (/(^|[^\p{L}])(female|f|woman|vrouw|femminile|femmina|kadın|nữ|θήλυ|θηλυ|γυναίκα|γυναικα|femenino|feminino|mujer|kobieta)(?![\p{L}])/u.test(t))
    return 'female';
  if (/(^|[^\p{L}])(male|m|man|maschile|maschio|erkek|nam|άρρεν|αρρεν|άνδρας|ανδρας|masculino|hombre|mężczyzna)(?![\p{L}])/u.test(t)) return 'male';
  return null;
}

/**
 * A sex value OCR misread by one letter (`Mle`, `Mile` for `Male`; `Femle` for `Female`): a word
 * within one letter of `male` or `female` that begins as it does.
 */
export function misreadSex(value: string): 'male' | 'female' | null {
  const word = value.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!/^\p{L}{3,7}$/u.test(word)) return null;
  if (word[0] === 'm' && withinOneEdit(word, 'male')) return 'male';
  if (word[0] === 'f' && withinOneEdit(word, 'female')) return 'female';
  return null;
}
