import { createHash } from 'node:crypto';
import { generateSandboxResults, interpretResults } from '../../results';
import type { LabAdapter, LabCancellation, LabResults, Requisition, RequisitionRequest, ResultsRequest } from './lab.adapter';

/**
 * The sandbox lab: accepts every requisition and generates results from the lab test's
 * biomarkers (src/results: numeric, comment and range results in turn, at the interpretation the
 * simulation asked for, deterministic per order), so the same order always gets the same report.
 */
export class SandboxLabAdapter implements LabAdapter {
  async submitRequisition(request: RequisitionRequest): Promise<Requisition> {
    const digest = createHash('sha256').update(request.orderId).digest('hex').slice(0, 10).toUpperCase();
    return { requisitionId: `SBX-${request.labSlug.toUpperCase()}-${digest}` };
  }

  /** Nothing to stop: the sandbox lab reports only when asked. */
  async cancelRequisition(): Promise<LabCancellation> {
    return {};
  }

  async results(request: ResultsRequest): Promise<LabResults> {
    const { results, missingResults } = generateSandboxResults(request.markers, {
      interpretation: request.interpretation ?? 'normal',
      hasMissingResults: request.hasMissingResults ?? false,
      resultTypes: request.resultTypes,
      collectedAt: request.collectedAt,
      seed: request.orderId,
      sex: request.sex,
    });
    // The sandbox lab performs every test itself, on the sample the order sent.
    const performed = results.map((result) => ({
      ...result,
      performing_laboratory: request.labName,
      ...(request.sampleId ? { source_sample_id: request.sampleId } : {}),
    }));
    return { status: 'final', interpretation: interpretResults(performed), results: performed, missingResults };
  }
}

/** Where the sandbox lab reports order events (labflow's lab webhook). */
export const SANDBOX_LAB_WEBHOOK_PATH = '/v3/webhooks/lab/sandbox';

/**
 * The sandbox lab's report once a production-environment order's sample was delivered to it:
 * `completed` through the lab webhook, `delayMs` later (SANDBOX_LAB_RESULT_DELAY). One id per
 * order, so a repeated delivery fact schedules it once; the workflow ignores the report if the
 * order has moved on (e.g. the sample was rejected first).
 */
export function sandboxLabCompletion(orderId: string, delayMs: number) {
  return {
    id: `sandbox-lab:${orderId}:completed`,
    path: SANDBOX_LAB_WEBHOOK_PATH,
    body: { order_id: orderId, status: 'completed' as const },
    delayMs,
  };
}
