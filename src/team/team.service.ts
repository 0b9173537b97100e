import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound } from '../common/errors';
import { OrdersRepository } from '../orders/orders.repository';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import { UsersService } from '../users/users.service';

/** Junction's ClientFacingTeam, without anything secret (keys, secrets) and what labflow has no part of. */
export interface ClientFacingTeamView {
  id: string;
  org_id: string;
  name: string;
  logo_url?: string;
  testkits_texts_enabled: boolean;
  lab_tests_patient_communication_enabled: boolean;
  lab_tests_patient_sms_communication_enabled: boolean;
  lab_tests_patient_email_communication_enabled: boolean;
  /**
   * How orders are signed: labflow orders with its network physician when an order names none,
   * and its sandbox labs report results through labflow.
   */
  delegated_flow: 'order_and_results_with_vital_physician_network';
}

/** The team as its own API key sees it (`/v2/team/...`); the management API changes it. */
@Injectable()
export class TeamService {
  constructor(
    private readonly settings: TeamSettingsRepository,
    private readonly users: UsersService,
    private readonly orders: OrdersRepository,
  ) {}

  /** `GET /v2/team/{team_id}`: the key's own team only; any other id is not found. */
  async get(team: TeamPrincipal, teamId: string): Promise<ClientFacingTeamView> {
    const profile = teamId === team.teamId ? await this.settings.profileOf(teamId) : null;
    if (!profile) throw notFound('Team');
    return {
      id: profile.id,
      org_id: profile.orgId,
      name: profile.name,
      ...(profile.logoUrl ? { logo_url: profile.logoUrl } : {}),
      testkits_texts_enabled: profile.smsCommunication,
      lab_tests_patient_communication_enabled: profile.emailCommunication || profile.smsCommunication,
      lab_tests_patient_sms_communication_enabled: profile.smsCommunication,
      lab_tests_patient_email_communication_enabled: profile.emailCommunication,
      delegated_flow: 'order_and_results_with_vital_physician_network',
    };
  }

  /**
   * `GET /v2/team/{team_id}/physicians` (ClientFacingPhysician): the physicians the team's orders
   * in this environment named. Orders that named none were signed by labflow's network physician,
   * who is not the team's and is not listed.
   */
  async physicians(team: TeamPrincipal, teamId: string): Promise<Array<{ first_name: string; last_name: string; npi: string }>> {
    if (teamId !== team.teamId) throw notFound('Team');
    return this.orders.physiciansOf(team);
  }

  searchUsers(team: TeamPrincipal, queryId: string) {
    return this.users.search(team, queryId);
  }
}
