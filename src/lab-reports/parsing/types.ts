/**
 * The lab-report parsing pipeline's data, stage by stage: extract (words with positions) →
 * parse (results as printed) → match (LOINC candidates, results as the SDK types them). Every
 * value here is plain JSON so a workflow activity can persist it between stages.
 */
import type { ResultInterpretation as LabResultInterpretation } from '../../results/result.types';

export type ReportFileKind = 'pdf' | 'jpeg' | 'png';

export type ParseFailureReason = 'invalid_input' | 'low_quality' | 'not_english' | 'too_many_pages';

/** One word with its box, top-left origin, in page units (PDF points, or pixels for images). */
export interface ExtractedWord {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** OCR confidence 0..1; null for a PDF text layer. */
  confidence: number | null;
}

export interface ExtractedPage {
  width: number;
  height: number;
  words: ExtractedWord[];
  /**
   * A photo's other OCR reading (the frame levelled by tesseract, or the sheet flattened; extract.ts),
   * in its own pixels: the report's metadata takes each field from the reading surer of it.
   */
  alternative?: Omit<ExtractedPage, 'alternative'>;
}

export interface ExtractedDocument {
  kind: ReportFileKind;
  method: 'text' | 'ocr';
  pages: ExtractedPage[];
  /** Mean word confidence 0..1 over the document when OCR was used. */
  ocrConfidence: number | null;
  /** ISO 639-1 code detected from the text (e.g. `en`), null when there is too little text. */
  language: string | null;
}

/** The report's header data as printed, normalised (dates as YYYY-MM-DD). */
export interface ReportMetadata {
  patient_first_name: string | null;
  patient_last_name: string | null;
  dob: string | null;
  gender: 'male' | 'female' | null;
  lab_name: string | null;
  /** The lab's CLIA number (`05D0642827`) where printed. */
  lab_clia: string | null;
  ordering_provider: string | null;
  date_reported: string | null;
  date_collected: string | null;
  specimen_number: string | null;
  /** Per field: how sure the parser is (0..1), and why a field it left null is null. */
  confidence: Record<MetadataField, { confidence: number; reason: string | null }>;
}

export type MetadataField = Exclude<keyof ReportMetadata, 'confidence'>;

export type LabReportResultType = 'numeric' | 'range' | 'comment' | 'boolean' | 'duration' | 'percentage' | 'ratio';
/** A parsed result's interpretation: the same levels as a lab's results (src/results). */
export type ResultInterpretation = LabResultInterpretation;

/** One result row as printed on the report, before LOINC matching. */
export interface ParsedResult {
  /** The test name as printed (OCR noise included). */
  test_name: string;
  /** The value as printed, thousands separators removed (`<0.5`, `Negative`, `1:160`, `5.4`). */
  value: string;
  type: LabReportResultType;
  units: string | null;
  min_reference_range: number | null;
  max_reference_range: number | null;
  /** The reference interval as printed (`0.40-4.50`, `<200`, `Negative`). */
  reference_text: string | null;
  /** The flag as printed (`H`, `L`, `HH`, `A`, `High`, `*`), null when none. */
  flag: string | null;
  interpretation: ResultInterpretation;
  is_above_max_range: boolean | null;
  is_below_min_range: boolean | null;
  source_panel_name: string | null;
  /** Specimen the report states for this result's section (`urine`, `blood`, `serum`), if any. */
  specimen: string | null;
  page: number;
  /** 0..1: how sure the parser is of this row (OCR confidence, corrections applied). */
  confidence: number;
  /** Why a value was changed or doubted (`decimal restored: 21 → 2.1 (range 0.4-4.5)`). */
  notes: string[];
}

export interface ParsedReport {
  metadata: ReportMetadata;
  results: ParsedResult[];
  /** Read by OCR (its values may have lost a decimal point: loinc/scales.ts); absent for a text layer. */
  ocr?: boolean;
}

/** A row of the LOINC catalogue (the `loinc_codes` table), as the matcher needs it. */
export type { LoincCatalogueRow as LoincRow } from '../../lab-tests/loinc-catalogue-row';

export interface LoincMatch {
  loinc_code: string;
  loinc_name: string;
  display_name?: string;
  aliases?: string[];
  confidence_score: number;
}

export type LoincMatchStatus = 'auto_match' | 'needs_review' | 'no_match';

/** `LabReportResult` of @tryvital/vital-node, plus `loinc_match_status` (newer than that SDK). */
export interface MatchedResult {
  test_name: string;
  value: string;
  type: LabReportResultType;
  units?: string;
  min_reference_range?: number;
  max_reference_range?: number;
  source_panel_name?: string;
  interpretation: ResultInterpretation;
  is_above_max_range?: boolean;
  is_below_min_range?: boolean;
  loinc_match_status: LoincMatchStatus;
  loinc_matches: LoincMatch[];
}

/**
 * `ResultMetadata` of the SDK: first and last name, dob and lab name are required strings there
 * (a null makes the SDK throw), so unknown ones are ''. Gender is served too (newer than the SDK).
 */
export interface MatchedMetadata {
  patient_first_name: string;
  patient_last_name: string;
  dob: string;
  gender?: 'male' | 'female';
  lab_name: string;
  date_reported?: string;
  date_collected?: string;
  specimen_number?: string;
  lab_clia?: string;
  ordering_provider?: string;
}

/** The job's `data`: `ParsedLabReportData` of the SDK. */
export interface MatchedReport {
  metadata: MatchedMetadata;
  results: MatchedResult[];
}
