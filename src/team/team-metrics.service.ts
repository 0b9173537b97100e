import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { ConnectionsService } from '../connections/connections.service';
import { OrdersRepository } from '../orders/orders.repository';
import { UsersRepository } from '../users/users.repository';

/** Weeks `number_of_connected_sources_by_week` covers, this one included. */
const METRIC_WEEKS = 12;

/** `GET /v2/user/metrics` (MetricsResult): the team's users, connections and orders in numbers, in the key's environment. */
@Injectable()
export class TeamMetricsService {
  constructor(
    private readonly users: UsersRepository,
    private readonly connections: ConnectionsService,
    private readonly orders: OrdersRepository,
  ) {}

  async metrics(team: TeamPrincipal) {
    const [users, connections, orders] = await Promise.all([
      this.users.countLive(team),
      this.connections.metricsOf(team, METRIC_WEEKS),
      this.orders.countOf(team),
    ]);
    return {
      team_id: team.teamId,
      number_of_users: users,
      number_of_connected_sources: connections.connected,
      number_of_errored_connected_sources: connections.errored,
      // Per week (its Monday, UTC): connections made in it (`value`) and, of today's, made by its end (`all`).
      number_of_connected_sources_by_week: connections.byWeek.map((week) => ({ date: week.week.toISOString(), value: week.value, all: week.all })),
      number_of_ordered_tests: orders,
    };
  }
}
