import type { TeamPrincipal } from '../auth/principal';
import type { RequisitionAoeAnswer, RequisitionBilling, RequisitionConsent, RequisitionPatient, RequisitionTest } from './requisition.types';

/** Who reads a requisition form: a team (its key, or a signed link standing in for it with no key). */
export type RequisitionReader = Pick<TeamPrincipal, 'teamId' | 'environment'> & { apiKeyId: string | null };

/** An order as its requisition form prints it: plain data, PHI already decrypted. */
export interface RequisitionOrder {
  id: string;
  createdAt: Date;
  labId: number;
  labAccountId: string;
  sampleId: string | null;
  /** Whether the order's requisition was created (it has a requisition_form_url). */
  requisitionCreated: boolean;
  /** null: the kit is not registered yet (no patient details or address). */
  patient: RequisitionPatient | null;
  physician: { firstName: string; lastName: string; npi: string } | null;
  clinicalNotes: string | null;
  icdCodes: string[];
  billing: RequisitionBilling;
  priority: boolean;
  aoeAnswers: RequisitionAoeAnswer[];
  physicianSignature: Buffer | null;
  consents: RequisitionConsent[];
  /** The tests ordered with their markers, read when the form is rendered. */
  tests(): Promise<RequisitionTest[]>;
}

/**
 * The orders a requisition form is rendered from. Requisitions do not read orders themselves:
 * the orders module provides this (OrderRequisitions), so the dependency points from orders to
 * requisitions only.
 */
export abstract class RequisitionOrders {
  /** The reader's order; null when its team has no order with this id. */
  abstract find(reader: RequisitionReader, orderId: string): Promise<RequisitionOrder | null>;

  /** The team and environment an order belongs to (a signed link names the order only); null when there is no such order. */
  abstract ownerOf(orderId: string): Promise<Pick<TeamPrincipal, 'teamId' | 'environment'> | null>;

  /** Audits the reader's read of the order's PHI. */
  abstract logRead(reader: RequisitionReader, orderId: string): Promise<void>;
}
