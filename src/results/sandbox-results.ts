import type { MarkerEntity } from '../lab-tests/lab-catalog.entities';
import { interpretNumericResult, referenceRangeFor, type ReferenceRange } from '../lab-tests/reference-ranges';
import { interpretResults } from './interpretation';
import type { BiomarkerResult, FailureType, MissingBiomarkerResult, ParentBiomarkerData, ResultInterpretation, ResultLevel } from './result.types';
import { hash32, unitInterval } from './seeded';

/**
 * A biomarker to report on: a catalog marker (panels already expanded into their biomarkers),
 * with its LOINC and, when it was ordered through a panel, that panel.
 */
export type ResultMarker = Pick<
  MarkerEntity,
  'id' | 'name' | 'slug' | 'providerId' | 'unit' | 'referenceMin' | 'referenceMax' | 'criticalLow' | 'criticalHigh' | 'referenceRangesBySex'
> & {
  loinc?: { code: string; slug: string } | null;
  parent?: { id: number; name: string; slug: string; providerId: string } | null;
};

/** The result types the sandbox generates: every ResultType. */
export type SandboxResultType = 'numeric' | 'range' | 'comment' | 'coded_value';

/**
 * The sandbox's default cycle of result types, in the order the sandbox facts name them. Coded
 * values only when asked for (`result_types`): the catalog has no coded-value markers.
 */
export const SANDBOX_RESULT_TYPES: readonly SandboxResultType[] = ['numeric', 'comment', 'range'];

export interface SandboxResultOptions {
  /** The order-level interpretation asked for (`POST /v3/order/{id}/test` body). */
  interpretation: ResultInterpretation;
  /** Drop some markers into missing_results. */
  hasMissingResults: boolean;
  /** Used as each result's timestamp. */
  collectedAt: Date;
  /** Same seed and markers → same results (e.g. the order id). */
  seed: string;
  /** The patient's gender (`male` / `female` pick sex-specific ranges). */
  sex?: string | null;
  /** The sandbox body's `result_types`: the types to cycle through (default SANDBOX_RESULT_TYPES). */
  resultTypes?: readonly SandboxResultType[] | null;
}

export interface SandboxResults {
  results: BiomarkerResult[];
  missingResults: MissingBiomarkerResult[];
}

/**
 * Sandbox lab results for `markers`, deterministic for a given seed (every choice is a hash of
 * the seed and the marker; no Math.random).
 *
 * - Types cycle through options.resultTypes over the reported markers. A type that cannot carry
 *   the wanted level for a marker falls back to numeric, then to comment (e.g. a `range` result
 *   "<99" is only unambiguous for a one-sided range; a marker without any range cannot be an
 *   abnormal number).
 * - Levels: `normal` puts every value inside its reference range; `abnormal` every value outside
 *   its range but inside its critical limits; `critical` puts markers that have critical limits
 *   beyond them and the others abnormal. Numeric values are checked with interpretNumericResult,
 *   so `interpretation` always equals the catalog's own reading of the value. When `critical` is
 *   asked for and no reported marker has critical limits, the first reported marker becomes a
 *   critical comment result, so the report is critical (and fires labtest.result.critical).
 *   `unknown` reports the values of a `normal` report, each with interpretation `unknown`, as a lab
 *   that gives no interpretation would.
 * - A coded value (`coded_value`) reads Negative when normal, Positive otherwise.
 * - `hasMissingResults` moves about a third of the markers (at least one) to missingResults,
 *   keeping at least one result when there are two markers or more.
 */
