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
