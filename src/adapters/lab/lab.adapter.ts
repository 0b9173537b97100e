import type { BiomarkerResult, MissingBiomarkerResult, ResultInterpretation, ResultMarker, ResultType } from '../../results';

export type { ResultInterpretation, ResultMarker, ResultType } from '../../results';

export interface RequisitionRequest {
  orderId: string;
  labSlug: string;
  accountNumber: string;
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

export interface Requisition {
  /** The lab's reference for the requisition. */
  requisitionId: string;
}

export interface ResultsRequest {
  orderId: string;
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

/** A laboratory: takes requisitions, reports results. Calls must be idempotent per order. */
export interface LabAdapter {
  submitRequisition(request: RequisitionRequest): Promise<Requisition>;
  results(request: ResultsRequest): Promise<LabResults>;
}

export const LAB_ADAPTER = Symbol('LAB_ADAPTER');
