import type { ResultInterpretation, ResultLevel } from './result.types';

const SEVERITY: Record<ResultLevel, number> = { normal: 0, abnormal: 1, critical: 2 };

const isLevel = (value: string | null | undefined): value is ResultLevel => value === 'normal' || value === 'abnormal' || value === 'critical';

/** The more severe of two levels. */
function worseInterpretation(a: ResultLevel, b: ResultLevel): ResultLevel {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/**
 * The interpretation of a whole report: the worst of its results' levels (critical > abnormal >
 * normal). Results without a level (no interpretation, `unknown`, anything else) don't count,
 * unless none has one: then the report is `unknown`. No results at all is `normal`.
 */
export function interpretResults(results: readonly { interpretation?: string | null }[]): ResultInterpretation {
  let worst: ResultLevel | null = null;
  for (const { interpretation } of results) {
    if (isLevel(interpretation)) worst = worst === null ? interpretation : worseInterpretation(worst, interpretation);
  }
  return worst ?? (results.length > 0 ? 'unknown' : 'normal');
}

/**
 * A result's flag in words, from the lab's interpretation or its range checks (null: nothing to
 * flag). The portal and the result report PDF print the same words.
 */
export function resultFlag(result: { interpretation?: string; is_above_max_range?: boolean; is_below_min_range?: boolean }): string | null {
  if (result.interpretation === 'critical') return 'Critical';
  if (result.is_above_max_range) return 'High';
  if (result.is_below_min_range) return 'Low';
  if (result.interpretation === 'abnormal') return 'Abnormal';
  return null;
}
