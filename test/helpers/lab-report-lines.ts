import type { ExtractedDocument } from '../../src/lab-reports/parsing';
import type { Line } from '../../src/lab-reports/parsing/layout';
import { parseMetadata } from '../../src/lab-reports/parsing/metadata';

/** A word as a text layer gives it: 5 points a character, 9 high. */
const word = (text: string, x: number) => ({ text, x, y: 0, w: text.length * 5, h: 9, confidence: null });

/**
 * A printed line from `[x, text]` pieces: each piece's words set one space (5 points) apart, and
 * cells parted where the gap to the next word is wider than 8 points, as the layout step parts them.
 */
export function line(y: number, ...pieces: [number, string][]): Line {
  const words = pieces.flatMap(([x, text]) => {
    let at = x;
    return text.split(' ').map((t) => {
      const w = word(t, at);
      at += w.w + 5;
      return w;
    });
  });
  const cells = words.reduce<Line['cells']>((into, w) => {
    const last = into[into.length - 1];
    if (last && w.x - last.x1 < 8) Object.assign(last, { text: `${last.text} ${w.text}`, x1: w.x + w.w, words: [...last.words, w] });
    else into.push({ text: w.text, x0: w.x, x1: w.x + w.w, words: [w] });
    return into;
  }, []);
  return { page: 0, y, height: 9, cells, text: cells.map((c) => c.text).join('   '), confidence: 1 };
}

/** `line`, as OCR read it: each word with its confidence (0.9). */
export function ocrLine(y: number, ...pieces: [number, string][]): Line {
  const read = line(y, ...pieces);
  return { ...read, confidence: 0.9, cells: read.cells.map((cell) => ({ ...cell, words: cell.words.map((w) => ({ ...w, confidence: 0.9 })) })) };
}

const masthead: Line = { page: 0, y: 10, height: 16, cells: [{ text: 'Harbor Lab', x0: 0, x1: 60, words: [] }], text: 'Harbor Lab', confidence: 1 };

/** The metadata of a first page holding a lab's masthead and `lines`. */
export const metadataOf = (...lines: Line[]) => parseMetadata([masthead, ...lines], 800);

/** A text-layer page from rows of `[x, text]` cells, each row 14 points under the last, words 5 points a character. */
export function textPage(...rows: [number, string][][]): ExtractedDocument {
  const words = rows.flatMap((cells, i) =>
    cells.flatMap(([x, text]) => {
      let at = x;
      return text.split(' ').map((t) => {
        const w = { text: t, x: at, y: 40 + i * 14, w: t.length * 5, h: 9, confidence: null };
        at += w.w + 5;
        return w;
      });
    }),
  );
  return { kind: 'pdf', method: 'text', pages: [{ width: 600, height: 800, words }], ocrConfidence: null, language: null };
}
