import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/** The commercial plan of an org; the management API requires `scale`. */
export const ORG_PLANS = ['launch', 'grow', 'scale'] as const;
export type OrgPlan = (typeof ORG_PLANS)[number];

export const REGIONS = ['us', 'eu'] as const;
export type Region = (typeof REGIONS)[number];

export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type ApiEnvironment = (typeof ENVIRONMENTS)[number];

@Entity({ name: 'orgs' })
export class OrgEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('text') plan!: OrgPlan;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  /** When the org's contract ends; null while open-ended. */
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt?: Date | null;
}

/** Per-environment team settings (PATCH team `sandbox` / `production`): flat scalar values. */
export type TeamEnvironmentSettings = Record<string, string | number | boolean | null>;

/** How the team presents itself to patients (company_name required). */
export interface TeamBrandInformation {
  company_name: string;
  [field: string]: string | null;
}

@Entity({ name: 'teams' })
export class TeamEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'org_id' }) orgId!: string;
  @ManyToOne(() => OrgEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id' })
  org?: OrgEntity;
  @Column('text') name!: string;
  @Column('text') region!: Region;
  @Column('text', { name: 'integration_team_id', nullable: true }) integrationTeamId!: string | null;
  @Column('boolean', { name: 'partial_webhooks_enabled', default: false }) partialWebhooksEnabled!: boolean;
  /** Lab report parsing jobs may ask for human review (`needs_human_review`). */
  @Column('boolean', { name: 'lab_report_human_review_enabled', default: false }) labReportHumanReviewEnabled?: boolean;
  @Column('boolean', { name: 'link_migration_enabled', default: false }) linkMigrationEnabled?: boolean;
  @CreateDateColumn({ name: 'created_on', type: 'timestamptz' }) createdOn!: Date;
  @Column('text', { name: 'logo_url', nullable: true }) logoUrl?: string | null;
  @Column('jsonb', { name: 'brand_information', nullable: true }) brandInformation?: TeamBrandInformation | null;
  @Column('boolean', { name: 'lab_tests_patient_sms_communication_enabled', default: true })
  labTestsPatientSmsCommunicationEnabled?: boolean;
  @Column('boolean', { name: 'lab_tests_patient_email_communication_enabled', default: true })
  labTestsPatientEmailCommunicationEnabled?: boolean;
  /** labflow extension: reminders to patients (book an appointment, before it, return the kit). */
  @Column('boolean', { name: 'lab_tests_patient_reminders_enabled', default: true })
  labTestsPatientRemindersEnabled?: boolean;
  @Column('jsonb', { name: 'sandbox_settings', default: () => "'{}'::jsonb" }) sandboxSettings?: TeamEnvironmentSettings;
  @Column('jsonb', { name: 'production_settings', default: () => "'{}'::jsonb" }) productionSettings?: TeamEnvironmentSettings;
}

/** A team API key (main API). Only the SHA-256 of the value is stored. */
@Entity({ name: 'team_api_keys' })
export class TeamApiKeyEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id' }) teamId!: string;
  @Column('text') environment!: ApiEnvironment;
  @Column('text') region!: Region;
  @Column('text') label!: string;
  @Column('bytea', { name: 'key_hash' }) keyHash!: Buffer;
  /** The readable start of the key (e.g. `sk_us_3fa9`), to recognise it in lists. */
  @Column('text', { name: 'key_prefix' }) keyPrefix!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
}

export const MANAGEMENT_KEY_ROLES = ['org_admin', 'team_admin'] as const;
export type ManagementKeyRole = (typeof MANAGEMENT_KEY_ROLES)[number];

/** A management key (management API): org-wide (`org_admin`) or bound to teams (`team_admin`). */
@Entity({ name: 'management_keys' })
export class ManagementKeyEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'org_id' }) orgId!: string;
  @Column('text') label!: string;
  @Column('text') role!: ManagementKeyRole;
  /** Team ids a `team_admin` key may act on; empty for `org_admin`. */
  @Column('uuid', { name: 'team_ids', array: true, default: () => "'{}'" }) teamIds!: string[];
  @Column('bytea', { name: 'key_hash' }) keyHash!: Buffer;
  @Column('text', { name: 'key_prefix' }) keyPrefix!: string;
  @Column('uuid', { name: 'creator_key_id', nullable: true }) creatorKeyId!: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
}
