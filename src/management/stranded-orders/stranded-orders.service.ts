import { Injectable } from '@nestjs/common';
import { type StrandedOrderRow, StrandedOrdersRepository } from '../../orders/stranded-orders.repository';
import { encodeCursor, type KeysetPosition } from '../../common/keyset-cursor';
import { PAGE_SIZE } from '../common/params';
import { TeamLookup } from '../teams/team-lookup';
import type { ListStrandedOrdersQuery, StrandedOrderView } from './stranded-orders.dto';

/** What the order reconciler found about a team's orders (src/orders/order-reconciler.ts). */
@Injectable()
export class StrandedOrdersService {
  constructor(
    private readonly stranded: StrandedOrdersRepository,
    private readonly teams: TeamLookup,
  ) {}

  async list(orgId: string, teamId: string, query: ListStrandedOrdersQuery) {
    await this.teams.requireInOrg(orgId, teamId);
    const page = await this.stranded.listForTeam(teamId, {
      includeResolved: query.include_resolved,
      after: query.next_cursor as KeysetPosition | undefined,
      limit: PAGE_SIZE,
    });
    return { stranded_orders: page.items.map(toView), next_cursor: page.next ? encodeCursor(page.next) : null };
  }
}

function toView(row: StrandedOrderRow): StrandedOrderView {
  return {
    order_id: row.orderId,
    team_id: row.teamId,
    environment: row.environment,
    kind: row.kind,
    state: row.state,
    detail: row.detail,
    heal_attempts: row.healAttempts,
    first_seen_at: row.firstSeenAt.toISOString(),
    last_seen_at: row.lastSeenAt.toISOString(),
    healed_at: row.healedAt?.toISOString() ?? null,
    resolved_at: row.resolvedAt?.toISOString() ?? null,
  };
}
