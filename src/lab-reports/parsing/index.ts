/**
 * Lab report parsing as a pure library (no Nest, no database): the worker's activities call
 * these one stage at a time and persist what each returns (all plain JSON).
 *
 *   const kind = detectReportFileKind(bytes);                 // magic bytes; null = unsupported
 *   const doc = await extractReport(bytes, kind);             // words + positions (text layer or OCR)
 *   const parsed = parseReport(doc);                          // results and metadata as printed
 *   const data = matchReport(parsed, buildLoincCatalogue(rows)); // SDK-shaped results + LOINC
 *
 * Every stage throws `ReportParseFailure` with the job's `failure_reason` for inputs it refuses;
 * any other error is a processing error worth a retry. `closeOcr()` ends the OCR worker threads.
 */
export type {
  ReportFileKind,
  ParseFailureReason,
  ExtractedDocument,
  ExtractedPage,
  ExtractedWord,
  ReportMetadata,
  ParsedResult,
  ParsedReport,
  LabReportResultType,
  ResultInterpretation,
  LoincRow,
  LoincMatch,
  LoincMatchStatus,
  MatchedResult,
  MatchedMetadata,
  MatchedReport,
} from './types';
export { detectReportFileKind } from './file-kind';
export { ReportParseFailure, MAX_REPORT_PAGES } from './failure';
export { extractReport, MIN_OCR_CONFIDENCE } from './extract';
export { parseReport } from './parse';
export { buildLoincCatalogue, type LoincCatalogue } from './loinc/catalogue';
export { matchReport, AUTO_MATCH_SCORE, REVIEW_SCORE } from './loinc/match';
export { configureOcr, closeOcr } from './ocr';
