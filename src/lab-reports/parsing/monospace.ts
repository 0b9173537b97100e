import { median } from './median';
import type { ExtractedWord } from './types';

/**
 * Reports printed in a monospaced font (many laboratory systems print in Courier) leave a wide
 * blank after narrow glyphs: `Yel l ow`, `Non- Reactive`, `1. 005`. OCR takes those blanks for
 * spaces and splits words, values and dates. These helpers tell such lines by their character
 * grid and join the pieces back.
 *
 * In a monospaced font every glyph takes one cell, so the words of a run of text start a whole
 * number of cells apart: `Urine Col|or` starts `Col` 6 cells after `Urine` and `or` 3 after `Col`,
 * however wide OCR's boxes are. In a proportional font the distance between two word starts is
 * no whole number of any one width. A page may print several sizes of type (a faxed report: the
 * fax header, the address lines, the body, each in Courier of its own size), each with its own
 * grid, so the grid is looked for per size: lines whose own character width (the median of their
 * words' widths per letter) is about the same are pooled, and every line that keeps to the grid
 * found is printed in that font.
 */

/** Two words of a run of text: at most this many (estimated) character widths apart. */
const RUN_GAP_PITCHES = 2.5;
/**
 * A line's words are as wide per letter as its glyphs less their side bearings, so the grid's
 * pitch is wider than the width per letter (2.4% over the page's long words on the Courier PNG and
 * photo), up to a quarter on a line of short words and pieces (`Col or`); a size's pitch is looked
 * for over the lines whose width per letter is within these ratios of it.
 */
const PITCH_OVER_WIDTH = [0.97, 1.25] as const;
/** Pitches tried, in steps of this fraction. */
const PITCH_STEP = 0.002;
/**
 * How far the starts of a size's runs keep to one grid: the sum over their distances d of
 * cos(2π d / pitch), over its standard deviation were they placed at random (√(n/2)). Measured at
 * the best pitch: 6.7–8.3 on the Courier pages (bayfront, one size, and sandhill, three), at most
 * 5.6 on every other family's (each family's PNG, JPEG, scan and photo, and their second readings;
 * the most valdespins' `Résultat / Result` labels: in Helvetica a slash and a space are as wide
 * as a digit or most lowercase letters).
 */
const MIN_GRID_SCORE = 6.1;
/**
 * The same for another size on a page where one size was found printed in a monospaced font (a
 * page set in Courier prints its headings and footer in Courier too): a one-line footer of 12
 * distances on the grid scores 4.3.
 */
const MORE_GRID_SCORE = 4;
/**
 * A space in a monospaced font is a whole cell of blank, wider than a letter's ink; in a
 * proportional font it is about half a letter. Where the lines' words stand apart by at least this
 * many widths per letter (the median gap; 1.16-1.18 on tamarack's and bayfront's Courier PNG and
 * photo, 0.59-0.75 on proportional pages, seed 99), a grid scoring `WIDE_SPACE_GRID_SCORE` is the
 * font's: on a photo, blur and the first glyph's side bearing scatter word starts, and a Courier
 * page's grid scored 5.8-6.1 there, against 5.1 for akropolis' proportional photo.
 */
const WIDE_SPACE_GAP = 1;
const WIDE_SPACE_GRID_SCORE = 5.5;
/** Distances needed to judge a size by. */
const MIN_DISTANCES = 8;
/**
 * A short page has too few distances for that score even when every one keeps to the grid (18
 * distances exactly on it score 6.0); its grid is found too when the mean cos(2π d / pitch)
 * over 12 distances or more is at least this: measured 0.68–0.90 on Courier pages, at most 0.56
 * on proportional ones.
 */
const EVEN_GRID_MEAN = 0.75;
const MIN_EVEN_DISTANCES = 12;
/**
 * A line with fewer distances than this (a heading, a row of cells far apart) is not judged alone:
 * on a page where a grid was found it takes the grid nearest its width. One with more that keeps
 * to no grid is proportional, or of a size too short to judge: left as OCR read it.
 */
