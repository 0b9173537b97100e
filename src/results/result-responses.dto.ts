import { responseDto } from '../common/openapi';
import { z } from 'zod';
import { FAILURE_TYPES, RESULT_INTERPRETATIONS, RESULT_TYPES } from './result.types';

/** `GET /v3/order/{id}/result` and `/result/metadata` as documented (result.types.ts, field for field). */

const parentBiomarker = z.object({ marker_id: z.number().int(), name: z.string(), slug: z.string(), provider_id: z.string().optional() });

const biomarkerResult = z.object({
  name: z.string(),
  slug: z.string().optional(),
  result: z.string(),
  type: z.enum(RESULT_TYPES),
  unit: z.string().optional(),
  timestamp: z.string().optional(),
  notes: z.string().optional(),
  reference_range: z.string().optional(),
  min_range_value: z.number().optional(),
  max_range_value: z.number().optional(),
  is_above_max_range: z.boolean().optional(),
  is_below_min_range: z.boolean().optional(),
  interpretation: z.string().optional(),
  loinc: z.string().optional(),
  loinc_slug: z.string().optional(),
  provider_id: z.string().optional(),
  source_markers: z.array(parentBiomarker).optional(),
  performing_laboratory: z.string().optional(),
  source_sample_id: z.string().optional(),
});

const missingBiomarkerResult = z.object({
  name: z.string(),
  slug: z.string(),
  inferred_failure_type: z.enum(FAILURE_TYPES),
  note: z.string().optional(),
  loinc: z.string().optional(),
  loinc_slug: z.string().optional(),
  provider_id: z.string().optional(),
  source_markers: z.array(parentBiomarker).optional(),
});

const labResultsMetadata = z.object({
  age: z.string(),
  dob: z.string(),
  'clia_#': z.string().optional(),
  patient: z.string(),
  provider: z.string().optional(),
  laboratory: z.string().optional(),
  date_reported: z.string(),
  date_collected: z.string().optional(),
  specimen_number: z.string(),
  date_received: z.string().optional(),
  status: z.enum(['final', 'partial']).optional(),
  interpretation: z.enum(RESULT_INTERPRETATIONS).optional(),
  patient_id: z.string().optional(),
  account_id: z.string().optional(),
});

const performingLaboratory = z.object({
  name: z.string(),
  address: z.object({ first_line: z.string(), country: z.string(), zip: z.string(), city: z.string(), state: z.string() }).optional(),
});

const sampleData = z.object({
  sample_id: z.string().optional(),
  date_collected: z.string().optional(),
  date_received: z.string().optional(),
  date_reported: z.string().optional(),
  performing_laboratories: z.record(z.string(), performingLaboratory).optional(),
});

export class LabResultsResponse extends responseDto(
  z.object({
    metadata: labResultsMetadata,
    results: z.array(biomarkerResult),
    missing_results: z.array(missingBiomarkerResult).optional(),
    sample_information: z.record(z.string(), sampleData).optional(),
  }),
) {}

export class LabResultsMetadataResponse extends responseDto(labResultsMetadata) {}
