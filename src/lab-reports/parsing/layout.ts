import { median } from './median';
import { joinMonospaceFragments, letterWidth, monospacePitches } from './monospace';
import type { ExtractedPage, ExtractedWord } from './types';

/** Words that sit close together on one line: a table cell, a label with its value. */
export interface Cell {
  text: string;
  x0: number;
  x1: number;
  words: ExtractedWord[];
}

/** One printed line of a page, its words grouped into cells by the gaps between them. */
export interface Line {
  page: number;
  y: number;
  height: number;
  cells: Cell[];
  text: string;
  /** Mean OCR confidence of its words (1 for a text layer). */
  confidence: number;
}

/** Blank, in character cells, that parts two cells of a line printed in a monospaced font. */
const MONOSPACE_CELL_GAP_PITCHES = 2.2;

/**
 * How far under a line, in its line heights, the next line of the same block may print: a value
 * under its label, the next row of a grid or of aligned label columns, a block's first line under
 * its heading.
 */
export const BLOCK_GAP_LINES = 2.5;
/** How far apart, in line heights, two left edges may be and still start the same column. */
export const COLUMN_ALIGN_LINES = 0.6;

/**
 * Words whose vertical centres are this close, in line heights, print on one line even where one's
 * box overlaps the other's, when that box is wider than its letters (`oversized`): OCR gives a bold
 * word it split a box for its first piece that spans the rest (`VERI` over `FI ED:`, Courier bold's
 * `VERIFIED:`). Two printed lines cannot sit so close.
 */
const SAME_LINE_CENTRES = 0.15;
/** Width per letter, in the box's heights, over which an OCR'd word's box spans more than its letters. */
const OVERSIZED_LETTER_WIDTH = 1.2;

/** An OCR'd word of three letters or more whose box is wider than its letters are (`VERI` 180 px wide, 28 high). */
function oversized(word: ExtractedWord): boolean {
  return word.confidence !== null && word.text.length >= 3 && word.w > word.text.length * word.h * OVERSIZED_LETTER_WIDTH;
}

/**
 * Rebuilds lines from word boxes: words whose vertical centres are within half a line height
 * join one line (tolerating the slight slope of a photographed page), then a gap wider than
 * about one character height starts a new cell.
 */
export function pageLines(page: ExtractedPage, pageIndex: number): Line[] {
  const words = page.words.filter((w) => w.text.trim() && w.h > 0);
  const typical = median(words.map((w) => w.h)) || 10;
  const sorted = [...words].sort((a, b) => a.y + a.h / 2 - (b.y + b.h / 2) || a.x - b.x);
  const groups: { centre: number; words: ExtractedWord[] }[] = [];
  for (const word of sorted) {
    const centre = word.y + word.h / 2;
    const group = groups.find((g) => {
      const off = Math.abs(g.centre - centre);
      if (off >= typical * 0.5) return false;
      // A split word's first piece, its box over the rest, is no word of another line.
      const blocking = off < typical * SAME_LINE_CENTRES ? (oversized(word) ? [] : g.words.filter((w) => !oversized(w))) : g.words;
      return !overlapsAny(blocking, word);
    });
    if (group) {
      group.words.push(word);
      group.centre = (group.centre * (group.words.length - 1) + centre) / group.words.length;
    } else {
      groups.push({ centre, words: [word] });
    }
  }
  // Judged per line: a page may print sizes of type in Courier and others in a proportional font.
  const ordered = groups.map((group) => [...group.words].sort((a, b) => a.x - b.x));
  const pitches = monospacePitches(ordered);
  return ordered
    .map((line, i) => {
      // A heading printed larger, too short to judge alone, takes the body's grid: its own cells are wider.
      const pitch = pitches[i];
      const joined = joinMonospaceFragments(line, pitch === null ? null : Math.max(pitch, letterWidth(line)));
      return toLine(joined, pageIndex, typical, pitch);
    })
    .sort((a, b) => a.y - b.y);
}

/**
 * Whether a word overlaps a word of the group (then it prints on another line); an overlap of a
 * few points, a quarter of the narrower word at most, is two cells set tight (`mL/min/1.73m2>60`).
 */
function overlapsAny(words: ExtractedWord[], word: ExtractedWord): boolean {
  return words.some((w) => Math.min(word.x + word.w, w.x + w.w) - Math.max(word.x, w.x) > Math.max(1, Math.min(word.w, w.w) * 0.25));
}

function toLine(words: ExtractedWord[], page: number, typical: number, monospacePitch: number | null): Line {
  const ordered = [...words].sort((a, b) => a.x - b.x);
  const height = median(ordered.map((w) => w.h)) || typical;
  // In a monospaced font a space is a whole character cell wide (more after a narrow glyph), and
  // columns are padded with several: two and a bit cells part cells there.
  const pitch = monospacePitch === null ? 0 : Math.max(monospacePitch, letterWidth(ordered));
  const gap = Math.max(Math.max(height, typical) * 0.85, pitch * MONOSPACE_CELL_GAP_PITCHES);
  const cells: Cell[] = [];
  for (const word of ordered) {
    const last = cells[cells.length - 1];
    if (last && word.x - last.x1 < gap) {
      last.words.push(word);
      last.text += ` ${word.text}`;
      last.x1 = Math.max(last.x1, word.x + word.w);
    } else {
      cells.push({ text: word.text, x0: word.x, x1: word.x + word.w, words: [word] });
    }
  }
  const confidences = ordered.map((w) => w.confidence ?? 1);
  return {
    page,
    y: Math.min(...ordered.map((w) => w.y)),
    height,
    cells,
    text: cells.map((c) => c.text).join('  '),
    confidence: confidences.reduce((a, b) => a + b, 0) / confidences.length,
  };
}

/** Whether a line was read by OCR: its words carry a confidence (a text layer's have none). */
export function ocrRead(line: Line): boolean {
  return line.cells.some((cell) => cell.words.some((w) => w.confidence !== null && w.confidence !== undefined));
}

/** A line made of some of another line's cells (a side column parted from the rest, side-columns.ts). */
export function lineFromCells(cells: Cell[], from: Line): Line {
  const words = cells.flatMap((c) => c.words);
  if (!words.length) return { ...from, cells, text: cells.map((c) => c.text).join('  ') };
  const confidences = words.map((w) => w.confidence ?? 1);
  return {
    page: from.page,
    y: Math.min(...words.map((w) => w.y)),
    height: median(words.map((w) => w.h)),
    cells,
    text: cells.map((c) => c.text).join('  '),
    confidence: confidences.reduce((a, b) => a + b, 0) / confidences.length,
  };
}

/**
 * Lines printed on two or more pages at about the same height (running headers and footers),
 * so a table continuing on the next page is not interrupted by them. Keyed by `lineKey`.
 */
export function repeatedLines(pages: Line[][]): Set<string> {
  if (pages.length < 2) return new Set();
  const seen = new Map<string, Set<number>>();
  pages.forEach((lines, index) => {
    for (const line of lines) {
      const key = lineKey(line);
      if (!key) continue;
      const set = seen.get(key) ?? new Set<number>();
      set.add(index);
      seen.set(key, set);
    }
  });
  return new Set([...seen].filter(([, on]) => on.size >= 2).map(([key]) => key));
}

/** A line's text without digits and spacing (`Page 1 of 3` and `Page 2 of 3` are the same). */
export function lineKey(line: Line): string {
  return line.text.toLowerCase().replace(/[\d\s]+/g, '');
}
