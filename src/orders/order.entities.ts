import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { PhiCipher } from '../common/crypto';
import type { ApiEnvironment } from '../tenancy/entities';
import type { OrderFlow, OrderLowLevelStatus, OrderTopLevelStatus } from '../../workflows/order/order-statuses';

export type OrderOrigin = 'initial' | 'redraw' | 'recreation';
export type OrderTransactionStatus = 'active' | 'completed' | 'cancelled';

/** A kit shipment: outbound to the customer, inbound (the return label) to the lab. */
export interface Shipment {
  id: string;
  outbound_courier: string;
  outbound_tracking_number: string;
  outbound_tracking_url: string;
  inbound_courier: string;
  inbound_tracking_number: string;
  inbound_tracking_url: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface Physician {
  first_name: string;
  last_name: string;
  npi: string;
  email?: string | null;
  licensed_states?: string[] | null;
}

/**
 * One lab order. `status` / `lowLevelStatus` change only through the order workflow's
 * transition activity; `*Enc` columns hold PhiCipher ciphertext.
 */
@Entity({ name: 'orders' })
export class OrderEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('uuid', { name: 'lab_test_id' }) labTestId!: string;
  @Column('integer', { name: 'lab_id' }) labId!: number;
  @Column('uuid', { name: 'lab_account_id' }) labAccountId!: string;
  @Column('text', { name: 'collection_method' }) collectionMethod!: string;
  @Column('text') flow!: OrderFlow;
  @Column('text') status!: OrderTopLevelStatus;
  @Column('text', { name: 'low_level_status' }) lowLevelStatus!: OrderLowLevelStatus;
  @Column('text') origin!: OrderOrigin;
  @Column('uuid', { name: 'order_transaction_id' }) orderTransactionId!: string;
  @Column('boolean') registrable!: boolean;
  @Column('text', { name: 'sample_id', nullable: true }) sampleId!: string | null;
  @Column('text', { name: 'patient_details_enc', nullable: true }) patientDetailsEnc!: string | null;
  @Column('text', { name: 'patient_address_enc', nullable: true }) patientAddressEnc!: string | null;
  @Column('text', { name: 'shipping_details_enc', nullable: true }) shippingDetailsEnc!: string | null;
  @Column('text', { name: 'pending_registration_enc', nullable: true }) pendingRegistrationEnc!: string | null;
  @Column('timestamptz', { name: 'registered_at', nullable: true }) registeredAt!: Date | null;
  @Column('jsonb', { nullable: true }) physician!: Physician | null;
  /** Clinical notes for the lab, encrypted (PhiCipher.encryptJson of the string); read with clinicalNotesOf. */
  @Column('text', { name: 'clinical_notes_enc', nullable: true }) clinicalNotesEnc!: string | null;
  /**
   * Clinical notes stored in plaintext by a release before they were sealed (the sealing migration
   * seals what it finds; a process of the older release may still write some during an upgrade):
   * never written now, read only where a row has no sealed notes, sealed by `labflow phi rekey`.
   */
  @Column('text', { name: 'clinical_notes', nullable: true }) clinicalNotes!: string | null;
  @Column('text', { name: 'health_insurance_id', nullable: true }) healthInsuranceId!: string | null;
  @Column('boolean') priority!: boolean;
  @Column('text', { name: 'billing_type', nullable: true }) billingType!: string | null;
  /** The diagnoses (ICD-10 codes) the order is for, encrypted (PhiCipher.encryptJson of the array); read with icdCodesOf. */
  @Column('text', { name: 'icd_codes_enc', nullable: true }) icdCodesEnc!: string | null;
  /** ICD codes stored in plaintext by a release before they were sealed: as clinicalNotes. */
  @Column('text', { name: 'icd_codes', array: true, nullable: true }) icdCodes!: string[] | null;
  @Column('jsonb', { nullable: true }) consents!: Array<Record<string, unknown>> | null;
  @Column('date', { name: 'activate_by', nullable: true }) activateBy!: string | null;
  @Column('text', { nullable: true }) passthrough!: string | null;
  @Column('text', { nullable: true }) interpretation!: string | null;
  @Column('boolean', { name: 'has_abn' }) hasAbn!: boolean;
  @Column('boolean', { name: 'has_missing_results', nullable: true }) hasMissingResults!: boolean | null;
  @Column('text', { name: 'requisition_form_url', nullable: true }) requisitionFormUrl!: string | null;
  @Column('jsonb', { nullable: true }) shipment!: Shipment | null;
  @Column('timestamptz', { name: 'workflow_started_at', nullable: true }) workflowStartedAt!: Date | null;
  /** The lab's latest note on the order (the order's `notes`), encrypted; null: none. */
  @Column('text', { name: 'notes_enc', nullable: true }) notesEnc!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** One entry of an order's event log; `id` is the integer event id the API shows. */
@Entity({ name: 'order_events' })
export class OrderEventEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id!: string;
  @Column('uuid', { name: 'order_id' }) orderId!: string;
  @Column('integer') seq!: number;
  @Column('text') status!: string;
  @Column('text', { name: 'status_detail', nullable: true }) statusDetail!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}

@Entity({ name: 'order_transactions' })
export class OrderTransactionEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') status!: OrderTransactionStatus;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** The lab's results of an order (PHI, encrypted). */
@Entity({ name: 'order_results' })
export class OrderResultEntity {
  @PrimaryColumn('uuid', { name: 'order_id' }) orderId!: string;
  @Column('text') status!: 'final' | 'partial';
  @Column('text') interpretation!: string;
  @Column('text', { name: 'results_enc' }) resultsEnc!: string;
  @Column('jsonb', { name: 'missing_results' }) missingResults!: Array<Record<string, unknown>>;
  @Column('timestamptz', { name: 'date_collected', nullable: true }) dateCollected!: Date | null;
  @Column('timestamptz', { name: 'date_received', nullable: true }) dateReceived!: Date | null;
  @Column('timestamptz', { name: 'date_reported' }) dateReported!: Date;
  /** The lab reports (HL7 message ids) applied as corrections after the order completed. */
  @Column('text', { array: true, default: () => "'{}'" }) corrections!: string[];
}

export const ORDER_ENTITIES = [OrderEntity, OrderEventEntity, OrderTransactionEntity, OrderResultEntity];

/** An order's ICD codes, opened: the sealed ones, else what an older release left in plaintext. */
export function icdCodesOf(order: Pick<OrderEntity, 'icdCodesEnc' | 'icdCodes'>, cipher: PhiCipher): string[] | null {
  return order.icdCodesEnc ? cipher.decryptJson<string[]>(order.icdCodesEnc) : order.icdCodes;
}

/** An order's clinical notes, opened: the sealed ones, else what an older release left in plaintext. */
export function clinicalNotesOf(order: Pick<OrderEntity, 'clinicalNotesEnc' | 'clinicalNotes'>, cipher: PhiCipher): string | null {
  return order.clinicalNotesEnc ? cipher.decryptJson<string>(order.clinicalNotesEnc) : order.clinicalNotes;
}
