import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ApiEnvironment } from '../../tenancy/entities';

/**
 * A team's webhook endpoint in one environment. The signing secret (and, during a rotation, the
 * previous one until `previousSecretExpiresAt`) and the custom headers are encrypted with
 * PhiCipher; only header names marked sensitive are kept in clear, to mask them when read.
 */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('text') url!: string;
  @Column('text') description!: string;
  @Column('integer', { name: 'rate_limit', nullable: true }) rateLimit!: number | null;
  @Column('boolean') disabled!: boolean;
  /** Event types delivered here; null for every type. */
  @Column('text', { name: 'filter_types', array: true, nullable: true }) filterTypes!: string[] | null;
  @Column('text', { name: 'secret_enc' }) secretEnc!: string;
  @Column('text', { name: 'previous_secret_enc', nullable: true }) previousSecretEnc!: string | null;
  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true }) previousSecretExpiresAt!: Date | null;
  /** Encrypted JSON object `{name: value}`; null when none. */
  @Column('text', { name: 'headers_enc', nullable: true }) headersEnc!: string | null;
  /** Lower-cased names of headers whose values are masked when read. */
  @Column('text', { name: 'sensitive_headers', array: true, default: () => "'{}'" }) sensitiveHeaders!: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}
