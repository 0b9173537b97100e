import type { ParseFailureReason } from './types';

/** A report the pipeline refuses for a reason the job reports as its `failure_reason`. */
export class ReportParseFailure extends Error {
  override readonly name = 'ReportParseFailure';

  constructor(
    readonly reason: ParseFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** Pages beyond this make the job fail with `too_many_pages` (lab reports are a few pages). */
export const MAX_REPORT_PAGES = 20;
