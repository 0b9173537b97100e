import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { ApiEnvironment, Region, TeamBrandInformation, TeamEnvironmentSettings } from './entities';

/**
 * A team's settings as the main API and the workers read them (the management API changes them
 * through src/management/teams/). Reads only.
 */
@Injectable()
export class TeamSettingsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Whether the team asked for `partial_results` order webhooks (management API). */
  async partialWebhooksEnabled(teamId: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    const [row]: Array<{ enabled: boolean }> = await manager.query(`SELECT partial_webhooks_enabled AS enabled FROM teams WHERE id = $1`, [teamId]);
    return row?.enabled ?? false;
  }

  /** Whether the team enabled human review of lab report parsing jobs (management API). */
  async labReportHumanReviewEnabled(teamId: string, manager: EntityManager = this.db.manager): Promise<boolean> {
    const [row]: Array<{ enabled: boolean }> = await manager.query(`SELECT lab_report_human_review_enabled AS enabled FROM teams WHERE id = $1`, [teamId]);
    return row?.enabled ?? false;
  }

  /** Whether an org admin enabled Link Migration (bulk import, export, pause, historical pull) for the team (management API). */
  async linkMigrationEnabled(teamId: string): Promise<boolean> {
    const [row]: Array<{ enabled: boolean }> = await this.db.query(`SELECT link_migration_enabled AS enabled FROM teams WHERE id = $1`, [teamId]);
    return row?.enabled ?? false;
  }

  /**
   * Whether the team sends patients reminders, and on which channels (Junction's e-mail and SMS
   * communication flags; management API). An unknown team sends nothing.
   */
  async patientReminders(teamId: string): Promise<PatientReminderSettings> {
    const [row]: Array<{ reminders: boolean; email: boolean; sms: boolean }> = await this.db.query(
      `SELECT lab_tests_patient_reminders_enabled AS reminders, lab_tests_patient_email_communication_enabled AS email,
              lab_tests_patient_sms_communication_enabled AS sms
         FROM teams WHERE id = $1`,
      [teamId],
    );
    return row ? { enabled: row.reminders, email: row.email, sms: row.sms } : { enabled: false, email: false, sms: false };
  }

  /** What the main API shows of a team (`GET /v2/team/{team_id}`), or null for an unknown team. */
  async profileOf(teamId: string): Promise<TeamProfile | null> {
    const [row]: Array<{ id: string; org_id: string; name: string; logo_url: string | null; email: boolean; sms: boolean }> = await this.db.query(
      `SELECT id, org_id, name, logo_url, lab_tests_patient_email_communication_enabled AS email, lab_tests_patient_sms_communication_enabled AS sms
         FROM teams WHERE id = $1`,
      [teamId],
    );
    return row ? { id: row.id, orgId: row.org_id, name: row.name, logoUrl: row.logo_url, emailCommunication: row.email, smsCommunication: row.sms } : null;
  }

  /** The Link widget's settings as the management API sets them: brand, and the environment's settings. */
  async linkConfigOf(teamId: string, environment: ApiEnvironment): Promise<TeamLinkConfig | null> {
    const [row]: Array<{ name: string; logo_url: string | null; brand_information: TeamBrandInformation | null; settings: TeamEnvironmentSettings | null }> =
      await this.db.query(
        `SELECT name, logo_url, brand_information, CASE WHEN $2 = 'production' THEN production_settings ELSE sandbox_settings END AS settings
           FROM teams WHERE id = $1`,
        [teamId, environment],
      );
    return row ? { name: row.name, logoUrl: row.logo_url, brandInformation: row.brand_information, settings: row.settings ?? {} } : null;
  }

  /** How the team presents itself to patients (the patient portal), or null for an unknown team. */
  async brandOf(teamId: string): Promise<TeamBrand | null> {
    const [row]: Array<{ name: string; region: Region; logo_url: string | null; brand_information: TeamBrandInformation | null }> = await this.db.query(
      `SELECT name, region, logo_url, brand_information FROM teams WHERE id = $1`,
      [teamId],
    );
    return row ? { name: row.name, region: row.region, logoUrl: row.logo_url, brandInformation: row.brand_information } : null;
  }
}

export interface TeamProfile {
  id: string;
  orgId: string;
  name: string;
  logoUrl: string | null;
  emailCommunication: boolean;
  smsCommunication: boolean;
}

export interface TeamBrand {
  name: string;
  region: Region;
  logoUrl: string | null;
  brandInformation: TeamBrandInformation | null;
}

export interface PatientReminderSettings {
  enabled: boolean;
  email: boolean;
  sms: boolean;
}

export interface TeamLinkConfig {
  name: string;
  logoUrl: string | null;
  brandInformation: TeamBrandInformation | null;
  settings: TeamEnvironmentSettings;
}