export function generateSandboxResults(markers: readonly ResultMarker[], options: SandboxResultOptions): SandboxResults {
  const types = options.resultTypes && options.resultTypes.length > 0 ? options.resultTypes : SANDBOX_RESULT_TYPES;
  const missing = options.hasMissingResults ? pickMissing(markers, options.seed) : new Set<number>();
  const reported = markers.filter((_, index) => !missing.has(index));
  const timestamp = options.collectedAt.toISOString();

  const asked: ResultLevel = options.interpretation === 'unknown' ? 'normal' : options.interpretation;
  let results = reported.map((marker, index) => {
    const range = referenceRangeFor(marker, options.sex);
    const level = levelFor(asked, range);
    return resultFor(marker, range, types[index % types.length], level, options, timestamp);
  });
  if (asked === 'critical' && results.length > 0 && interpretResults(results) !== 'critical') {
    results[0] = commentResult(reported[0], referenceRangeFor(reported[0], options.sex), 'critical', timestamp);
  }
  if (options.interpretation === 'unknown') results = results.map(withoutInterpretation);

  const missingResults = markers.filter((_, index) => missing.has(index)).map((marker) => missingResult(marker, options.seed));
  return { results, missingResults };
}

/** The level one marker is reported at, for the order-level level asked for. */
function levelFor(requested: ResultLevel, range: ReferenceRange): ResultLevel {
  if (requested === 'critical' && range.criticalLow === null && range.criticalHigh === null) return 'abnormal';
  return requested;
}

function pickMissing(markers: readonly ResultMarker[], seed: string): Set<number> {
  const scores = markers.map((marker) => unitInterval(seed, 'missing', marker.id, marker.slug));
  const missing = new Set(scores.flatMap((score, index) => (score < 1 / 3 ? [index] : [])));
  const byScore = scores.map((score, index) => ({ score, index })).sort((a, b) => a.score - b.score || a.index - b.index);
  if (missing.size === 0 && byScore.length > 0) missing.add(byScore[0].index);
  if (missing.size === markers.length && markers.length >= 2) missing.delete(byScore[byScore.length - 1].index);
  return missing;
}

function resultFor(
  marker: ResultMarker,
  range: ReferenceRange,
  type: SandboxResultType,
  level: ResultLevel,
  options: SandboxResultOptions,
  timestamp: string,
): BiomarkerResult {
  const salt = [options.seed, marker.id, marker.slug] as const;
  if (type === 'coded_value') return codedResult(marker, level, timestamp);
  if (type === 'range') {
    const ranged = rangeResult(marker, range, level, unitInterval(...salt, 'side'), timestamp);
    if (ranged) return ranged;
  }
  if (type !== 'comment') {
    const value = numericValue(marker, range, level, options.sex, unitInterval(...salt, 'value'), unitInterval(...salt, 'side'));
    if (value !== null) return numericResult(marker, range, value, level, timestamp);
  }
  return commentResult(marker, range, level, timestamp);
}

/** Fields every result shares: identity, LOINC, provider id, parent panel, timestamp. */
function baseOf(
  marker: ResultMarker,
  timestamp: string,
): Pick<BiomarkerResult, 'name' | 'slug' | 'timestamp' | 'loinc' | 'loinc_slug' | 'provider_id' | 'source_markers'> {
  return {
    name: marker.name,
    slug: marker.slug,
    timestamp,
    ...(marker.loinc ? { loinc: marker.loinc.code, loinc_slug: marker.loinc.slug } : {}),
    provider_id: marker.providerId,
    ...(marker.parent ? { source_markers: [parentOf(marker.parent)] } : {}),
  };
}

function parentOf(parent: NonNullable<ResultMarker['parent']>): ParentBiomarkerData {
  return { marker_id: parent.id, name: parent.name, slug: parent.slug, provider_id: parent.providerId };
}

/** Range fields of a numeric or range result (those the marker has). */
function rangeFields(range: ReferenceRange): Pick<BiomarkerResult, 'reference_range' | 'min_range_value' | 'max_range_value' | 'unit'> {
  const text = referenceRangeText(range);
  return {
    ...(range.unit ? { unit: range.unit } : {}),
    ...(text ? { reference_range: text } : {}),
    ...(range.min !== null ? { min_range_value: range.min } : {}),
    ...(range.max !== null ? { max_range_value: range.max } : {}),
  };
}

