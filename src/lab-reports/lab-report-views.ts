import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import type { ParsingJobEntity } from './lab-report.entities';
import type { ParsedLabReportDataView, ParsingJobView } from './lab-reports.dto';

/** Metadata fields the SDK requires as strings (a null makes it throw). */
const REQUIRED_METADATA = ['patient_first_name', 'patient_last_name', 'dob', 'lab_name'] as const;

/** Parsing job → ParsingJob, the body of the job routes and the `data` of its webhooks. */
@Injectable()
export class LabReportViews {
  constructor(private readonly cipher: PhiCipher) {}

  job(job: ParsingJobEntity): ParsingJobView {
    return {
      id: job.id,
      job_id: job.id,
      status: job.status,
      failure_reason: job.failureReason,
      needs_human_review: job.needsHumanReview,
      is_reviewed: job.isReviewed,
      review_reason: job.reviewReason,
      rejection_reason: job.rejectionReasonEnc === null ? null : this.cipher.decryptJson<string>(job.rejectionReasonEnc),
      data: job.dataEnc === null ? null : withRequiredMetadata(this.cipher.decryptJson<ParsedLabReportDataView>(job.dataEnc)),
    };
  }

  /** The results as stored on a job (encrypted). */
  sealData(data: ParsedLabReportDataView): string {
    return this.cipher.encryptJson(withRequiredMetadata(data));
  }

  openData(job: ParsingJobEntity): ParsedLabReportDataView | null {
    return job.dataEnc === null ? null : this.cipher.decryptJson<ParsedLabReportDataView>(job.dataEnc);
  }
}

/** Unknown required metadata (a report without a date of birth) is "" rather than null. */
function withRequiredMetadata(data: ParsedLabReportDataView): ParsedLabReportDataView {
  const metadata = { ...data.metadata };
  for (const field of REQUIRED_METADATA) metadata[field] = metadata[field] ?? '';
  return { ...data, metadata };
}
