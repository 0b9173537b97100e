import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../common/openapi';
import { nullable } from '../common/schemas';
import { PARSING_FAILURE_REASONS, PARSING_JOB_STATUSES } from '../../workflows/contract';
import { IDENTITY_REVIEW_REASONS } from './patient-identity';

/** Largest report accepted (spec §Limits: up to 10 MB). */
export const MAX_REPORT_BYTES = 10 * 1024 * 1024;

/**
 * The text fields of `POST /lab_report/v1/parser/job` (multipart, beside `file`). Form values are
 * strings; `needs_human_review` takes the spellings FastAPI's bool does.
 */
export const uploadFields = z.object({
  user_id: z.uuid(),
  needs_human_review: z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'True', 'False'])
    .optional()
    .transform((value) => value !== undefined && ['true', '1', 'yes', 'on', 'True'].includes(value)),
});
export type UploadFields = z.output<typeof uploadFields>;

export class ParsingJobIdParams extends createZodDto(z.object({ job_id: z.uuid() })) {}

const loincMatch = z.object({
  loinc_code: z.string().min(1).max(20),
  loinc_name: z.string().max(500),
  display_name: nullable(z.string().max(500)).optional(),
  aliases: z.array(z.string().max(200)).max(50).nullish(),
  confidence_score: z.number().min(0).max(1),
});

/** One result (SDK LabReportResult; loinc_match_status is newer than SDK 3.1.551). */
export const labReportResult = z.object({
  test_name: z.string().min(1).max(500),
  value: z.string().max(2000),
  type: z.enum(['numeric', 'range', 'comment', 'boolean', 'duration', 'percentage', 'ratio']).nullish(),
  units: nullable(z.string().max(100)).optional(),
  min_reference_range: nullable(z.number()).optional(),
  max_reference_range: nullable(z.number()).optional(),
  source_panel_name: nullable(z.string().max(500)).optional(),
  interpretation: z.enum(['normal', 'abnormal', 'critical', 'unknown']).nullish(),
  is_above_max_range: nullable(z.boolean()).optional(),
  is_below_min_range: nullable(z.boolean()).optional(),
  loinc_match_status: z.enum(['auto_match', 'needs_review', 'no_match']).nullish(),
  loinc_matches: z.array(loincMatch).max(5).nullish(),
});
export type LabReportResultView = z.output<typeof labReportResult>;

const metadataFields = {
  patient_first_name: z.string().max(200),
  patient_last_name: z.string().max(200),
  dob: z.string().max(50),
  gender: nullable(z.string().max(50)).optional(),
  lab_name: z.string().max(300),
  date_reported: nullable(z.string().max(50)).optional(),
  date_collected: nullable(z.string().max(50)).optional(),
  specimen_number: nullable(z.string().max(100)).optional(),
  /** labflow: the lab's CLIA number and the ordering provider, where the report prints them. */
  lab_clia: nullable(z.string().max(20)).optional(),
  ordering_provider: nullable(z.string().max(300)).optional(),
};
const resultMetadata = z.object(metadataFields);

export const parsedLabReportData = z.object({ metadata: resultMetadata, results: z.array(labReportResult) });
export type ParsedLabReportDataView = z.output<typeof parsedLabReportData>;

const parsingJob = z.object({
  id: z.string(),
  job_id: z.string(),
  status: z.enum(PARSING_JOB_STATUSES),
  failure_reason: nullable(z.enum(PARSING_FAILURE_REASONS)),
  needs_human_review: z.boolean(),
  is_reviewed: z.boolean(),
  /** labflow: why the job waits in pending_review when labflow sent it there (the report's patient is not the user's). */
  review_reason: nullable(z.enum(IDENTITY_REVIEW_REASONS)),
  /** labflow: the reviewer's reason, when the job was rejected on review (status `rejected`). */
  rejection_reason: nullable(z.string()),
  data: parsedLabReportData.nullable(),
});
export class ParsingJobDto extends responseDto(parsingJob) {}
export type ParsingJobView = z.input<typeof parsingJob>;

/**
 * labflow: a reviewer's decision on a job in `pending_review` (`POST
 * /lab_report/v1/parser/job/{job_id}/review`). Approving (the default) files the results:
 * `results` replaces the parsed results as a whole, `metadata` the fields it names, an empty body
 * accepts them as parsed. `decision: "reject"` with a `reason` refuses them: nothing is filed.
 */
export class ReviewParsingJobDto extends createZodDto(
  z
    .strictObject({
      decision: z.enum(['approve', 'reject']).optional(),
      reason: z.string().trim().min(1).max(1000).optional(),
      results: z.array(labReportResult).max(500).optional(),
      metadata: z.strictObject(Object.fromEntries(Object.entries(metadataFields).map(([key, schema]) => [key, schema.optional()]))).optional(),
    })
    .superRefine((body, context) => {
      if (body.decision === 'reject') {
        if (body.reason === undefined) context.addIssue({ code: 'custom', path: ['reason'], message: 'A rejection needs a reason.' });
        if (body.results !== undefined || body.metadata !== undefined)
          context.addIssue({ code: 'custom', path: ['decision'], message: 'A rejection takes no results or metadata.' });
      } else if (body.reason !== undefined) {
        context.addIssue({ code: 'custom', path: ['reason'], message: 'A reason is given with decision "reject" only.' });
      }
    }),
) {}