/** "65-99", "<=5.6", ">=40", or null when the marker has no range. */
export function referenceRangeText(range: Pick<ReferenceRange, 'min' | 'max'>): string | null {
  if (range.min !== null && range.max !== null) return `${range.min}-${range.max}`;
  if (range.max !== null) return `<=${range.max}`;
  if (range.min !== null) return `>=${range.min}`;
  return null;
}

function numericResult(marker: ResultMarker, range: ReferenceRange, value: string, level: ResultLevel, timestamp: string): BiomarkerResult {
  const number = Number(value);
  return {
    ...baseOf(marker, timestamp),
    result: value,
    type: 'numeric',
    ...rangeFields(range),
    is_above_max_range: range.max !== null && number > range.max,
    is_below_min_range: range.min !== null && number < range.min,
    interpretation: level,
    ...(level === 'critical' ? { notes: CRITICAL_NOTE } : {}),
  };
}

const CRITICAL_NOTE = 'Critical value: the ordering provider is notified.';

/**
 * A result beyond a limit, written as an inequality ("<40", ">400"): critical beyond a critical
 * limit, abnormal beyond the range on a side with no critical limit, normal under a max (or over
 * a min) of a one-sided range. Null when the level can't be written unambiguously for the marker.
 */
function rangeResult(marker: ResultMarker, range: ReferenceRange, level: ResultLevel, side: number, timestamp: string): BiomarkerResult | null {
  const options: { op: '<' | '>'; bound: number }[] = [];
  if (level === 'critical') {
    if (range.criticalHigh !== null) options.push({ op: '>', bound: range.criticalHigh });
    if (range.criticalLow !== null) options.push({ op: '<', bound: range.criticalLow });
  } else if (level === 'abnormal') {
    if (range.max !== null && range.criticalHigh === null) options.push({ op: '>', bound: range.max });
    if (range.min !== null && range.criticalLow === null) options.push({ op: '<', bound: range.min });
  } else {
    if (range.max !== null && range.min === null && range.criticalLow === null) options.push({ op: '<', bound: range.max });
    if (range.min !== null && range.max === null && range.criticalHigh === null) options.push({ op: '>', bound: range.min });
  }
  if (options.length === 0) return null;
  const { op, bound } = options[Math.floor(side * options.length)];
  return {
    ...baseOf(marker, timestamp),
    result: `${op}${bound}`,
    type: 'range',
    ...rangeFields(range),
    is_above_max_range: op === '>' && range.max !== null && bound >= range.max,
    is_below_min_range: op === '<' && range.min !== null && bound <= range.min,
    interpretation: level,
    ...(level === 'critical' ? { notes: CRITICAL_NOTE } : {}),
  };
}

function commentResult(marker: ResultMarker, range: ReferenceRange, level: ResultLevel, timestamp: string): BiomarkerResult {
  const reference = referenceRangeText(range);
  const within = reference ? ` (reference ${reference}${range.unit ? ` ${range.unit}` : ''})` : '';
  const text: Record<ResultLevel, { result: string; notes: string }> = {
    normal: { result: 'Within normal limits', notes: `No abnormality detected${within}.` },
    abnormal: { result: 'Abnormal, see note', notes: `Result outside the reference range${within}.` },
    critical: { result: 'Critical, see note', notes: CRITICAL_NOTE },
  };
  return { ...baseOf(marker, timestamp), ...text[level], type: 'comment', interpretation: level };
}

/** A qualitative result: Negative when normal, Positive otherwise. */
function codedResult(marker: ResultMarker, level: ResultLevel, timestamp: string): BiomarkerResult {
  return {
    ...baseOf(marker, timestamp),
    result: level === 'normal' ? 'Negative' : 'Positive',
    type: 'coded_value',
    interpretation: level,
    ...(level === 'critical' ? { notes: CRITICAL_NOTE } : {}),
  };
}

