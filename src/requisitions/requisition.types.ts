/** Everything printed on a lab requisition. Plain data: the caller decrypts and looks it up. */
export interface RequisitionInput {
  orderId: string;
  /** The order's creation time: printed, and used as the PDF's creation/modification date. */
  createdAt: Date;
  lab: { name: string; slug: string };
  account: { id: string; accountName: string; defaultClinicalNotes: string | null };
  patient: RequisitionPatient;
  /** null: the order has no physician of its own and is signed by the network physician. */
  physician: { firstName: string; lastName: string; npi: string } | null;
  tests: RequisitionTest[];
  /** The order's clinical comment (up to 1,000 characters). */
  clinicalNotes: string | null;
  icdCodes: string[];
  sampleId: string | null;
  billing: RequisitionBilling;
  /** A STAT order (the order's `priority`). */
  priority: boolean;
  /** Answers to the lab's ask-at-order-entry questions. */
  aoeAnswers: RequisitionAoeAnswer[];
  /** The ordering physician's signature image (PNG or JPEG bytes); null: none given. */
  physicianSignature: Buffer | null;
  /** The consents the patient gave. */
  consents: RequisitionConsent[];
}

export interface RequisitionConsent {
  /** Junction's ConsentType, e.g. `hipaa-authorization`. */
  consentType: string;
  version: string | null;
  /** ISO 8601. */
  timeOfConsent: string | null;
}

export interface RequisitionAoeAnswer {
  markerName: string;
  questionId: number;
  /** The question as the lab asks it; null when not known (answers stored before questions were kept). */
  question: string | null;
  answer: string;
}

/** Who pays: the order's billing_type and, when it has one, the health insurance it names. */
export interface RequisitionBilling {
  type: string;
  insurance: RequisitionInsurance | null;
}

export interface RequisitionInsurance {
  payorCode: string | null;
  /** The member id on the card (Junction's insurance_id). */
  memberId: string | null;
  responsibleRelationship: string | null;
  /** The responsible person's name when it is not the patient. */
  responsibleName: string | null;
  diagnosisCodes: string[];
}

export interface RequisitionPatient {
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD. */
  dob: string;
  gender: string;
  phoneNumber: string;
  email: string;
  address: RequisitionAddress;
}

export interface RequisitionAddress {
  firstLine: string;
  secondLine?: string | null;
  city: string;
  state: string;
  zip: string;
  country: string;
}

export interface RequisitionTest {
  name: string;
  markers: { name: string; loinc: string | null }[];
}

/** Printed when the order has no physician: labflow's network physician signs it. */
export const NETWORK_PHYSICIAN = 'labflow network physician';
