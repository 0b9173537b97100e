import type { FlagMeaning, ParsedRange, ParsedValue } from './values';

/** Decimal points OCR lost or misread, put back where what the lab printed beside them agrees. Used by ./parse.ts. */

/** Dilutions a titre is printed at (`1:40`, `1:160`): a `1:N` value of one of these stays a titre. */
const TITRE_DILUTIONS = new Set([2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64, 80, 100, 128, 160, 200, 256, 320, 400, 512, 640, 800, 1024, 1280, 2560, 5120]);

/**
 * A value read as a ratio (`1:21`, `3:12`) in a row whose reference interval is a number's, not a
 * titre's: OCR read the decimal point as a colon (repairOcrNumber leaves two digits after a colon,
 * as times print so). Taken as the decimal only when it is no titre's dilution and lies within a
 * quarter of the interval's lower limit and four times its upper one; else as read.
 */
export function decimalFromColon(value: string, type: string, min: number | null, max: number | null, reference: string | null): number | null {
  const ratio = /^(\d+):(\d{1,3})$/.exec(value);
  if (type !== 'ratio' || !ratio || (min === null && max === null) || !reference || reference.includes(':')) return null;
  if (ratio[1] === '1' && TITRE_DILUTIONS.has(Number(ratio[2]))) return null;
  const candidate = Number(`${ratio[1]}.${ratio[2]}`);
  const low = (min ?? 0) / 4;
  const high = (max ?? (min as number)) * 4;
  return candidate >= low && candidate <= high ? candidate : null;
}

/**
 * OCR drops decimal points (2.1 read as 21): a whole number above its reference interval is
 * taken to be its tenth, hundredth or thousandth when that agrees with what the lab printed beside
 * it — only where the lab prints this analyte's interval with decimals:
 * - no flag, the number over 4× the upper limit: the candidate lies in or near the interval (a
 *   real far-out value carries a flag);
 * - a high flag, the number over 4× the upper limit: the candidate is above the interval too, but
 *   within 3× its upper limit (so a CRP of 45 over 0.0-5.0, flagged H, stays 45: 4.5 is not high);
 * - a low flag on a number above the interval or inside it, which cannot be: the candidate below
 *   the interval.
 */
export function restoreDecimal(value: number, min: number | null, max: number | null, flag: FlagMeaning | null): number | null {
  const low = min ?? 0;
  const upper = max ?? Number.POSITIVE_INFINITY;
  const lowFlag = flag === 'low' || flag === 'critical_low';
  const above = max !== null && max > 0 && value > max;
  // A low flag on a number inside its interval cannot be either (`19 L` over 2.6-24.9 for 1.9).
  const flaggedLowInside = lowFlag && min !== null && min > 0 && value >= min;
  if (!above && !flaggedLowInside) return null;
  if (!lowFlag && value <= upper * 4) return null;
  const fits = (candidate: number): boolean => {
    if (flag === null) return candidate <= upper * 2 && candidate >= low * 0.5;
    if (flag === 'high' || flag === 'critical_high') return candidate > upper && candidate <= upper * 3;
    if (lowFlag) return candidate < low && candidate >= low * 0.2;
    return false;
  };
  for (const divisor of [10, 100, 1000]) {
    const candidate = Math.round((value / divisor) * 1000) / 1000;
    if (fits(candidate)) return candidate;
  }
  return null;
}

/**
 * OCR drops an interval's decimal point too (`2.5-89` for `2.5-8.9`, `2.6-249` for `2.6-24.9`): an
 * upper limit printed as a whole number of two digits or more, beside a lower limit printed with
 * decimals, is taken to have as many decimals when that leaves it above the lower limit and the
 * row's value (or the value with the same decimal lost) agrees with it: within it and no flag,
 * above it and a high flag, below its lower limit and a low one. Else the interval as read.
 */
export function restoreIntervalDecimal(range: ParsedRange | null, value: ParsedValue, flag: FlagMeaning | null): ParsedRange | null {
  const printed = range ? /^\s*\d+\.(\d+)\s*[-–]\s*(\d{2,})\s*$/.exec(range.text) : null;
  if (!range || !printed || range.min === null || value.number === null) return range;
  const min = range.min;
  const scale = 10 ** printed[1].length;
  const max = Number(printed[2]) / scale;
  if (max <= min) return range;
  const values = value.value.includes('.') ? [value.number] : [value.number, value.number / scale];
  const agrees = (n: number): boolean => {
    if (flag === null) return n >= min && n <= max;
    if (flag === 'high' || flag === 'critical_high') return n > max;
    if (flag === 'low' || flag === 'critical_low') return n < min;
    return false;
  };
  return values.some(agrees) ? { ...range, max } : range;
}

/**
 * A reference cell OCR read as one number with decimals (`(5.2)` for `(<5.2)`, `2,6` for `<2,6`): the
 * comparator lost, so whether it is an upper or a lower limit cannot be told, and no interval is
 * made of it; but it says the analyte's magnitude, enough for restoreDecimal (parse.ts).
 */
export function boundWithoutComparator(text: string): number | null {
  const lone = /^\(?\s*(\d+[.,]\d{1,2})\s*\)?$/.exec(text.trim());
  return lone ? Number(lone[1].replace(',', '.')) : null;
}

/**
 * An interval whose dash OCR lost or read as a point: `(0.60 1.30)`, `1.9.3.7` for `1.9-3.7`, and
 * run together, `3.65.1` for `3.6-5.1` (its limits printed with as many decimals: the second's
 * tell where the first ends). Only where the second limit is the larger; else null.
 */
export function intervalWithoutDash(text: string): string | null {
  const t = text
    .trim()
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  const apart = /^(\d+\.\d+)(?:\s+|\.)(\d+\.\d+)$/.exec(t);
  const joined = /^(\d+)\.(\d+)\.(\d+)$/.exec(t);
  let limits: [string, string] | null = apart ? [apart[1], apart[2]] : null;
  if (!limits && joined && joined[2].length > joined[3].length) {
    const decimals = joined[3].length;
    limits = [`${joined[1]}.${joined[2].slice(0, decimals)}`, `${joined[2].slice(decimals)}.${joined[3]}`];
  }
  return limits && Number(limits[0]) < Number(limits[1]) ? `${limits[0]}-${limits[1]}` : null;
}
