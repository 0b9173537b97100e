import { interpret } from '../interpret';
import type { ParsedResult } from '../types';
import { unitKey } from './normalise';

/**
 * How far an analyte's value can lie at all, in one unit, by LOINC code: above it a value is not
 * a patient's, however ill (serum potassium over 15 mmol/L, an HbA1c over 20%). An OCR'd whole
 * number beyond it is a decimal point OCR lost, where the interval beside it could not tell
 * (both lost theirs: `Globulin 32 g/dL 19-37`; or it was garbled: `Hemoglobin A1c 23 % <7`).
 * Only analytes whose values span less than tenfold are listed, so that one divisor brings the
 * value back into scale and no other: creatinine (0.3-30 mg/dL) or glucose in mmol/L are not.
 */
const SCALES: readonly { codes: readonly string[]; units: readonly string[]; max: number }[] = [
  { codes: ['2823-3'], units: ['mmol/l', 'meq/l'], max: 15 }, // potassium
  { codes: ['1751-7'], units: ['g/dl'], max: 10 }, // albumin
  { codes: ['10834-0'], units: ['g/dl'], max: 15 }, // globulin
  { codes: ['2885-2'], units: ['g/dl'], max: 20 }, // total protein
  { codes: ['718-7'], units: ['g/dl'], max: 30 }, // haemoglobin
  { codes: ['4548-4'], units: ['%'], max: 20 }, // HbA1c
  { codes: ['17861-6'], units: ['mg/dl'], max: 20 }, // calcium
  { codes: ['2000-8'], units: ['mmol/l'], max: 5 }, // calcium (SI)
  { codes: ['14647-2'], units: ['mmol/l'], max: 30 }, // total cholesterol (SI)
  { codes: ['14646-4'], units: ['mmol/l'], max: 5 }, // HDL cholesterol (SI)
  { codes: ['39469-2'], units: ['mmol/l'], max: 20 }, // LDL cholesterol (SI)
];

/**
 * An OCR'd result whose whole-number value lies beyond its analyte's scale (`SCALES`, by the code
 * it matched and the unit it printed) with its decimal point put back: the first of its tenth or
 * hundredth within the scale. An interval beyond the scale too lost its points the same way
 * (`19-37` beside `32`): divided alike. The result is interpreted again. Else the result as read.
 */
export function withinScale(result: ParsedResult, code: string | undefined): ParsedResult {
  const unit = unitKey(result.units);
  const scale = SCALES.find((s) => code !== undefined && s.codes.includes(code) && unit !== null && s.units.includes(unit));
  if (!scale || result.type !== 'numeric' || !/^\d+$/.test(result.value) || Number(result.value) <= scale.max) return result;
  for (const divisor of [10, 100]) {
    const number = Number(result.value) / divisor;
    if (number > scale.max) continue;
    const value = String(number);
    const intervalBeyond = result.max_reference_range !== null && result.max_reference_range > scale.max;
    const [min, max] = [result.min_reference_range, result.max_reference_range].map((limit) => (limit !== null && intervalBeyond ? limit / divisor : limit));
    const judged = interpret({ number, comparator: null, value, min, max, expected: null, flag: result.flag });
    const note = `decimal point restored: ${result.value} → ${value}${intervalBeyond ? `, interval ${result.reference_text} → ${min ?? ''}-${max}` : ''} (beyond what ${code} can be in ${result.units})`;
    return { ...result, value, min_reference_range: min, max_reference_range: max, ...judged, notes: [...result.notes, note] };
  }
  return result;
}