/** The same result as a lab that gives no interpretation reports it. */
function withoutInterpretation(result: BiomarkerResult): BiomarkerResult {
  if (result.type !== 'comment') return { ...result, interpretation: 'unknown' };
  return { ...result, result: 'See note', notes: 'Reported without an interpretation.', interpretation: 'unknown' };
}

/**
 * A value (as printed) that interpretNumericResult reads as `level`, or null when the marker's
 * limits can't produce that level (abnormal without a range, critical without critical limits).
 * `u` places the value inside the target interval, `side` picks high or low when both exist.
 */
function numericValue(marker: ResultMarker, range: ReferenceRange, level: ResultLevel, sex: string | null | undefined, u: number, side: number): string | null {
  const intervals = targetIntervals(range, level);
  if (intervals.length === 0) return null;
  const first = Math.floor(side * intervals.length);
  const ordered = [...intervals.slice(first), ...intervals.slice(0, first)];
  const decimals = decimalsOf(range);
  for (const [lo, hi] of ordered) {
    for (const fraction of [0.15 + 0.7 * u, 0.5, 0.25, 0.75]) {
      for (let places = decimals; places <= decimals + 3; places += 1) {
        const value = (lo + (hi - lo) * fraction).toFixed(places);
        if (interpretNumericResult(marker, Number(value), sex) === level) return value === '-0' ? '0' : value;
      }
    }
  }
  return null;
}

/** Open intervals whose inner values have `level` (high side first). */
function targetIntervals(range: ReferenceRange, level: ResultLevel): [number, number][] {
  const { min, max, criticalLow, criticalHigh } = range;
  const above = (bound: number, factor: number) => bound + Math.max(Math.abs(bound) * factor, 1);
  const below = (bound: number, factor: number) => (bound > 0 ? bound * (1 - factor) : bound - Math.max(Math.abs(bound) * factor, 1));
  if (level === 'normal') {
    if (min !== null && max !== null) return [[min, max]];
    if (max !== null) return [[below(max, 0.7), max]];
    if (min !== null) return [[min, above(min, 1)]];
    const lo = criticalLow ?? 1;
    return [[lo, criticalHigh ?? lo + 99]];
  }
  const intervals: [number, number][] = [];
  if (level === 'abnormal') {
    if (max !== null) intervals.push([max, criticalHigh ?? above(max, 0.5)]);
    if (min !== null) intervals.push([criticalLow ?? below(min, 0.5), min]);
  } else {
    if (criticalHigh !== null) intervals.push([criticalHigh, above(criticalHigh, 0.3)]);
    if (criticalLow !== null) intervals.push([below(criticalLow, 0.6), criticalLow]);
  }
  return intervals;
}

/** Decimal places of the most precise limit (a 3.8-10.8 range reports 7.2, not 7). */
function decimalsOf(range: ReferenceRange): number {
  const limits = [range.min, range.max, range.criticalLow, range.criticalHigh].filter((v): v is number => v !== null);
  return Math.min(3, Math.max(0, ...limits.map((v) => (String(v).split('.')[1] ?? '').length)));
}

const FAILURES: readonly { type: FailureType; note: string }[] = [
  { type: 'quantity_not_sufficient_failure', note: 'Quantity not sufficient to perform the test.' },
  { type: 'collection_process_failure', note: 'Specimen unsuitable for testing (hemolyzed).' },
  { type: 'internal_lab_failure', note: 'Test not performed: instrument failure at the laboratory.' },
];

function missingResult(marker: ResultMarker, seed: string): MissingBiomarkerResult {
  const failure = FAILURES[hash32(seed, 'failure', marker.id, marker.slug) % FAILURES.length];
  return {
    name: marker.name,
    slug: marker.slug,
    inferred_failure_type: failure.type,
    note: failure.note,
    ...(marker.loinc ? { loinc: marker.loinc.code, loinc_slug: marker.loinc.slug } : {}),
    provider_id: marker.providerId,
    ...(marker.parent ? { source_markers: [parentOf(marker.parent)] } : {}),
  };
}
