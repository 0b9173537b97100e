import type { ExtractedWord } from './types';

/**
 * Reports printed in a monospaced font (many laboratory systems print in Courier) leave a wide
 * blank after narrow glyphs: `Yel l ow`, `Non- Reactive`, `1. 005`. OCR takes those blanks for
 * spaces and splits words, values and dates. These helpers tell such a page by its even
 * character pitch and join the pieces back.
 */

/** Words this long, letters only, measure the pitch (shorter ones are dominated by their edges). */
const MIN_PITCH_WORD = 5;
/** Enough words to judge a page by. */
const MIN_PITCH_WORDS = 8;
/**
 * Interquartile spread of the body text's pitch ÷ its median: measured 0.012–0.019 on monospaced
 * pages (scans and photos) and 0.136–0.208 on proportional ones.
 */
const MONOSPACE_SPREAD = 0.06;
/** A blank narrower than this many pitches after a narrow glyph is inside a word: measured 0.43–0.77 inside, ≥ 0.87 between words. */
const JOIN_GAP_PITCHES = 0.82;
/** Glyphs narrower than the cell a monospaced font gives them, after which the blank shows. */
const NARROW_END = /[ilIjtf1.,:;'\-|!]$/;

/** The character pitch (pixels) of an OCR page printed in a monospaced font, or null. */
export function monospacePitch(words: readonly ExtractedWord[]): number | null {
  if (!words.some((word) => word.confidence !== null)) return null;
  const pitches = words
    .filter((word) => word.text.length >= MIN_PITCH_WORD && /^[A-Za-z]+$/.test(word.text))
    .map((word) => word.w / word.text.length)
    .sort((a, b) => a - b);
  if (pitches.length < MIN_PITCH_WORDS) return null;
  const median = pitches[Math.floor(pitches.length / 2)];
  // Headings in a larger size are another population: judge the body text.
  const body = pitches.filter((pitch) => pitch > median * 0.75 && pitch < median * 1.33);
  if (body.length < MIN_PITCH_WORDS) return null;
  const spread = (body[Math.floor((body.length * 3) / 4)] - body[Math.floor(body.length / 4)]) / median;
  return spread < MONOSPACE_SPREAD ? median : null;
}

/** `ordered` (one line, left to right) with the pieces of split words joined into one word each. */
export function joinMonospaceFragments(ordered: readonly ExtractedWord[], pitch: number | null): ExtractedWord[] {
  if (pitch === null) return [...ordered];
  const joined: ExtractedWord[] = [];
  for (const word of ordered) {
    const last = joined[joined.length - 1];
    const gap = last ? word.x - (last.x + last.w) : Infinity;
    if (last && gap >= 0 && gap < pitch * JOIN_GAP_PITCHES && NARROW_END.test(last.text)) {
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
