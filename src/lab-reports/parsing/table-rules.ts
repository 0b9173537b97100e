/**
 * Table rules taken out of a levelled page before OCR (see removeRules), on the grey rasters of
 * page-geometry.ts.
 */
import { type GreyImage, otsuThreshold } from './page-geometry';

// Module-level bindings, as in page-geometry.ts: a global's lookup inside Jest's sandbox is slow in per-pixel loops.
const { max, min, round } = Math;

/**
 * Table rules whitened: runs of ink longer than `minRun` pixels along a row or a column (no glyph
 * is that long) with paper `RULE_CLEAR` pixels either side of them (a run through a line of bold
 * text has ink there) are set to white, with a pixel of their edge either side. Tesseract's
 * single-block layout analysis takes text boxed in by rules for part of the rules' blob and drops
 * it (the bordered label/value grid of a photographed report lost all its labels). The page must be
 * level: a tilted rule makes no long run. Ink is what is darker than halfway from Otsu's threshold
 * to white, so a thin, soft rule of a photo counts.
 */
export function removeRules(image: GreyImage, minRun: number): { page: GreyImage; runs: RuleRuns } {
  const { data, width, height } = image;
  const ink = round((otsuThreshold(image) + 255) / 2);
  const rule = new Uint8Array(data.length);
  const runs = { across: 0, down: 0 };
  // Along rows (step 1, lines of `width`) then along columns (step `width`, lines of `height`).
  for (const [lines, length, step, stride, direction] of [
    [height, width, 1, width, 'across'],
    [width, height, width, 1, 'down'],
  ] as const) {
    for (let line = 0; line < lines; line++) {
      const base = line * stride;
      let run = 0;
      for (let i = 0; i <= length; i++) {
        if (i < length && data[base + i * step] < ink) {
          run += 1;
          continue;
        }
        if (run >= minRun && clearBeside(data, base, step, stride, line, lines, i - run, i, ink)) {
          runs[direction] += 1;
          for (let k = i - run; k < i; k++) {
            for (let d = max(0, line - 1); d <= min(lines - 1, line + 1); d++) rule[d * stride + k * step] = 1;
          }
        }
        run = 0;
      }
    }
  }
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i++) if (rule[i]) out[i] = 255;
  return { page: { data: out, width, height }, runs };
}

/** How many runs of ink were taken out as rules, along rows (`across`) and down columns (`down`): a rule `n` pixels thick is `n` runs. */
export interface RuleRuns {
  across: number;
  down: number;
}

/** Paper beside a rule's thickness: at most a fifth of ink `RULE_CLEAR` lines either side of the run. */
const RULE_CLEAR = 6;

function clearBeside(
  data: Uint8Array,
  base: number,
  step: number,
  stride: number,
  line: number,
  lines: number,
  from: number,
  to: number,
  ink: number,
): boolean {
  for (const side of [line - RULE_CLEAR, line + RULE_CLEAR]) {
    if (side < 0 || side >= lines) continue;
    const offset = base + (side - line) * stride;
    let dark = 0;
    for (let k = from; k < to; k++) if (data[offset + k * step] < ink) dark += 1;
    if (dark > (to - from) * 0.2) return false;
  }
  return true;
}
