import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A health insurance record of a user. The member id and the person details of insured and
 * guarantor are PHI: they are stored only as AES-256-GCM ciphertext (see PhiCipher).
 */
@Entity({ name: 'insurances' })
export class InsuranceEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('text', { name: 'payor_code' }) payorCode!: string;
  @Column('text') relationship!: string;
  @Column('boolean', { name: 'is_primary' }) isPrimary!: boolean;
  @Column('text', { name: 'group_id', nullable: true }) groupId!: string | null;
  @Column('text', { name: 'member_id_enc' }) memberIdEnc!: string;
  @Column('text', { name: 'insured_enc' }) insuredEnc!: string;
  @Column('text', { name: 'guarantor_enc', nullable: true }) guarantorEnc!: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

/**
 * A payor (insurance company) known by its payor code: the platform's (`teamId` null, seeded) or
 * a team's own (POST /v3/payor), which only that team sees.
 */
@Entity({ name: 'payors' })
export class PayorEntity {
  @PrimaryColumn('text') code!: string;
  @Column('uuid', { name: 'team_id', nullable: true }) teamId!: string | null;
  @Column('text') name!: string;
  @Column('text', { array: true }) aliases!: string[];
  /** The clearinghouse that knows the payor by `providerPayorId` (team payors only). */
  @Column('text', { nullable: true }) provider!: string | null;
  @Column('text', { name: 'provider_payor_id', nullable: true }) providerPayorId!: string | null;
  @Column('jsonb') address!: {
    first_line: string;
    second_line: string | null;
    city: string;
    state: string;
    zip: string;
    country: string;
  };
}
