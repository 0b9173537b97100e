import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn, type ValueTransformer } from 'typeorm';
import type { ApiEnvironment } from '../tenancy/entities';

export const COLLECTION_METHODS = ['testkit', 'walk_in_test', 'at_home_phlebotomy', 'on_site_collection'] as const;
export type CollectionMethod = (typeof COLLECTION_METHODS)[number];

export const SAMPLE_TYPES = ['dried_blood_spot', 'arm_collector', 'serum', 'saliva', 'urine'] as const;
export type SampleType = (typeof SAMPLE_TYPES)[number];

export const LAB_TEST_STATUSES = ['active', 'pending_approval', 'inactive'] as const;
export type LabTestStatus = (typeof LAB_TEST_STATUSES)[number];

export const MARKER_TYPES = ['biomarker', 'panel'] as const;
export type MarkerType = (typeof MARKER_TYPES)[number];

export const LAB_ACCOUNT_STATUSES = ['active', 'pending', 'suspended', 'ready_to_launch'] as const;
export type LabAccountStatus = (typeof LAB_ACCOUNT_STATUSES)[number];

export const DELEGATED_FLOWS = ['order_delegated', 'result_delegated', 'fully_delegated', 'not_delegated'] as const;
export type DelegatedFlow = (typeof DELEGATED_FLOWS)[number];

export const BILLING_TYPES = ['client_bill', 'commercial_insurance', 'patient_bill_passthrough', 'patient_bill'] as const;
export type BillingType = (typeof BILLING_TYPES)[number];

/** Postgres numeric comes back as a string; the catalog works in numbers. */
const numeric: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** A laboratory (Junction's ClientFacingLab, plus state and delegated-account support). */
@Entity({ name: 'labs' })
export class LabEntity {
  @PrimaryColumn('integer') id!: number;
  @Column('text') slug!: string;
  @Column('text') name!: string;
  @Column('text', { name: 'first_line_address' }) firstLineAddress!: string;
  @Column('text') city!: string;
  @Column('text') state!: string;
  @Column('text') zipcode!: string;
  @Column('text', { name: 'collection_methods', array: true }) collectionMethods!: CollectionMethod[];
  @Column('text', { name: 'sample_types', array: true }) sampleTypes!: SampleType[];
  /** The lab's CLIA certificate number, printed on its reports (`clia_#`); null when unknown. */
  @Column('text', { name: 'clia_number', nullable: true }) cliaNumber!: string | null;
  /** One of the labs where a team may hold its own (delegated) account. */
  @Column('boolean', { name: 'supports_delegated_accounts' }) supportsDelegatedAccounts!: boolean;
}

@Entity({ name: 'loinc_codes' })
export class LoincEntity {
  @PrimaryColumn('integer') id!: number;
  @Column('text') code!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) unit!: string | null;
  /** The name labs print (`Hemoglobin A1c`), other printed names, and the specimen: what lab-report parsing matches against. */
  @Column('text', { name: 'display_name', nullable: true }) displayName!: string | null;
  @Column('text', { array: true }) aliases!: string[];
  @Column('text', { nullable: true }) specimen!: string | null;
}

export interface SexRanges {
  male?: { min?: number; max?: number };
  female?: { min?: number; max?: number };
}

/**
 * A marker one lab runs: a single biomarker, or a panel of biomarkers of the same lab. Reference
 * and critical limits are in `unit`; null means "no limit on that side".
 */
@Entity({ name: 'lab_markers' })
export class MarkerEntity {
  @PrimaryColumn('integer') id!: number;
  @Column('integer', { name: 'lab_id' }) labId!: number;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { name: 'provider_id' }) providerId!: string;
  @Column('text') type!: MarkerType;
  @Column('text', { nullable: true }) unit!: string | null;
  @Column('numeric', { transformer: numeric }) price!: number;
  @Column('boolean', { name: 'a_la_carte_enabled' }) aLaCarteEnabled!: boolean;
  @Column('integer', { name: 'common_tat_days', nullable: true }) commonTatDays!: number | null;
  @Column('integer', { name: 'worst_case_tat_days', nullable: true }) worstCaseTatDays!: number | null;
  @Column('integer', { name: 'loinc_id', nullable: true }) loincId!: number | null;
  @Column('numeric', { name: 'reference_min', nullable: true, transformer: numeric }) referenceMin!: number | null;
  @Column('numeric', { name: 'reference_max', nullable: true, transformer: numeric }) referenceMax!: number | null;
  @Column('numeric', { name: 'critical_low', nullable: true, transformer: numeric }) criticalLow!: number | null;
  @Column('numeric', { name: 'critical_high', nullable: true, transformer: numeric }) criticalHigh!: number | null;
  @Column('jsonb', { name: 'reference_ranges_by_sex', nullable: true }) referenceRangesBySex!: SexRanges | null;
  /** What the lab asks when the marker is ordered (Junction's AoE questions); null: nothing. */
  @Column('jsonb', { name: 'aoe_questions', nullable: true }) aoeQuestions!: AoeQuestion[] | null;
}

