import { Column, Entity, PrimaryColumn } from 'typeorm';

export const HL7_VERSIONS = ['2.3', '2.5.1'] as const;
export type Hl7Version = (typeof HL7_VERSIONS)[number];
export const HL7_ORDER_MESSAGE_TYPES = ['ORM^O01', 'OML^O21'] as const;
export type Hl7OrderMessageType = (typeof HL7_ORDER_MESSAGE_TYPES)[number];

/**
 * How labflow reaches the lab over MLLP with TLS: file paths (mounted secrets), never the PEM
 * itself, so no private key sits in the database. Absent: plain TCP (a VPN protects the link).
 */
export interface Hl7Tls {
  caFile?: string | null;
  certFile?: string | null;
  keyFile?: string | null;
  /** The name the lab's certificate is checked against (default: host). */
  serverName?: string | null;
}

/** The lab's own test code for one labflow marker (OBR-4 out, OBX-3 in). */
export interface Hl7TestCode {
  code: string;
  text: string;
}

/** A lab account that is an HL7 lab: where its interface listens and how messages are addressed. */
@Entity({ name: 'hl7_lab_interfaces' })
export class Hl7LabInterfaceEntity {
  @PrimaryColumn('uuid', { name: 'lab_account_id' }) labAccountId!: string;
  @Column('text') host!: string;
  @Column('integer') port!: number;
  @Column('jsonb', { nullable: true }) tls!: Hl7Tls | null;
  /** labflow's MSH-3/MSH-4 in what it sends (and MSH-5/6 the lab addresses it by). */
  @Column('text', { name: 'sending_application' }) sendingApplication!: string;
  @Column('text', { name: 'sending_facility' }) sendingFacility!: string;
  /** The lab's application and facility: MSH-5/6 out, MSH-3/4 of what the lab sends. */
  @Column('text', { name: 'receiving_application' }) receivingApplication!: string;
  @Column('text', { name: 'receiving_facility' }) receivingFacility!: string;
  @Column('text') version!: Hl7Version;
  @Column('text', { name: 'order_message_type' }) orderMessageType!: Hl7OrderMessageType;
  /** By labflow marker id. */
  @Column('jsonb', { name: 'test_codes' }) testCodes!: Record<string, Hl7TestCode>;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

export type Hl7Direction = 'in' | 'out';
/**
 * out: `sending` (not answered yet), `accepted` (AA/CA), `error` (AE: fix and resend), `rejected`
 * (AR). in: `received` (stored and matched, not yet handed to the order), `processed` (handed
 * over), `held` (matched no order: for review).
 */
export type Hl7MessageState = 'sending' | 'accepted' | 'error' | 'rejected' | 'received' | 'processed' | 'held';

@Entity({ name: 'hl7_messages' })
export class Hl7MessageEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') direction!: Hl7Direction;
  /** The other side's facility: MSH-4 of a message in, MSH-6 of one out. */
  @Column('text', { name: 'peer_facility' }) peerFacility!: string;
  @Column('text', { name: 'control_id' }) controlId!: string;
  @Column('text', { name: 'message_type' }) messageType!: string;
  @Column('uuid', { name: 'lab_account_id', nullable: true }) labAccountId!: string | null;
  @Column('uuid', { name: 'order_id', nullable: true }) orderId!: string | null;
  @Column('text', { name: 'filler_number', nullable: true }) fillerNumber!: string | null;
  @Column('text') state!: Hl7MessageState;
  @Column('text', { name: 'ack_code', nullable: true }) ackCode!: string | null;
  @Column('text', { name: 'ack_text', nullable: true }) ackText!: string | null;
  /** The raw message, sealed with the PHI key. */
  @Column('text', { name: 'body_enc' }) bodyEnc!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

export const HL7_ENTITIES = [Hl7LabInterfaceEntity, Hl7MessageEntity];
