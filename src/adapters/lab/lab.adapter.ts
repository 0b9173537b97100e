import type { BiomarkerResult, MissingBiomarkerResult, ResultInterpretation, ResultMarker, ResultType } from '../../results';

export type { ResultInterpretation, ResultMarker, ResultType } from '../../results';

export interface RequisitionRequest {
  orderId: string;
  labSlug: string;
  /** labflow's lab account the order is billed to (which decides how the lab is reached). */
  labAccountId: string;
  accountNumber: string;
  environment: 'sandbox' | 'production';
  /** The patient (the order's user id and details); null: not registered yet. */
  patient: RequisitionPatient | null;
  /** The ordering physician (the first the order names). */
  physician: { npi: string; firstName: string; lastName: string } | null;
  /** ICD-10-CM diagnosis codes. */
  icdCodes: string[];
  /** What is ordered: the lab test's markers, a panel as one, with their ask-at-order-entry questions. */
  orderables: Array<{ id: number; name: string; providerId: string; questions: Array<{ id: number; text: string }> }>;
  /** When the sample was collected, when it was before the order reached the lab (an imported kit). */
  collectedAt: Date | null;
  /** The requisition comment: the account's default and the order's clinical notes, joined. */
  clinicalNotes: string | null;
  /** A STAT order (the order's `priority`). */
  priority: boolean;
  /** Who pays: the order's billing_type (client_bill, commercial_insurance, …). */
  billingType: string;
  /**
   * The order's health insurance as the API took it (Junction's HealthInsuranceCreateRequest,
   * snake_case: card images, payor_code, insurance_id, responsible party, diagnosis codes), for a
   * lab that bills insurance; null: none given.
   */
  healthInsurance: Readonly<Record<string, unknown>> | null;
  /** Answers to the lab's ask-at-order-entry questions, per marker. */
  aoeAnswers: Array<{ marker_id: number; question_id: number; answer: string }>;
  /** The consents the patient gave (Junction's Consent: consentType, version, timeOfConsent). */
  consents: Array<{ consentType: string; version?: string | null; timeOfConsent?: string | null }>;
}

export interface RequisitionPatient {
  id: string;
  firstName: string;
  lastName: string;
  dob: string;
  gender: string;
  phone: string | null;
  address: { firstLine: string; secondLine: string | null; city: string; state: string; zip: string; country: string } | null;
}

export interface Requisition {
  /** The lab's reference for the requisition. */
  requisitionId: string;
  /**
   * A lab reached by message (HL7): how it answered the order message. `AA`: taken; `AE`/`AR`:
   * refused, the order waits for ops to fix and resend.
   */
  ack?: { code: string; text: string; controlId: string };
}

export interface ResultsRequest {
  orderId: string;
  labAccountId: string;
  /** The lab the sample went to (its name), which performs the tests. */
  labName: string;
  /** The sample's id (a kit's, or the order's sample id); null when it has none. */
  sampleId: string | null;
  /** The biomarkers the order reports (panels expanded, each with its panel as parent). */
  markers: ResultMarker[];
  /** patient_details.gender, for sex-specific reference ranges. */
  sex: string | null;
  /** Sandbox: the interpretation the simulation asked for. */
  interpretation?: ResultInterpretation;
  /** Sandbox: report some biomarkers as missing. */
  hasMissingResults?: boolean;
  /** Sandbox: the result types to cycle through (default numeric, comment, range). */
  resultTypes?: ResultType[];
  collectedAt: Date;
}

export interface LabResults {
  status: 'final' | 'partial';
  interpretation: ResultInterpretation;
  results: BiomarkerResult[];
  missingResults: MissingBiomarkerResult[];
}

/** How the lab took a cancellation: a lab reached by message (HL7) answers ORC CA with an ACK. */
export interface LabCancellation {
  ack?: { code: string; text: string; controlId: string };
}

/** A laboratory: takes requisitions and their cancellations, reports results. Calls must be idempotent per order. */
export interface LabAdapter {
  submitRequisition(request: RequisitionRequest): Promise<Requisition>;
  /** The order was cancelled after its requisition went to the lab. */
  cancelRequisition(request: RequisitionRequest): Promise<LabCancellation>;
  results(request: ResultsRequest): Promise<LabResults>;
}

export const LAB_ADAPTER = Symbol('LAB_ADAPTER');