/** An ask-at-order-entry question (the SDK's Question, snake_case). */
export interface AoeQuestion {
  id: number;
  required: boolean;
  code: string;
  value: string;
  type: 'choice' | 'text' | 'numeric' | 'multi_choice';
  sequence: number;
  answers: Array<{ id: number; code: string; value: string }>;
  constraint?: string;
  default?: string;
}

@Entity({ name: 'lab_panel_members' })
export class PanelMemberEntity {
  @PrimaryColumn('integer', { name: 'panel_id' }) panelId!: number;
  @PrimaryColumn('integer', { name: 'member_id' }) memberId!: number;
  @Column('integer') position!: number;
}

/** A lab test: global when teamId is null, otherwise owned by one team in one environment. */
@Entity({ name: 'lab_tests' })
export class LabTestEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id', nullable: true }) teamId!: string | null;
  @Column('text', { nullable: true }) environment!: ApiEnvironment | null;
  @Column('integer', { name: 'lab_id' }) labId!: number;
  @Column('text') slug!: string;
  @Column('text') name!: string;
  @Column('text') description!: string;
  @Column('text', { name: 'sample_type' }) sampleType!: SampleType;
  @Column('text') method!: CollectionMethod;
  @Column('numeric', { transformer: numeric }) price!: number;
  @Column('boolean', { name: 'is_active' }) isActive!: boolean;
  @Column('text') status!: LabTestStatus;
  @Column('boolean') fasting!: boolean;
  @Column('boolean', { name: 'is_delegated' }) isDelegated!: boolean;
  @Column('boolean', { name: 'auto_generated' }) autoGenerated!: boolean;
  @Column('boolean', { name: 'has_collection_instructions' }) hasCollectionInstructions!: boolean;
  @Column('integer', { name: 'common_tat_days', nullable: true }) commonTatDays!: number | null;
  @Column('integer', { name: 'worst_case_tat_days', nullable: true }) worstCaseTatDays!: number | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}

@Entity({ name: 'lab_test_markers' })
export class LabTestMarkerEntity {
  @PrimaryColumn('uuid', { name: 'lab_test_id' }) labTestId!: string;
  @PrimaryColumn('integer', { name: 'marker_id' }) markerId!: number;
  @Column('integer') position!: number;
}

/**
 * An account at a lab that orders are billed to. teamId null: a platform account every team may
 * use (only the teams in teamIdAllowlist when that is not empty). environment null: both.
 */
@Entity({ name: 'lab_accounts' })
export class LabAccountEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'team_id', nullable: true }) teamId!: string | null;
  @Column('text', { nullable: true }) environment!: ApiEnvironment | null;
  @Column('integer', { name: 'lab_id' }) labId!: number;
  @Column('text') status!: LabAccountStatus;
  @Column('text', { name: 'delegated_flow' }) delegatedFlow!: DelegatedFlow;
  @Column('text', { name: 'provider_account_id' }) providerAccountId!: string;
  @Column('text', { name: 'account_name' }) accountName!: string;
  @Column('text', { name: 'default_clinical_notes', nullable: true }) defaultClinicalNotes!: string | null;
  @Column('text', { name: 'allowed_billing', array: true }) allowedBilling!: BillingType[];
  @Column('uuid', { name: 'team_id_allowlist', array: true }) teamIdAllowlist!: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

export const LAB_CATALOG_ENTITIES = [LabEntity, LoincEntity, MarkerEntity, PanelMemberEntity, LabTestEntity, LabTestMarkerEntity, LabAccountEntity];
