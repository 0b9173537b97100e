import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ManagementPrincipal } from '../../auth/principal';
import { notFound, validationError } from '../../common/errors';
import { type TeamEnvironmentSettings, TeamEntity } from '../../tenancy/entities';
import { canActOnTeam, teamRestriction } from '../common/access';
import { PAGE_SIZE } from '../common/params';
import type { CreateTeamDto, ListTeamsQuery, PatchTeamDto } from './teams.dto';
import type { TeamSummaryView, ManagedTeamView } from './teams.dto';
import { TeamConflictError, TeamsRepository } from './teams.repository';

/** Teams of an org: list (keyset pages), create, read, change, delete, resolve. */
@Injectable()
export class TeamsService {
  constructor(private readonly teams: TeamsRepository) {}

  /** A team-admin key sees only its bound teams. */
  async list(key: ManagementPrincipal, query: ListTeamsQuery) {
    const page = await this.teams.listPage(
      key.orgId,
      {
        teamId: query.team_id,
        regions: query.region,
        search: query.search_query?.trim() || undefined,
        onlyTeamIds: teamRestriction(key) ?? undefined,
      },
      query.next_cursor,
      PAGE_SIZE,
    );
    return { teams: page.items.map(toSummary), next_cursor: page.nextCursor };
  }

  /**
   * A new team of the org, its id chosen by labflow. Team ids are unique across orgs, so an id
   * chosen through the management API could be refused only when some org holds it: that refusal
   * would tell an org key that another org's team exists, where a random id is created. So the API
   * takes no id (`id` in the body: 422, whatever its value); only the operator's CLI, which sees
   * every org, chooses one (`chosenId`).
   */
  async create(orgId: string, body: CreateTeamDto, chosenId?: string): Promise<ManagedTeamView> {
    if (body.id !== undefined) throw validationError(['body', 'id'], "labflow chooses team ids: leave id out (the new team's id is in the answer).", body.id);
    const team = Object.assign(new TeamEntity(), {
      id: chosenId ?? randomUUID(),
      orgId,
      name: body.name,
      region: body.region,
      integrationTeamId: body.integration_team_id ?? null,
      partialWebhooksEnabled: body.partial_webhooks_enabled,
      labReportHumanReviewEnabled: body.lab_report_human_review_enabled,
      linkMigrationEnabled: body.link_migration_enabled,
      logoUrl: body.logo_url ?? null,
      brandInformation: body.brand_information ?? null,
      labTestsPatientSmsCommunicationEnabled: body.lab_tests_patient_sms_communication_enabled,
      labTestsPatientEmailCommunicationEnabled: body.lab_tests_patient_email_communication_enabled,
      labTestsPatientRemindersEnabled: body.lab_tests_patient_reminders_enabled,
      sandboxSettings: {},
      productionSettings: {},
    });
    try {
      return toView(await this.teams.insert(team));
    } catch (error) {
      throw await this.conflictOr(error, orgId, team);
    }
  }

  async get(orgId: string, teamId: string): Promise<ManagedTeamView> {
    return toView(await this.require(orgId, teamId));
  }

  async patch(orgId: string, teamId: string, body: PatchTeamDto): Promise<ManagedTeamView> {
    const team = await this.require(orgId, teamId);
    if (body.name !== undefined) team.name = body.name;
    if (body.integration_team_id !== undefined) team.integrationTeamId = body.integration_team_id;
    if (body.partial_webhooks_enabled !== undefined) team.partialWebhooksEnabled = body.partial_webhooks_enabled;
    if (body.lab_report_human_review_enabled !== undefined) team.labReportHumanReviewEnabled = body.lab_report_human_review_enabled;
    if (body.link_migration_enabled !== undefined) team.linkMigrationEnabled = body.link_migration_enabled;
    if (body.logo_url !== undefined) team.logoUrl = body.logo_url;
    if (body.brand_information !== undefined) team.brandInformation = body.brand_information;
    if (body.lab_tests_patient_sms_communication_enabled !== undefined) {
      team.labTestsPatientSmsCommunicationEnabled = body.lab_tests_patient_sms_communication_enabled;
    }
    if (body.lab_tests_patient_email_communication_enabled !== undefined) {
      team.labTestsPatientEmailCommunicationEnabled = body.lab_tests_patient_email_communication_enabled;
    }
    if (body.lab_tests_patient_reminders_enabled !== undefined) team.labTestsPatientRemindersEnabled = body.lab_tests_patient_reminders_enabled;
    if (body.sandbox) team.sandboxSettings = mergeSettings(team.sandboxSettings ?? {}, body.sandbox);
    if (body.production) team.productionSettings = mergeSettings(team.productionSettings ?? {}, body.production);
    try {
      return toView(await this.teams.update(team));
    } catch (error) {
      throw await this.conflictOr(error, orgId, team);
    }
  }

  async delete(orgId: string, teamId: string): Promise<{ success: true }> {
    if (!(await this.teams.delete(orgId, teamId))) throw notFound('Team');
    return { success: true };
  }

  /** A team-admin key resolves only its bound teams; others answer as if they did not exist. */
  async resolve(key: ManagementPrincipal, integrationTeamId: string): Promise<ManagedTeamView> {
    const team = await this.teams.findByIntegrationTeamId(key.orgId, integrationTeamId);
    if (!team || !canActOnTeam(key, team.id)) throw notFound('Team');
    return toView(team);
  }

  private async require(orgId: string, teamId: string): Promise<TeamEntity> {
    const team = await this.teams.findInOrg(orgId, teamId);
    if (!team) throw notFound('Team');
    return team;
  }

  /**
   * 409 naming the team that already holds the integration_team_id (unique within the org), or
   * saying that the id is taken (only an id the operator's CLI chose can be: see create).
   */
  private async conflictOr(error: unknown, orgId: string, team: TeamEntity): Promise<unknown> {
    if (!(error instanceof TeamConflictError)) return error;
    if (error.on === 'id') return new HttpException({ message: 'A team with this id already exists.' }, HttpStatus.CONFLICT);
    const holder = team.integrationTeamId ? await this.teams.findByIntegrationTeamId(orgId, team.integrationTeamId) : null;
    return new HttpException({ message: 'Another team of this org already has this integration_team_id.', team_id: holder?.id ?? null }, HttpStatus.CONFLICT);
  }
}

function mergeSettings(current: TeamEnvironmentSettings, change: TeamEnvironmentSettings): TeamEnvironmentSettings {
  const merged: TeamEnvironmentSettings = { ...current };
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

export function toSummary(team: TeamEntity): TeamSummaryView {
  return {
    id: team.id,
    name: team.name,
    created_on: team.createdOn.toISOString(),
    region: team.region,
    integration_team_id: team.integrationTeamId,
  };
}

export function toView(team: TeamEntity): ManagedTeamView {
  return {
    ...toSummary(team),
    partial_webhooks_enabled: team.partialWebhooksEnabled,
    lab_report_human_review_enabled: team.labReportHumanReviewEnabled ?? false,
    link_migration_enabled: team.linkMigrationEnabled ?? false,
    logo_url: team.logoUrl ?? null,
    brand_information: team.brandInformation ?? null,
    lab_tests_patient_sms_communication_enabled: team.labTestsPatientSmsCommunicationEnabled ?? true,
    lab_tests_patient_email_communication_enabled: team.labTestsPatientEmailCommunicationEnabled ?? true,
    lab_tests_patient_reminders_enabled: team.labTestsPatientRemindersEnabled ?? true,
    sandbox: team.sandboxSettings ?? {},
    production: team.productionSettings ?? {},
  };
}
