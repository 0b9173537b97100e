import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  LAB_REPORT_IDENTITY_REVIEW_PATCH,
  LAB_REPORT_NOT_PENDING_REVIEW,
  type LabReportActivities,
  type LabReportRejection,
  type LabReportReview,
  type LabReportState,
  labReportState,
  type LabReportWorkflowInput,
  type LabReportWorkflowResult,
  type ParsingFailureReason,
  type ParsingJobStatus,
  rejectLabReport,
  REPORT_PARSE_FAILURE,
  reviewLabReport,
  SEARCH_ATTRIBUTES,
} from '../contract';
import { asFailureReason, reviewRefusal } from './lab-report-lifecycle';

// Recording a status must happen (a database outage is waited out), so it retries without end.
const records = proxyActivities<LabReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});

/**
 * `lab-report:<job_id>`: extract → parse → match → store, each step an activity on the lab
 * report task queue that keeps its output in Postgres by job id. A report that cannot be parsed
 * (a non-retryable ReportParseFailure) or a step that fails every attempt ends the job `failed`
 * with its reason; the workflow itself completes either way. With review, the job waits in
 * `pending_review` for the reviewLabReport update (or rejectLabReport, which ends it `rejected`,
 * its results never filed), as does a job whose report names another patient than its user (the
 * store step says so).
 */
export async function labReportWorkflow(input: LabReportWorkflowInput): Promise<LabReportWorkflowResult> {
  const { jobId, timers } = input;
  const steps = proxyActivities<LabReportActivities>({
    startToCloseTimeout: timers.stepTimeout,
    heartbeatTimeout: timers.heartbeatTimeout,
    retry: {
      initialInterval: timers.retryInterval,
      backoffCoefficient: 2,
      maximumAttempts: timers.maxAttempts,
      nonRetryableErrorTypes: [REPORT_PARSE_FAILURE],
    },
  });
  const state: LabReportState = { status: 'started', stage: null, failureReason: null };
  let review: LabReportReview | undefined;
  let rejection: LabReportRejection | undefined;
  // storeLabReportResults moves the job's row to pending_review a workflow task before this
  // state follows, and the API sends a review only once the row says pending_review: while the
  // results are being stored, a review is taken and applied when the workflow gets there.
  let storingResults = false;
  const reviewValidator = () => {
    if (review !== undefined || rejection !== undefined) {
      throw ApplicationFailure.nonRetryable('This parsing job has already been reviewed.', LAB_REPORT_NOT_PENDING_REVIEW);
    }
    const refusal = storingResults && state.status === 'started' ? null : reviewRefusal(state.status, input.humanReview);
    if (refusal) throw ApplicationFailure.nonRetryable(refusal, LAB_REPORT_NOT_PENDING_REVIEW);
  };
  const moveTo = (status: ParsingJobStatus) => {
    state.status = status;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.labReportStatus, value: status }]);
  };

  setHandler(labReportState, () => state);
  setHandler(
    reviewLabReport,
    async (given) => {
      review = given;
      await condition(() => state.status === 'completed');
      return { status: 'completed' as const };
    },
    { validator: (_review: LabReportReview) => reviewValidator() },
  );
  setHandler(
    rejectLabReport,
    async (given) => {
      rejection = given;
      await condition(() => state.status === 'rejected');
      return { status: 'rejected' as const };
    },
    { validator: (_rejection: LabReportRejection) => reviewValidator() },
  );

  try {
    await steps.extractLabReport({ jobId });
    state.stage = 'extracted';
    await steps.parseLabReport({ jobId });
    state.stage = 'parsed';
    await steps.matchLabReport({ jobId });
    state.stage = 'matched';
  } catch (error) {
    if (isCancellation(error)) throw error;
    const reason = failureReasonOf(error);
    await records.failLabReport({ jobId, reason });
    state.failureReason = reason;
    moveTo('failed');
    return { status: 'failed', failureReason: reason };
  }

  storingResults = true;
  const stored = await records.storeLabReportResults({ jobId, pendingReview: input.humanReview });
  state.stage = 'stored';
  // Histories recorded before the identity check have no answer here and no marker: unchanged.
  const sentToReview = stored?.status === 'pending_review' && patched(LAB_REPORT_IDENTITY_REVIEW_PATCH);
  if (input.humanReview || sentToReview) {
    moveTo('pending_review');
    await condition(() => review !== undefined || rejection !== undefined);
    if (rejection !== undefined) {
      await records.rejectLabReport({ jobId, rejection });
      moveTo('rejected');
      await condition(allHandlersFinished);
      return { status: 'rejected', failureReason: null };
    }
    await records.completeLabReportReview({ jobId, review: review as LabReportReview });
  }
  moveTo('completed');
  // The review update answers once the job is completed; let it, before the workflow closes.
  await condition(allHandlersFinished);
  return { status: 'completed', failureReason: null };
}

/** The report's own failure (its reason in the details), else processing_error: retries ran out. */
function failureReasonOf(error: unknown): ParsingFailureReason {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === REPORT_PARSE_FAILURE) return asFailureReason(cause.details?.[0]);
  return 'processing_error';
}
