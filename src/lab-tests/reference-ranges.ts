import type { MarkerEntity } from './lab-catalog.entities';

export type Interpretation = 'normal' | 'abnormal' | 'critical';

/** Limits that apply to one patient; null means "no limit on that side". All in `unit`. */
export interface ReferenceRange {
  min: number | null;
  max: number | null;
  criticalLow: number | null;
  criticalHigh: number | null;
  unit: string | null;
}

type RangeSource = Pick<MarkerEntity, 'referenceMin' | 'referenceMax' | 'criticalLow' | 'criticalHigh' | 'referenceRangesBySex' | 'unit'>;

/**
 * The reference range of a biomarker for a patient: the sex-specific range when the marker has
 * one for `sex` (a patient_details.gender value: `male`, `female`, anything else), otherwise the
 * general adult range.
 */
export function referenceRangeFor(marker: RangeSource, sex?: string | null): ReferenceRange {
  const key = sex === 'male' || sex === 'female' ? sex : undefined;
  const specific = key ? marker.referenceRangesBySex?.[key] : undefined;
  return {
    min: specific ? (specific.min ?? null) : marker.referenceMin,
    max: specific ? (specific.max ?? null) : marker.referenceMax,
    criticalLow: marker.criticalLow,
    criticalHigh: marker.criticalHigh,
    unit: marker.unit,
  };
}

/**
 * Interprets a numeric result in the marker's unit: `critical` beyond a critical limit,
 * `abnormal` outside the reference range, `normal` otherwise (also when no range is known).
 */
export function interpretNumericResult(marker: RangeSource, value: number, sex?: string | null): Interpretation {
  const range = referenceRangeFor(marker, sex);
  if ((range.criticalLow !== null && value < range.criticalLow) || (range.criticalHigh !== null && value > range.criticalHigh)) {
    return 'critical';
  }
  if ((range.min !== null && value < range.min) || (range.max !== null && value > range.max)) return 'abnormal';
  return 'normal';
}
