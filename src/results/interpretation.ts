import type { ResultInterpretation, ResultLevel } from './result.types';

const SEVERITY: Record<ResultLevel, number> = { normal: 0, abnormal: 1, critical: 2 };

const isLevel = (value: string | null | undefined): value is ResultLevel => value === 'normal' || value === 'abnormal' || value === 'critical';

/** The more severe of two levels. */
export function worseInterpretation(a: ResultLevel, b: ResultLevel): ResultLevel {
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
