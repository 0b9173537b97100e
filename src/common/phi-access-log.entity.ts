import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One read or write of PHI, for the audit trail DESIGN.md asks for. */
@Entity({ name: 'phi_access_log' })
export class PhiAccessLogEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' }) id!: string;
  /** Null only for an operator's read of what no team owns (a held lab message of a platform account). */
  @Column('uuid', { name: 'team_id', nullable: true }) teamId!: string | null;
  @Column('uuid', { name: 'api_key_id', nullable: true }) apiKeyId!: string | null;
  @Column('text') action!: 'read' | 'write';
  @Column('text') resource!: string;
  @Column('uuid', { name: 'resource_id' }) resourceId!: string;
  /** The operator behind an ops CLI access (`cli:<os user>@<host>`); null for API keys' accesses. */
  @Column('text', { nullable: true }) actor!: string | null;
  @CreateDateColumn({ name: 'at', type: 'timestamptz' }) at!: Date;
}
