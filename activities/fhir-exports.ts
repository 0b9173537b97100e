import { whileBeating } from './heartbeat';
import type { FhirExportActivities, FhirExportPosition, FhirExportStep } from '../workflows/contract';

/** What the FHIR export activities need from src/ (FhirExportRunner fits). */
export interface FhirExportWriter {
  writeParts(exportId: string, type: string, seq: number, position: FhirExportPosition | null, pages: number): Promise<FhirExportStep>;
  complete(exportId: string, retentionMs: number): Promise<void>;
  expire(exportId: string): Promise<void>;
}

/**
 * Thin and idempotent: a part is keyed by (export, type, number) and replaces itself when a
 * retried step writes it again; completing and expiring are single conditional statements. A
 * step heartbeats while it writes its pages.
 */
export function createFhirExportActivities(writer: FhirExportWriter): FhirExportActivities {
  return {
    writeFhirExportParts: ({ exportId, type, seq, position, pages }) => whileBeating(() => writer.writeParts(exportId, type, seq, position, pages)),
    completeFhirExport: ({ exportId, retentionMs }) => writer.complete(exportId, retentionMs),
    expireFhirExport: ({ exportId }) => writer.expire(exportId),
  };
}
