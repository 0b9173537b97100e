import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One read or write of PHI, for the audit trail DESIGN.md asks for. */
@Entity({ name: 'phi_access_log' })
export class PhiAccessLogEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' }) id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('uuid', { name: 'api_key_id', nullable: true }) apiKeyId!: string | null;
  @Column('text') action!: 'read' | 'write';
  @Column('text') resource!: string;
  @Column('uuid', { name: 'resource_id' }) resourceId!: string;
  @CreateDateColumn({ name: 'at', type: 'timestamptz' }) at!: Date;
}
