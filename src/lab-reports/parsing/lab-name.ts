import type { Line } from './layout';

/** The lab's name from the report's masthead, and its CLIA number where printed. Used by ./metadata.ts. */

/**
 * A CLIA number: two digits, `D`, seven digits, printed after "CLIA" (`CLI`, `CLI A`: OCR lost
 * its bold `A` or read it apart; the number's own shape is what says it is one).
 */
export const CLIA = /\bCLI(?:\s?A)?(?:\s*(?:no\.?|number|#|id))?\s*[:#]?\s*(\d{2}D\d{7})\b/i;

const NOT_A_LAB_NAME = /\b(report|results?|patient|page|final|confidential|summary)\b/i;

/**
 * The lab's name: the largest line printed in the top fifth of the first page, of two words or
 * more (a lone word there is a field's value, `Male`, whose OCR box a bordered patient block's
 * rules make tall), read by OCR with at least `minConfidence`.
 */
export function labName(lines: Line[], pageHeight: number, minConfidence: number): string | null {
  const named = (l: Line) => (l.cells[0].text.match(/\p{L}{2,}/gu) ?? []).length >= 2;
  // A line OCR was unsure of is no name: a word it garbled, whose box spans the word's neighbours (a photo's `os Compl`).
  const candidates = lines.filter(
    (l) => l.y < pageHeight * 0.2 && named(l) && l.confidence >= minConfidence && !NOT_A_LAB_NAME.test(l.text) && !l.text.includes(':'),
  );
  if (!candidates.length) return null;
  const best = candidates.reduce((a, b) => (b.height > a.height * 1.05 ? b : a));
  // OCR reads a company's `Ltd.` as `Lid.` (its t's cross lost): no name ends so.
  return best.cells[0].text.trim().replace(/\bLid\.?$/, 'Ltd.');
}
