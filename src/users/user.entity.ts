import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { ApiEnvironment } from '../tenancy/entities';

export interface FallbackTimeZone {
  id: string;
  source_slug: string;
  updated_at: string;
}

export interface FallbackBirthDate {
  value: string;
  source_slug: string;
  updated_at: string;
}

/**
 * An end user of a team, in one API environment. While `deletionRequestedAt` is set the user is
 * in its deletion grace period: invisible to reads and lists, and its client_user_id is free.
 */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('text', { name: 'client_user_id' }) clientUserId!: string;
  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' }) createdOn!: Date;
  @Column('jsonb', { name: 'fallback_time_zone', nullable: true }) fallbackTimeZone!: FallbackTimeZone | null;
  /** The fallback birth date (a FallbackBirthDate), sealed: PhiCipher.encryptJson. */
  @Column('text', { name: 'fallback_birth_date_enc', nullable: true }) fallbackBirthDateEnc!: string | null;
  /** One written in plaintext before birth dates were sealed; every write of the user clears it. */
  @Column('jsonb', { name: 'fallback_birth_date', nullable: true }) plaintextFallbackBirthDate!: FallbackBirthDate | null;
  @Column('date', { name: 'ingestion_start', nullable: true }) ingestionStart!: string | null;
  @Column('date', { name: 'ingestion_end', nullable: true }) ingestionEnd!: string | null;
  @Column('timestamptz', { name: 'deletion_requested_at', nullable: true }) deletionRequestedAt!: Date | null;
}
