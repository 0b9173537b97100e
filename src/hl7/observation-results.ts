import type { BiomarkerResult, MissingBiomarkerResult, ResultMarker, ResultType } from '../results';
import type { Hl7TestCode } from './hl7.entities';
import type { Observation } from './lab-report';

/** One stored result message's report for the order, in the order the lab sent them. */
export interface ReceivedReport {
  resultStatus: string | null;
  observations: Observation[];
}

export interface MappedResults {
  status: 'final' | 'partial';
  results: BiomarkerResult[];
  missingResults: MissingBiomarkerResult[];
  /** The report the lab embedded (OBX ED with a PDF), latest first wins. */
  pdfBase64: string | null;
  /** OBX rows that named no marker of the order (by the lab's code or LOINC). */
  unmapped: string[];
}

const FINAL_REPORT = ['F', 'C', 'X'];
const CRITICAL_FLAGS = ['HH', 'LL', 'AA', '>', '<'];
const ABNORMAL_FLAGS = ['H', 'L', 'A', 'HU', 'LU', 'U', 'D', 'B', 'W', 'S', 'R'];

/**
 * The order's results from every report the lab sent for it: per marker the latest observation
 * (a correction replaces the final, a final the preliminary, never the other way round; `D`
 * deletes one; `I`/`R`, not yet verified, are left out), `X` (cannot be obtained) as a missing result. Observations are matched
 * to the order's markers by the lab's code (the lab account's test codes) or by LOINC.
 */
export function mapObservations(
  reports: readonly ReceivedReport[],
  markers: readonly ResultMarker[],
  testCodes: Readonly<Record<string, Hl7TestCode>>,
  context: { labName: string; sampleId: string | null },
): MappedResults {
  const byId = new Map(markers.map((marker) => [marker.id, marker]));
  const byLabCode = new Map<string, ResultMarker>();
  for (const [markerId, code] of Object.entries(testCodes)) {
    const marker = byId.get(Number(markerId));
    if (marker) byLabCode.set(code.code, marker);
  }
  const byLoinc = new Map(markers.flatMap((marker) => (marker.loinc ? [[marker.loinc.code, marker] as const] : [])));
  const latest = new Map<number, { marker: ResultMarker; observation: Observation }>();
  const unmapped: string[] = [];
  let pdfBase64: string | null = null;
  for (const report of reports) {
    for (const observation of report.observations) {
      if (observation.valueType === 'ED') {
        if (observation.mediaSubtype === 'pdf' && observation.value) pdfBase64 = observation.value;
        continue;
      }
      const marker =
        byLabCode.get(observation.code) ??
        (observation.altCode ? byLabCode.get(observation.altCode) : undefined) ??
        (observation.system === 'LN' ? byLoinc.get(observation.code) : undefined) ??
        (observation.altSystem === 'LN' ? byLoinc.get(observation.altCode) : undefined);
      if (!marker) {
        unmapped.push(`${observation.code}^${observation.text}`);
        continue;
      }
      if (observation.status === 'I' || observation.status === 'R') continue;
      const kept = latest.get(marker.id)?.observation;
      // Messages may arrive out of order: a preliminary value never replaces a final one, and of
      // two preliminary ones the later observed (OBX-14) stays.
      if (kept && isFinal(kept) && !isFinal(observation)) continue;
      if (kept && !isFinal(kept) && !isFinal(observation) && kept.observedAt && observation.observedAt && observation.observedAt < kept.observedAt) continue;
      if (observation.status === 'D') latest.delete(marker.id);
      else latest.set(marker.id, { marker, observation });
    }
  }
  const results: BiomarkerResult[] = [];
  const missingResults: MissingBiomarkerResult[] = [];
  for (const { marker, observation } of latest.values()) {
    if (observation.status === 'X') missingResults.push(missingOf(marker, observation));
    else results.push(resultOf(marker, observation, context));
  }
  // Final once any report was: a preliminary report arriving after the final one does not reopen it.
  const status = reports.some((report) => FINAL_REPORT.includes((report.resultStatus ?? '').toUpperCase())) ? 'final' : 'partial';
  return { status, results, missingResults, pdfBase64, unmapped };
}

const isFinal = (observation: Observation) => FINAL_REPORT.includes(observation.status) || observation.status === 'D';

function typeOf(observation: Observation): ResultType {
  switch (observation.valueType) {
    case 'NM':
      return 'numeric';
    case 'SN':
      return /^[<>]=?|-/.test(observation.value) || /\d-\d/.test(observation.value) ? 'range' : 'numeric';
    case 'CWE':
    case 'CE':
      return 'coded_value';
    default:
      return 'comment';
  }
}

function interpretationOf(flags: readonly string[]): string {
  if (flags.some((flag) => CRITICAL_FLAGS.includes(flag))) return 'critical';
  if (flags.some((flag) => ABNORMAL_FLAGS.includes(flag))) return 'abnormal';
  return 'normal';
}

/** `3.5-5.0` → both bounds; `<200` / `>40` → one. */
function rangeOf(text: string): { min?: number; max?: number } {
  const between = /^\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (between) return { min: Number(between[1]), max: Number(between[2]) };
  const upper = /^\s*<=?\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (upper) return { max: Number(upper[1]) };
  const lower = /^\s*>=?\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (lower) return { min: Number(lower[1]) };
  return {};
}

function resultOf(marker: ResultMarker, observation: Observation, context: { labName: string; sampleId: string | null }): BiomarkerResult {
  const range = rangeOf(observation.referenceRange);
  const flags = observation.abnormalFlags;
  const result: BiomarkerResult = {
    name: marker.name,
    slug: marker.slug,
    result: observation.value,
    type: typeOf(observation),
    interpretation: interpretationOf(flags),
    provider_id: marker.providerId,
    performing_laboratory: observation.performingLab ?? context.labName,
  };
  const unit = observation.units || marker.unit;
  if (unit) result.unit = unit;
  if (observation.observedAt) result.timestamp = observation.observedAt.toISOString();
  if (observation.referenceRange) result.reference_range = observation.referenceRange;
  if (range.min !== undefined) result.min_range_value = range.min;
  if (range.max !== undefined) result.max_range_value = range.max;
  if (flags.length > 0) {
    result.is_above_max_range = flags.some((flag) => flag.startsWith('H') || flag === '>');
    result.is_below_min_range = flags.some((flag) => flag.startsWith('L') || flag === '<');
  }
  if (marker.loinc) {
    result.loinc = marker.loinc.code;
    result.loinc_slug = marker.loinc.slug;
  }
  if (marker.parent)
    result.source_markers = [{ marker_id: marker.parent.id, name: marker.parent.name, slug: marker.parent.slug, provider_id: marker.parent.providerId }];
  if (context.sampleId) result.source_sample_id = context.sampleId;
  return result;
}

function missingOf(marker: ResultMarker, observation: Observation): MissingBiomarkerResult {
  const missing: MissingBiomarkerResult = {
    name: marker.name,
    slug: marker.slug,
    inferred_failure_type: 'internal_lab_failure',
    provider_id: marker.providerId,
  };
  if (observation.value) missing.note = observation.value;
  if (marker.loinc) {
    missing.loinc = marker.loinc.code;
    missing.loinc_slug = marker.loinc.slug;
  }
  return missing;
}
