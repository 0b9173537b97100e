import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { FhirExportActivities, FhirExportWorkflowInput } from '../contract';

/** Steps per run before continue-as-new keeps the history short. */
const STEPS_PER_RUN = 500;

/**
 * `fhir-export:<export_id>`: one FHIR Bulk Data export. The API wrote the export (in progress)
 * and started this workflow; it writes each requested type's NDJSON file a page at a time (each
 * step a few keyset pages from where the last ended, so no step holds more than a page of the
 * team), completes the export, keeps its files for the retention and then deletes them. A
 * cancelled export (DELETE on its status URL) is deleted by the API and this workflow cancelled;
 * a step that finds its export gone ends it too.
 */
export async function fhirExportWorkflow(input: FhirExportWorkflowInput): Promise<'completed' | 'cancelled'> {
  const { writeFhirExportParts, completeFhirExport, expireFhirExport } = proxyActivities<FhirExportActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  let { typeIndex, seq, position } = input.resume ?? { typeIndex: 0, seq: 0, position: null };
  for (let steps = 0; typeIndex < input.types.length; steps++) {
    const step = await writeFhirExportParts({ exportId: input.exportId, type: input.types[typeIndex], seq, position, pages: input.pagesPerStep });
    if (step.gone) return 'cancelled';
    ({ seq, position } = step);
    if (position === null) {
      typeIndex++;
      seq = 0;
    }
    if (steps + 1 >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof fhirExportWorkflow>({ ...input, resume: { typeIndex, seq, position } });
    }
  }
  await completeFhirExport({ exportId: input.exportId, retentionMs: input.retentionMs });
  await sleep(input.retentionMs);
  await expireFhirExport({ exportId: input.exportId });
  return 'completed';
}
