import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TeamPrincipal } from '../auth/principal';
import { badRequest, notFound } from '../common/errors';
import type { ConnectedSources, ConnectedSourceView, UserConnection } from '../users/connected-sources';
import { UsersRepository } from '../users/users.repository';
import { connectedSourceView, providerWithStatusView } from './connection-views';
import { ConnectionWorkflows } from './connection-workflows';
import { ConnectionsRepository } from './connections.repository';
import { SOURCE_ADAPTER, type SourceAdapter } from './source-adapter';

/**
 * The API side of connections: connect a demo source, list, refresh and deregister a user's
 * connections. The data itself moves in each connection's workflow (connection-sync.service.ts).
 */
@Injectable()
export class ConnectionsService implements ConnectedSources {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly workflows: ConnectionWorkflows,
    private readonly users: UsersRepository,
    @Inject(SOURCE_ADAPTER) private readonly sources: SourceAdapter,
  ) {}

  /**
   * `POST /v2/link/connect/demo`. The row and the workflow start commit together: if Temporal
   * refuses the start, nothing is saved. Connecting a provider the user has already is a success
   * that changes nothing.
   */
  async connectDemo(team: TeamPrincipal, userId: string, provider: string): Promise<{ success: true; detail: string }> {
    if (team.environment !== 'sandbox') throw badRequest('Demo connections are only available in the sandbox environment.');
    await this.requireUser(team, userId);
    const id = randomUUID();
    const identity = { connectionId: id, teamId: team.teamId, environment: team.environment, region: team.region, userId, provider };
    return this.connections.transaction(async (manager) => {
      const row = await this.connections.insertIfAbsent({ ...identity, id, seed: id }, manager);
      if (!row) throw notFound('User');
      if (row.id !== id) return { success: true as const, detail: `${provider} is already connected for this user.` };
      await this.workflows.start(identity);
      return { success: true as const, detail: `Demo connection to ${provider} created: 30 days of history follow, then new data as it comes.` };
    });
  }

  /** `GET /v2/user/providers/{user_id}`. */
  async providers(team: TeamPrincipal, userId: string) {
    await this.requireUser(team, userId);
    const rows = await this.connections.findForUsers([userId]);
    return { providers: rows.map((row) => providerWithStatusView(row, this.sources.resources(row.provider))) };
  }

  /** `POST /v2/user/refresh/{user_id}`: every connection syncs now (in the background). */
  async refresh(team: TeamPrincipal, userId: string) {
    await this.requireUser(team, userId);
    const refreshed: string[] = [];
    const failed: string[] = [];
    for (const row of await this.connections.findForUsers([userId])) {
      (await this.workflows.refresh(userId, row.provider) ? refreshed : failed).push(row.provider);
    }
    return { success: true, user_id: userId, refreshed_sources: refreshed, in_progress_sources: [], failed_sources: failed };
  }

  /** `DELETE /v2/user/{user_id}/{provider}`: the connection goes at once; its workflow ends. */
  async deregister(team: TeamPrincipal, userId: string, provider: string): Promise<{ success: true }> {
    await this.requireUser(team, userId);
    // The row stays locked from before the signal until it is deleted: the reconciler restarts a
    // closed workflow only under the same lock, so its new run either hears this signal or is never
    // started (a run started between the signal and the delete would write the row back).
    const removed = await this.connections.transaction(async (manager) => {
      if (!(await this.connections.lockByProvider(userId, provider, manager))) return false;
      // The workflow hears it first, so a sync under way ends as deregistered rather than finding its row gone.
      await this.workflows.deregister(userId, provider);
      await this.connections.deleteByProvider(userId, provider, manager);
      return true;
    });
    if (!removed) throw notFound(`Connection to ${provider}`);
    return { success: true };
  }

  /** An entry of the user object's `connected_sources` (UsersService asks through CONNECTED_SOURCES). */
  viewOf(connection: UserConnection): ConnectedSourceView {
    return connectedSourceView(connection);
  }

  private async requireUser(team: TeamPrincipal, userId: string): Promise<void> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
  }
}
