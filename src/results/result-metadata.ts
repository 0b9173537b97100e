import { NETWORK_PHYSICIAN } from '../requisitions/requisition.types';
import type { BiomarkerResult, LabResultsMetadata, LabResultsRaw, MissingBiomarkerResult, ResultInterpretation, SampleData } from './result.types';

export interface ResultMetadataInput {
  patient: { firstName: string; lastName: string; /** YYYY-MM-DD */ dob: string };
  /** The ordering physician; null → the network physician's name. */
  provider: { firstName: string; lastName: string } | null;
  /** The lab's display name. */
  laboratory: string;
  /** The performing lab's CLIA number, when known. */
  clia?: string | null;
  /** The specimen (sample) id; the order id when the order never got one. */
  specimenNumber: string;
  collectedAt: Date | null;
  receivedAt: Date | null;
  reportedAt: Date;
  status: 'final' | 'partial';
  interpretation: ResultInterpretation;
  /** The patient's id in the report (labflow uses the user id). */
  patientId?: string | null;
  /** The lab account the order was billed to. */
  accountId?: string | null;
}

/**
 * The `metadata` object of `GET /v3/order/{id}/result`. Dates are ISO 8601 datetimes, dob stays
 * YYYY-MM-DD, age is the patient's age in whole years on the collection date (on the report
 * date when there is no collection date). Optional fields without a value are left out.
 */
export function buildResultMetadata(input: ResultMetadataInput): LabResultsMetadata {
  const ageAt = input.collectedAt ?? input.reportedAt;
  return {
    age: String(ageInYears(input.patient.dob, ageAt)),
    dob: input.patient.dob,
    ...(input.clia ? { 'clia_#': input.clia } : {}),
    patient: `${input.patient.firstName} ${input.patient.lastName}`,
    provider: input.provider ? `${input.provider.firstName} ${input.provider.lastName}` : NETWORK_PHYSICIAN,
    laboratory: input.laboratory,
    date_reported: input.reportedAt.toISOString(),
    ...(input.collectedAt ? { date_collected: input.collectedAt.toISOString() } : {}),
    specimen_number: input.specimenNumber,
    ...(input.receivedAt ? { date_received: input.receivedAt.toISOString() } : {}),
    status: input.status,
    interpretation: input.interpretation,
    ...(input.patientId ? { patient_id: input.patientId } : {}),
    ...(input.accountId ? { account_id: input.accountId } : {}),
  };
}

/**
 * The body of `GET /v3/order/{id}/result`; missing_results only when there are some, and the
 * sample's information when the caller knows it.
 */
export function buildLabResults(
  metadata: LabResultsMetadata,
  results: BiomarkerResult[],
  missingResults: MissingBiomarkerResult[] = [],
  sample: { id: string; data: SampleData } | null = null,
): LabResultsRaw {
  return {
    metadata,
    results,
    ...(missingResults.length > 0 ? { missing_results: missingResults } : {}),
    ...(sample ? { sample_information: { [sample.id]: sample.data } } : {}),
  };
}

/**
 * Whole years from a YYYY-MM-DD birth date to `at` (UTC calendar date); a Feb 29 birthday
 * counts as reached on Mar 1 in common years.
 */
export function ageInYears(dob: string, at: Date): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob);
  if (!match) throw new Error(`dob must be YYYY-MM-DD, got ${JSON.stringify(dob)}`);
  const [year, month, day] = match.slice(1).map(Number);
  const birthday = Date.UTC(at.getUTCFullYear(), month - 1, day); // Feb 29 rolls to Mar 1
  const today = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const age = at.getUTCFullYear() - year - (today < birthday ? 1 : 0);
  if (age < 0) throw new Error(`dob ${dob} is after ${at.toISOString()}`);
  return age;
}
