/**
 * The parsing job lifecycle as plain tables and functions, for the workflow and the API's
 * pre-checks alike: started → completed | failed, or started → pending_review → completed |
 * rejected when the team reviews its reports (or labflow sent the job to review).
 */
import { PARSING_FAILURE_REASONS, type ParsingFailureReason, type ParsingJobStatus } from '../contract/lab-reports';

/** Statuses a job never leaves. */
export const TERMINAL_JOB_STATUSES: readonly ParsingJobStatus[] = ['completed', 'failed', 'rejected'];

/** The statuses a job may move to `to` from (a repeated move finds the job already there). */
export const JOB_MOVES_FROM: Record<'pending_review' | 'completed' | 'failed' | 'rejected', readonly ParsingJobStatus[]> = {
  pending_review: ['upload_pending', 'started'],
  completed: ['upload_pending', 'started', 'pending_review'],
  failed: ['upload_pending', 'started'],
  rejected: ['pending_review'],
};

/** Why a review of a job in `status` is refused; null when it may be reviewed. */
export function reviewRefusal(status: ParsingJobStatus, needsHumanReview: boolean): string | null {
  if (status === 'pending_review') return null;
  if (!needsHumanReview) return 'This parsing job was not submitted for human review.';
  if (status === 'completed' || status === 'rejected') return 'This parsing job has already been reviewed.';
  if (status === 'failed') return 'This parsing job failed; there is nothing to review.';
  return 'This parsing job is still being processed; it can be reviewed once its results are ready.';
}

/** A failure reason named by an activity, or invalid_input when it named none we know. */
export function asFailureReason(value: unknown): ParsingFailureReason {
  return (PARSING_FAILURE_REASONS as readonly unknown[]).includes(value) ? (value as ParsingFailureReason) : 'invalid_input';
}
