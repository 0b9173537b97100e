import { flagMeaning } from './values';
import type { ResultInterpretation } from './types';

export interface Interpretation {
  interpretation: ResultInterpretation;
  is_above_max_range: boolean | null;
  is_below_min_range: boolean | null;
}

/**
 * Normal, abnormal or critical from the printed flag first (the lab's own judgement, which may
 * use ranges by age and sex the report does not print), then from the value against the range.
 */
export function interpret(input: {
  number: number | null;
  comparator: string | null;
  value: string;
  min: number | null;
  max: number | null;
  expected: string | null;
  flag: string | null;
}): Interpretation {
  const { number, comparator, min, max } = input;
  let above: boolean | null = null;
  let below: boolean | null = null;
  if (number !== null) {
    // `<0.5` is below any max ≥ 0.5 and cannot be said to be above it.
    if (max !== null) above = comparator?.startsWith('<') ? false : comparator?.startsWith('>') ? number >= max : number > max;
    if (min !== null) below = comparator?.startsWith('>') ? false : comparator?.startsWith('<') ? number <= min : number < min;
  }
  const meaning = input.flag ? flagMeaning(input.flag) : null;
  if (meaning === 'high' && above === null) above = true;
  if (meaning === 'low' && below === null) below = true;
  let interpretation: ResultInterpretation;
  if (meaning?.startsWith('critical')) interpretation = 'critical';
  else if (meaning) interpretation = 'abnormal';
  else if (above || below) interpretation = 'abnormal';
  else if (above === false || below === false) interpretation = 'normal';
  else if (input.expected) interpretation = sameWord(input.value, input.expected) ? 'normal' : 'abnormal';
  else interpretation = 'unknown';
  return { interpretation, is_above_max_range: above, is_below_min_range: below };
}

function sameWord(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9+]/g, '')
      .replace(/^neg$/, 'negative')
      .replace(/^pos$/, 'positive');
  return norm(a) === norm(b);
}
