/**
 * Wire shapes (snake_case JSON) of `GET /v3/order/{id}/result`, field for field as the Junction
 * SDK's serialization schemas (BiomarkerResult, MissingBiomarkerResult, LabResultsMetadata,
 * LabResultsRaw) read them. Optional fields are left out rather than sent as null.
 */

export const RESULT_TYPES = ['numeric', 'range', 'comment', 'coded_value'] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

/**
 * The level of a result or of a whole order (the SDK's Interpretation). `unknown`: reported
 * without an interpretation (no reference to judge by, or the lab gave none).
 */
export const RESULT_INTERPRETATIONS = ['normal', 'abnormal', 'critical', 'unknown'] as const;
export type ResultInterpretation = (typeof RESULT_INTERPRETATIONS)[number];

/** The levels a value can be judged at. */
export type ResultLevel = Exclude<ResultInterpretation, 'unknown'>;

/** The ordered panel a biomarker result belongs to (SDK ParentBiomarkerData). */
export interface ParentBiomarkerData {
  marker_id: number;
  name: string;
  slug: string;
  provider_id?: string;
}

export interface BiomarkerResult {
  name: string;
  slug?: string;
  result: string;
  type: ResultType;
  unit?: string;
  /** ISO 8601 datetime. */
  timestamp?: string;
  notes?: string;
  reference_range?: string;
  min_range_value?: number;
  max_range_value?: number;
  is_above_max_range?: boolean;
  is_below_min_range?: boolean;
  /** normal | abnormal | critical | unknown (the SDK types it as a free string). */
  interpretation?: string;
  loinc?: string;
  loinc_slug?: string;
  provider_id?: string;
  source_markers?: ParentBiomarkerData[];
  performing_laboratory?: string;
  source_sample_id?: string;
}

export const FAILURE_TYPES = [
  'quantity_not_sufficient_failure',
  'collection_process_failure',
  'drop_off_failure',
  'internal_lab_failure',
  'order_entry_failure',
  'non_failure',
  'unknown_failure',
  'patient_condition_failure',
  'missing_result_calc_failure',
  'missing_demo_aoe_calc_failure',
  'insufficient_volume',
] as const;
export type FailureType = (typeof FAILURE_TYPES)[number];

export interface MissingBiomarkerResult {
  name: string;
  slug: string;
  inferred_failure_type: FailureType;
  note?: string;
  loinc?: string;
  loinc_slug?: string;
  provider_id?: string;
  source_markers?: ParentBiomarkerData[];
}

export interface LabResultsMetadata {
  /** Whole years at collection, as a string. */
  age: string;
  /** YYYY-MM-DD. */
  dob: string;
  'clia_#'?: string;
  patient: string;
  provider?: string;
  laboratory?: string;
  date_reported: string;
  date_collected?: string;
  specimen_number: string;
  date_received?: string;
  status?: 'final' | 'partial';
  interpretation?: ResultInterpretation;
  patient_id?: string;
  account_id?: string;
}

/** A lab that performed tests on a sample (SDK PerformingLaboratory). */
export interface PerformingLaboratory {
  name: string;
  address?: { first_line: string; country: string; zip: string; city: string; state: string };
}

/** What the lab reports of one sample (SDK SampleData). */
export interface SampleData {
  sample_id?: string;
  date_collected?: string;
  date_received?: string;
  date_reported?: string;
  /** Keyed by the lab's slug. */
  performing_laboratories?: Record<string, PerformingLaboratory>;
}

/** The body of `GET /v3/order/{id}/result` (SDK LabResultsRaw). */
export interface LabResultsRaw {
  metadata: LabResultsMetadata;
  results: BiomarkerResult[];
  missing_results?: MissingBiomarkerResult[];
  /** Per sample, keyed by its sample id. */
  sample_information?: Record<string, SampleData>;
}
