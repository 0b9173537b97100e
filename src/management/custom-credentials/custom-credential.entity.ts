import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ApiEnvironment, Region } from '../../tenancy/entities';

/**
 * A team's own OAuth credentials for a provider, per environment and region. The client secret
 * and free-form details are encrypted (PhiCipher); the secret is never returned, only its
 * SHA-256 (hex), so a team can check which secret is configured.
 */
@Entity({ name: 'team_custom_credentials' })
export class CustomCredentialEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('text') region!: Region;
  @Column('text') provider!: string;
  @Column('text', { name: 'client_id', nullable: true }) clientId!: string | null;
  @Column('text', { name: 'client_secret_enc', nullable: true }) clientSecretEnc!: string | null;
  @Column('text', { name: 'client_secret_hash', nullable: true }) clientSecretHash!: string | null;
  @Column('text', { name: 'redirect_url_override', nullable: true }) redirectUrlOverride!: string | null;
  @Column('text', { name: 'details_enc', nullable: true }) detailsEnc!: string | null;
  /** `custom`: set by the team through the management API. */
  @Column('text') source!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
