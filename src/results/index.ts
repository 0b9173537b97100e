export * from './result.types';
export { interpretResults, resultFlag } from './interpretation';
export { renderResultReportPdf } from './result-report-pdf';
export {
  generateSandboxResults,
  referenceRangeText,
  SANDBOX_RESULT_TYPES,
  type ResultMarker,
  type SandboxResultOptions,
  type SandboxResults,
  type SandboxResultType,
} from './sandbox-results';
export { ageInYears, buildLabResults, buildResultMetadata, type ResultMetadataInput } from './result-metadata';
