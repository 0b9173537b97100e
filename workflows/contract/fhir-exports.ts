/** FHIR Bulk Data export (src/fhir/export/, workflows/fhir-export, activities/fhir-exports.ts). */
/** One workflow per export. */
export const fhirExportWorkflowId = (exportId: string) => `fhir-export:${exportId}`;

/** Where a type's export stands: the search's opaque keyset position (null: from its start). */
export interface FhirExportPosition {
  part: string;
  at: string;
  id: string;
  n: number;
}

export interface FhirExportWorkflowInput {
  exportId: string;
  /** The resource types to write, in order. */
  types: string[];
  /** Pages (NDJSON parts) one step writes at most before it hands its position back. */
  pagesPerStep: number;
  /** How long the files are kept after the export completed; then they are deleted. */
  retentionMs: number;
  /** Set by continue-as-new: where the export stands. */
  resume?: { typeIndex: number; seq: number; position: FhirExportPosition | null };
}

/** What a step did: the next part's number, and where the type continues (null: the type is written). */
export interface FhirExportStep {
  seq: number;
  position: FhirExportPosition | null;
  /** The export was cancelled (deleted) while the step ran: the workflow ends. */
  gone: boolean;
}

export interface FhirExportActivities {
  /**
   * Writes up to `pages` NDJSON parts of `type` from `position`, numbered from `seq`, each
   * committed as it is written (a part rewritten by a retried step replaces itself). When the type
   * ends, parts numbered past its last one (left by an earlier attempt) are removed.
   */
  writeFhirExportParts(input: { exportId: string; type: string; seq: number; position: FhirExportPosition | null; pages: number }): Promise<FhirExportStep>;
  /** Every type is written: the export completes, its files kept until `expiresAt`. Idempotent. */
  completeFhirExport(input: { exportId: string; retentionMs: number }): Promise<void>;
  /** The retention has passed: the files are deleted and the export expires. Idempotent. */
  expireFhirExport(input: { exportId: string }): Promise<void>;
}
