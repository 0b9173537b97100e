import { ApplicationFailure } from '@temporalio/common';
import { whileBeating } from './heartbeat';
import {
  type LabReportActivities,
  type LabReportRejection,
  type LabReportReview,
  type LabReportStored,
  type ParsingFailureReason,
  REPORT_PARSE_FAILURE,
} from '../workflows/contract';

/** What the lab report activities need from src/ (LabReportProcessingService fits). */
export interface LabReportProcessing {
  extract(jobId: string): Promise<void>;
  parse(jobId: string): Promise<void>;
  match(jobId: string): Promise<void>;
  storeResults(jobId: string, pendingReview: boolean): Promise<LabReportStored>;
  fail(jobId: string, reason: ParsingFailureReason): Promise<void>;
  completeReview(jobId: string, review: LabReportReview): Promise<void>;
  reject(jobId: string, rejection: LabReportRejection): Promise<void>;
}

/**
 * Thin activities over the processing service. Every step keeps its output by job id and skips
 * work already done, and every status change is conditional on the status before it, so Temporal
 * may retry any of them, on any worker.
 */
export function createLabReportActivities(processing: LabReportProcessing): LabReportActivities {
  return {
    extractLabReport: ({ jobId }) => step(() => processing.extract(jobId)),
    parseLabReport: ({ jobId }) => step(() => processing.parse(jobId)),
    matchLabReport: ({ jobId }) => step(() => processing.match(jobId)),
    storeLabReportResults: ({ jobId, pendingReview }) => processing.storeResults(jobId, pendingReview),
    failLabReport: ({ jobId, reason }) => processing.fail(jobId, reason),
    completeLabReportReview: ({ jobId, review }) => processing.completeReview(jobId, review),
    rejectLabReport: ({ jobId, rejection }) => processing.reject(jobId, rejection),
  };
}

/**
 * Runs a processing step, heartbeating meanwhile (OCR runs off the event loop, so a live worker
 * keeps beating and a dead one is noticed after the heartbeat timeout). A report that cannot be
 * parsed (ReportParseFailure, with its reason) becomes a non-retryable failure the workflow turns
 * into the job's failure_reason; anything else is retried.
 */
async function step(work: () => Promise<void>): Promise<void> {
  try {
    await whileBeating(work);
  } catch (error) {
    const reason = parseFailureReason(error);
    if (reason) throw ApplicationFailure.nonRetryable((error as Error).message, REPORT_PARSE_FAILURE, reason);
    throw error;
  }
}

/** The reason of a ReportParseFailure (src/lab-reports/parsing), by name: activities import no classes from src/. */
function parseFailureReason(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== 'ReportParseFailure') return null;
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : null;
}