const MIN_LINE_DISTANCES = 6;
/** A line keeps to a grid found when the mean cos(2π d / pitch) of its distances is at least this. */
const LINE_ON_GRID = 0.3;
/**
 * And when the grid's pitch is within these ratios of its width per letter (wider than the ratios
 * a size is pooled by: bayfront's `Urine Col or  Yellow  Yellow` is 7% wider per letter than its
 * grid): a line of one or two distances keeps to another size's grid as often as not.
 */
const LINE_PITCH_OVER_WIDTH = [0.88, 1.4] as const;
/**
 * A blank narrower than this many pitches after a narrow glyph is inside a word: measured 0.43–0.77
 * inside, ≥ 0.87 between words, in the page's median width per letter this was set with (the grid's
 * pitch is 2.4% wider: bayfront's lines read the same with either).
 */
const JOIN_GAP_PITCHES = 0.82;
/** Glyphs narrower than the cell a monospaced font gives them, after which the blank shows. */
const NARROW_END = /[ilIjtf1.,:;'\-|!]$/;
/**
 * A letter read as a word of its own (bold `J AMES` for `JAMES`): a space after it would be a whole
 * cell of blank, so a blank under this many pitches after a lone letter is inside a word too
 * (measured 0.32–0.67 on sandhill's images, seeds 20251, 5, 31337). Not up to JOIN_GAP_PITCHES: a
 * glyph OCR lost leaves its cell blank (`O'ROURKE` read `O ROURKE`, 0.81–0.85), and joined that
 * would be another name.
 */
const LONE_LETTER = /^\p{L}$/u;
const LONE_LETTER_JOIN_PITCHES = 0.7;

interface JudgedLine {
  /** The line's width per letter (median over its words of three or more characters). */
  width: number;
  /** Distances between the starts of consecutive words of a run. */
  distances: number[];
  /** The blanks between those words, in widths per letter. */
  gaps: number[];
}

/**
 * Per line (its words, left to right), the character pitch (pixels) of the monospaced font it is
 * printed in, or null: OCR pages only (a text layer's words are not split).
 */
export function monospacePitches(lines: readonly (readonly ExtractedWord[])[]): (number | null)[] {
  const pitches: (number | null)[] = lines.map(() => null);
  if (!lines.some((line) => line.some((word) => word.confidence !== null))) return pitches;
  const page = letterWidth(lines.flat());
  const judged: JudgedLine[] = lines.map((words) => {
    const width = letterWidth(words) || page;
    return { width, ...runDistances(words, width) };
  });
  const open = new Set(judged.flatMap((line, i) => (line.distances.length ? [i] : [])));
  const found: number[] = [];
  // The best grid first, then the best among the lines left (another size of type), and so on.
  for (;;) {
    const grid = bestGrid(
      [...open].map((i) => judged[i]),
      found.length ? MORE_GRID_SCORE : MIN_GRID_SCORE,
    );
    if (!grid) break;
    const on = [...open].filter((i) => {
      const { width, distances } = judged[i];
      return (
        grid >= width * LINE_PITCH_OVER_WIDTH[0] && grid <= width * LINE_PITCH_OVER_WIDTH[1] && gridScore(distances, grid) / distances.length >= LINE_ON_GRID
      );
    });
    if (!on.length) break;
    for (const i of on) {
      pitches[i] = grid;
      open.delete(i);
    }
    found.push(grid);
  }
  // A line with too few distances to judge alone (a heading, cells far apart) on a page where a
  // grid was found takes the grid nearest its own width (layout.ts widens it to the line's own).
  if (!found.length) return pitches;
  judged.forEach((line, i) => {
    if (pitches[i] !== null || line.distances.length >= MIN_LINE_DISTANCES) return;
    pitches[i] = found.reduce((a, b) => (Math.abs(Math.log(b / line.width)) < Math.abs(Math.log(a / line.width)) ? b : a));
  });
  return pitches;
}

/** The pitch whose grid the lines' runs keep to best, pooling the lines of about that width; null if none does. */
function bestGrid(lines: JudgedLine[], minScore: number): number | null {
  if (!lines.length) return null;
  const from = Math.min(...lines.map((line) => line.width * PITCH_OVER_WIDTH[0]));
  const to = Math.max(...lines.map((line) => line.width * PITCH_OVER_WIDTH[1]));
  let best: { pitch: number; score: number } | null = null;
  // The first size only: a second needs less (MORE_GRID_SCORE) already.
  const needed = minScore === MIN_GRID_SCORE && median(lines.flatMap((line) => line.gaps)) >= WIDE_SPACE_GAP ? WIDE_SPACE_GRID_SCORE : minScore;
  for (let pitch = from; pitch <= to; pitch *= 1 + PITCH_STEP) {
    let sum = 0;
    let n = 0;
    for (const line of lines) {
      if (pitch < line.width * PITCH_OVER_WIDTH[0] || pitch > line.width * PITCH_OVER_WIDTH[1]) continue;
      sum += gridScore(line.distances, pitch);
      n += line.distances.length;
    }
    if (n < MIN_DISTANCES) continue;
    const score = sum / Math.sqrt(n / 2);
    const even = n >= MIN_EVEN_DISTANCES && sum / n >= EVEN_GRID_MEAN;
    if ((score >= needed || even) && (!best || score > best.score)) best = { pitch, score };
  }
  return best?.pitch ?? null;
}

/** Σ cos(2π d / pitch): each distance a whole number of cells adds 1, one half a cell off −1. */
function gridScore(distances: readonly number[], pitch: number): number {
  return distances.reduce((sum, d) => sum + Math.cos((2 * Math.PI * d) / pitch), 0);
}

/**
 * Distances between the starts of consecutive words that print as one run (a blank of a few
 * characters at most), and the blanks between them in widths per letter.
 */
function runDistances(words: readonly ExtractedWord[], width: number): { distances: number[]; gaps: number[] } {
  const ordered = [...words].sort((a, b) => a.x - b.x);
  const distances: number[] = [];
  const gaps: number[] = [];
  for (let i = 1; i < ordered.length; i++) {
    const [a, b] = [ordered[i - 1], ordered[i]];
    const gap = b.x - (a.x + a.w);
    if (gap >= 0 && gap <= width * RUN_GAP_PITCHES) {
      distances.push(b.x - a.x);
      gaps.push(gap / width);
    }
  }
  return { distances, gaps };
}

/** Median width per character of the words of three characters or more (a heading printed larger has a wider one); 0 when there are none. */
export function letterWidth(words: readonly ExtractedWord[]): number {
  const widths = words
    .filter((word) => word.text.length >= 3)
    .map((word) => word.w / word.text.length)
    .sort((a, b) => a - b);
  return widths.length ? widths[Math.floor(widths.length / 2)] : 0;
}

/** `ordered` (one line, left to right) with the pieces of split words joined into one word each. */
export function joinMonospaceFragments(ordered: readonly ExtractedWord[], pitch: number | null): ExtractedWord[] {
  if (pitch === null) return [...ordered];
  const joined: ExtractedWord[] = [];
  for (const word of ordered) {
    const last = joined[joined.length - 1];
    const gap = last ? word.x - (last.x + last.w) : Infinity;
    const joins =
      last &&
      gap >= 0 &&
      ((gap < pitch * JOIN_GAP_PITCHES && NARROW_END.test(last.text)) || (gap < pitch * LONE_LETTER_JOIN_PITCHES && LONE_LETTER.test(last.text)));
    if (last && joins) {
      const top = Math.min(last.y, word.y);
      joined[joined.length - 1] = {
        text: `${last.text}${word.text}`,
        x: last.x,
        y: top,
        w: word.x + word.w - last.x,
        h: Math.max(last.y + last.h, word.y + word.h) - top,
        confidence: Math.min(last.confidence ?? 1, word.confidence ?? 1),
      };
    } else {
      joined.push(word);
    }
  }
  return joined;
}
