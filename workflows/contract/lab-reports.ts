/**
 * Lab report parsing jobs (src/lab-reports, workflows/lab-report/, activities/lab-reports.ts).
 * One workflow per job, `lab-report:<job_id>`, on a task queue of its own so OCR never delays
 * order workflows.
 */
import type { Duration } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** The task queue lab report workflows and their activities run on (LAB_REPORT_TASK_QUEUE). */
export const LAB_REPORT_TASK_QUEUE = 'labflow-lab-reports';

export const labReportWorkflowId = (jobId: string) => `lab-report:${jobId}`;

/**
 * ParsingJob `status`. The SDK knows upload_pending, started, completed and failed (its enum is
 * non-exhaustive, unknown values parse); `pending_review` and `rejected` are labflow's: results
 * parsed, waiting for a human reviewer; and refused by the reviewer, never filed.
 */
export const PARSING_JOB_STATUSES = ['upload_pending', 'started', 'pending_review', 'completed', 'failed', 'rejected'] as const;
export type ParsingJobStatus = (typeof PARSING_JOB_STATUSES)[number];

export const PARSING_FAILURE_REASONS = ['invalid_input', 'low_quality', 'not_english', 'too_many_pages', 'processing_error'] as const;
export type ParsingFailureReason = (typeof PARSING_FAILURE_REASONS)[number];

/** Failure type of a processing activity when the report itself cannot be parsed (details: [reason]). */
export const REPORT_PARSE_FAILURE = 'ReportParseFailure';

/** The processing steps, in order; each stores what it produced under its stage. */
export const LAB_REPORT_STAGES = ['extracted', 'parsed', 'matched'] as const;
export type LabReportStage = (typeof LAB_REPORT_STAGES)[number];

/** Activity timeouts and retries, fixed per job when its workflow starts (configuration). */
export interface LabReportTimers {
  /** Longest a processing step may run (OCR of a many-page scan). */
  stepTimeout: Duration;
  /** A step's worker must heartbeat this often, so a dead worker's step is retried soon. */
  heartbeatTimeout: Duration;
  /** First retry delay of a failing step (doubling after). */
  retryInterval: Duration;
  /** Attempts of a step before the job fails with processing_error. */
  maxAttempts: number;
}

export interface LabReportWorkflowInput {
  jobId: string;
  teamId: string;
  /** Asked for and enabled for the team when the job was created: wait for a reviewer. */
  humanReview: boolean;
  timers: LabReportTimers;
}

export interface LabReportWorkflowResult {
  status: 'completed' | 'failed' | 'rejected';
  failureReason: ParsingFailureReason | null;
}

/** What the workflow reports to a query (and ops in the UI). */
export interface LabReportState {
  status: ParsingJobStatus;
  stage: LabReportStage | 'stored' | null;
  failureReason: ParsingFailureReason | null;
}

/** A reviewer's corrections: the results as they should be stored (omitted: keep the parsed ones). */
export interface LabReportReview {
  /** ParsedLabReportData.results, in the API's snake_case shape. */
  results?: unknown[];
  /** Fields of ParsedLabReportData.metadata to replace. */
  metadata?: Record<string, string | null>;
}

/** Completes a job waiting for review; refused unless the job is pending_review. */
export const reviewLabReport = defineUpdate<{ status: 'completed' }, [LabReportReview]>('reviewLabReport');

/** A reviewer's refusal of a job's results, and why (free text; it may name the patient). */
export interface LabReportRejection {
  reason: string;
}

/**
 * Ends a job waiting for review as `rejected`, its results never filed; refused unless the job is
 * pending_review. An update of its own, so a worker that predates it refuses it rather than
 * taking it for an approval.
 */
export const rejectLabReport = defineUpdate<{ status: 'rejected' }, [LabReportRejection]>('rejectLabReport');
export const labReportState = defineQuery<LabReportState>('labReportState');

/** Failure type of reviewLabReport when the job is not waiting for review. */
export const LAB_REPORT_NOT_PENDING_REVIEW = 'LabReportNotPendingReview';

/** Where storing the results left the job. */
export interface LabReportStored {
  status: 'completed' | 'pending_review';
}

/** The patch under which a job labflow sent to review (patient mismatch) waits for a reviewer. */
export const LAB_REPORT_IDENTITY_REVIEW_PATCH = 'lab-report-identity-review';

export interface LabReportStepInput {
  jobId: string;
}

export interface LabReportActivities {
  /** Reads the stored file and extracts its text with positions (text layer or OCR). */
  extractLabReport(input: LabReportStepInput): Promise<void>;
  /** Reconstructs rows, columns, panels and metadata from the extracted words. */
  parseLabReport(input: LabReportStepInput): Promise<void>;
  /** Matches each result to LOINC candidates. */
  matchLabReport(input: LabReportStepInput): Promise<void>;
  /**
   * Stores the matched results on the job and moves it to `completed` (or `pending_review`),
   * emitting `lab_report.parsing_job.updated`. Idempotent: a job already there is left alone.
   * A report whose patient is not the user on file goes to `pending_review` even unasked; the
   * answer says where the job went (workers older than that answer nothing).
   */
  storeLabReportResults(input: { jobId: string; pendingReview: boolean }): Promise<LabReportStored | void>;
  /** Ends the job as `failed` with the reason, emitting the update event. Idempotent. */
  failLabReport(input: { jobId: string; reason: ParsingFailureReason }): Promise<void>;
  /** Applies a review and completes the job with is_reviewed, emitting the update event. Idempotent. */
  completeLabReportReview(input: { jobId: string; review: LabReportReview }): Promise<void>;
  /** Ends the job `rejected` with is_reviewed and the reason, its data dropped, emitting the update event. Idempotent. */
  rejectLabReport(input: { jobId: string; rejection: LabReportRejection }): Promise<void>;
}
