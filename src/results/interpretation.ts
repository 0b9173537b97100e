import type { ResultInterpretation } from './result.types';

const SEVERITY: Record<ResultInterpretation, number> = { normal: 0, abnormal: 1, critical: 2 };

/** The more severe of two interpretations. */
export function worseInterpretation(a: ResultInterpretation, b: ResultInterpretation): ResultInterpretation {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/**
 * The interpretation of a whole report: the worst of its results' (critical > abnormal > normal).
 * Results without an interpretation, or with one outside those three (e.g. `unknown`), don't
 * count; no results at all is `normal`.
 */
export function interpretResults(results: readonly { interpretation?: string | null }[]): ResultInterpretation {
  let worst: ResultInterpretation = 'normal';
  for (const { interpretation } of results) {
    if (interpretation === 'normal' || interpretation === 'abnormal' || interpretation === 'critical') {
      worst = worseInterpretation(worst, interpretation);
    }
  }
  return worst;
}
