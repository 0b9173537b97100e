import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { ApiError, badRequest, notFound } from '../common/errors';
import { logPhiAccess } from '../common/phi-access-log';
import type { ConnectedSources, ConnectedSourceView, ConnectionGrants, UserConnection } from '../users/connected-sources';
import { UsersRepository } from '../users/users.repository';
import { OutboxService } from '../events/outbox.service';
import { connectedSourceView, connectionCreatedEvent, providerWithStatusView } from './connection-views';
import { ConnectionWorkflows } from './connection-workflows';
import { type ConnectionRow, ConnectionsRepository, type NewConnection, type SealedGrant } from './connections.repository';
import { type ProviderCredentials, type ProviderGrant, SOURCE_ADAPTER, type SourceAdapter } from '../adapters/sources/source-adapter';

/** How often a refresh with a timeout looks whether the syncs it asked for went through. */
const REFRESH_POLL_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The API side of connections: connect a demo source, list, refresh and deregister a user's
 * connections. The data itself moves in each connection's workflow (connection-sync.service.ts).
 */
@Injectable()
export class ConnectionsService implements ConnectedSources {
  private readonly logger = new Logger('connections');

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly workflows: ConnectionWorkflows,
    private readonly users: UsersRepository,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    @Inject(SOURCE_ADAPTER) private readonly sources: SourceAdapter,
  ) {}

  /** `POST /v2/link/connect/demo`. Connecting a provider the user has already is a success that changes nothing. */
  async connectDemo(team: TeamPrincipal, userId: string, provider: string): Promise<{ success: true; detail: string }> {
    if (team.environment !== 'sandbox') throw badRequest('Demo connections are only available in the sandbox environment.');
    await this.requireUser(team, userId);
    if ((await this.connect(team, userId, provider)) === 'existing') return { success: true, detail: `${provider} is already connected for this user.` };
    return { success: true, detail: `Demo connection to ${provider} created: 30 days of history follow, then new data as it comes.` };
  }

  /**
   * Connects the user (of `team`, checked by the caller) to a provider the source adapter serves:
   * the demo route and the Link flow both end here. The row (with the provider's grant, sealed)
   * and the workflow start commit together: if Temporal refuses the start, nothing is saved.
   * `existing` when the pair was connected already: nothing changes, except that a new grant
   * replaces the old one and the connection syncs at once (a paused one resumes) — signing in
   * again is how a user mends a connection whose tokens stopped working. 404 when the user is erased meanwhile.
   */
  async connect(team: TeamPrincipal, userId: string, provider: string, grant?: ProviderGrant): Promise<'created' | 'existing'> {
    const sealed = grant ? this.cipher.encryptJson(grant.credentials) : null;
    const extra = { credentialsEnc: sealed, externalUserId: grant?.externalUserId ?? null };
    const outcome = await this.createIfAbsent(team, userId, provider, extra, async (row) => {
      await this.workflows.start({ connectionId: row.id, teamId: row.teamId, environment: row.environment, region: row.region, userId, provider });
    });
    if (outcome.created || !sealed || outcome.row.kind !== 'pull') return outcome.created ? 'created' : 'existing';
    await this.connections.storeCredentials(outcome.row.id, sealed, grant?.externalUserId ?? null);
    await this.connections.resume(outcome.row.id);
    await this.workflows.refresh(userId, provider);
    return 'existing';
  }

  /**
   * A provider whose data the user's phone or app pushes (`POST /v2/link/provider/manual/{provider}`:
   * HealthKit, Health Connect, Bluetooth meters, manual entry). labflow pulls nothing, so there is
   * no workflow: the row and its provider.connection.created commit together. Already connected
   * (either way): a success that changes nothing.
   */
  async connectPush(team: TeamPrincipal, userId: string, provider: string, externalUserId?: string): Promise<'created' | 'existing'> {
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    const outcome = await this.createIfAbsent(team, userId, provider, { kind: 'push', externalUserId: externalUserId ?? null }, async (row, manager) => {
      await this.outbox.record(manager, [connectionCreatedEvent(row, user.clientUserId, this.sources.resources(provider, team.environment))]);
    });
    return outcome.created ? 'created' : 'existing';
  }

  /**
   * Inserts the user's connection to the provider unless the pair is connected already, and runs
   * `whenNew` in the same transaction for a row it made (so what announces or starts it commits
   * with it). Answers the pair's row and whether this call made it; 404 when the user is erased meanwhile.
   */
  private createIfAbsent(
    team: TeamPrincipal,
    userId: string,
    provider: string,
    extra: Pick<NewConnection, 'kind' | 'externalUserId' | 'credentialsEnc'>,
    whenNew: (row: ConnectionRow, manager: EntityManager) => Promise<void>,
  ): Promise<{ row: ConnectionRow; created: boolean }> {
    const id = randomUUID();
    const connection = { id, seed: id, teamId: team.teamId, environment: team.environment, region: team.region, userId, provider, ...extra };
    return this.connections.transaction(async (manager) => {
      const row = await this.connections.insertIfAbsent(connection, manager);
      if (!row) throw notFound('User');
      if (row.id !== id) return { row, created: false };
      await whenNew(row, manager);
      return { row, created: true };
    });
  }

  /** The team's connections in numbers, for `GET /v2/user/metrics` (the last `weeks` weeks). */
  metricsOf(team: TeamPrincipal, weeks: number) {
    return this.connections.metricsOf(team.teamId, team.environment, weeks);
  }

  /** `GET /v2/user/providers/{user_id}`. */
  async providers(team: TeamPrincipal, userId: string) {
    await this.requireUser(team, userId);
    const rows = await this.connections.findForUsers([userId]);
    return { providers: rows.map((row) => providerWithStatusView(row, this.sources.resources(row.provider, row.environment))) };
  }

  /**
   * A provider's webhook: a record of the account it knows as `externalUserId` changed (`type`,
   * the provider's name for what happened, e.g. `sleep.updated`). Each connection of that account
   * syncs now rather than at its next timer; a deletion (`*.deleted`) is acknowledged and not
   * applied (labflow keeps what it stored: Junction's events have no deletion of a summary).
   * Answers how many connections were asked. An account no connection knows is nothing to do
   * (the provider is told so by a success, or it would retry). 503 when Temporal cannot be
   * reached: the provider retries later, so the change is not lost.
   */
  async providerWebhook(provider: string, externalUserId: string, type: string, traceId?: string): Promise<number> {
    const asked = type.endsWith('.deleted') ? 0 : await this.syncAccountNow(provider, externalUserId);
    this.logger.log(`${provider} webhook ${type} (trace ${traceId ?? '-'}): ${asked} connection(s) asked to sync`);
    return asked;
  }

  private async syncAccountNow(provider: string, externalUserId: string): Promise<number> {
    const rows = await this.connections.findPulledByExternalUser(provider, externalUserId);
    let asked = 0;
    for (const row of rows) {
      try {
        // A connection whose workflow is not running is the reconciler's; its new run syncs anyway.
        if (await this.workflows.refresh(row.userId, provider)) asked++;
      } catch (error) {
        this.logger.warn(`${provider} webhook: could not ask connection ${row.id} to sync: ${error instanceof Error ? error.message : String(error)}`);
        throw new ApiError(503, 'The connection could not be asked to sync now; send the webhook again later.');
      }
    }
    return asked;
  }

  /**
   * `POST /v2/user/refresh/{user_id}?timeout=`: every connection's workflow is asked to sync now;
   * the answer waits up to `timeout` seconds (default none) for those syncs. A source whose sync
   * went through since the request is refreshed, one in error or paused (or that could not be
   * asked) failed, the others still in progress.
   */
  async refresh(team: TeamPrincipal, userId: string, timeoutSeconds = 0) {
    await this.requireUser(team, userId);
    // A sync already under way when the request came ends after it but fetched too early: only a
    // sync whose window reaches past this moment (it started after the signal) refreshed the source.
    const requestedAt = new Date();
    const failed: string[] = [];
    const asked: ConnectionRow[] = [];
    for (const row of await this.connections.findForUsers([userId])) {
      if (row.kind === 'push') continue; // nothing to fetch: the user's phone or app sends its data
      // Paused (Link Migration): it fetches nothing until the user signs in or is imported again.
      if (row.status === 'paused') {
        failed.push(row.provider);
        continue;
      }
      if (await this.workflows.refresh(userId, row.provider)) asked.push(row);
      else failed.push(row.provider);
    }
    const deadline = Date.now() + timeoutSeconds * 1000;
    let outcomes = await this.refreshOutcomes(userId, asked, requestedAt);
    while (outcomes.in_progress.length > 0 && Date.now() < deadline) {
      await sleep(Math.min(REFRESH_POLL_MS, deadline - Date.now()));
      outcomes = await this.refreshOutcomes(userId, asked, requestedAt);
    }
    // Time is up: a connection still in error (as the last look read it) has failed; one in error
    // before the request had its chance to recover while the answer waited.
    const { inError } = outcomes;
    outcomes.failed.push(...outcomes.in_progress.filter((provider) => inError.has(provider)));
    outcomes.in_progress = outcomes.in_progress.filter((provider) => !inError.has(provider));
    return {
      success: true,
      user_id: userId,
      refreshed_sources: outcomes.refreshed,
      in_progress_sources: outcomes.in_progress,
      failed_sources: [...failed, ...outcomes.failed],
    };
  }

  /**
   * Where the syncs asked of `asked` (the rows as they were before) stand now: refreshed (a sync
   * went through whose window ends at or after `requestedAt`: a sync's window ends when it
   * started, in workflow time), failed (the connection is gone, or went into error since), in progress;
   * and which providers are in error now, from the same read.
   */
  private async refreshOutcomes(userId: string, asked: ConnectionRow[], requestedAt: Date) {
    const rows = await this.connections.findForUsers([userId]);
    const now = new Map(rows.map((row) => [row.id, row]));
    const inError = new Set(rows.filter((row) => row.status === 'error').map((row) => row.provider));
    const outcomes = { refreshed: [] as string[], in_progress: [] as string[], failed: [] as string[], inError };
    for (const before of asked) {
      const row = now.get(before.id);
      const synced = row?.lastSyncedAt && row.lastSyncedAt >= requestedAt;
      const newlyInError = row?.status === 'error' && before.status !== 'error';
      if (synced) outcomes.refreshed.push(before.provider);
      else if (!row || newlyInError) outcomes.failed.push(before.provider);
      else outcomes.in_progress.push(before.provider);
    }
    return outcomes;
  }

  /** `DELETE /v2/user/{user_id}/{provider}`: the connection goes at once; its workflow ends. */
  async deregister(team: TeamPrincipal, userId: string, provider: string): Promise<{ success: true }> {
    await this.requireUser(team, userId);
    // The row stays locked from before the signal until it is deleted: the reconciler restarts a
    // closed workflow only under the same lock, so its new run either hears this signal or is never
    // started (a run started between the signal and the delete would write the row back).
    const removed = await this.connections.transaction(async (manager) => {
      const row = await this.connections.lockByProvider(userId, provider, manager);
      if (!row) return null;
      const sealed = await this.connections.credentialsOf(row.id, manager);
      // The workflow hears it first, so a sync under way ends as deregistered rather than finding its row gone.
      await this.workflows.deregister(userId, provider);
      await this.connections.deleteByProvider(userId, provider, manager);
      return { row, sealed };
    });
    if (!removed) throw notFound(`Connection to ${provider}`);
    if (removed.sealed) await this.revokeAtProvider({ ...removed.row, sealed: removed.sealed });
    return { success: true };
  }

  /** Link Migration's bulk pause: the team's connections of these users to the provider stop fetching; answers the users paused. */
  pause(team: TeamPrincipal, provider: string, userIds: string[]): Promise<string[]> {
    return this.connections.pause(team.teamId, team.environment, provider, userIds);
  }

  /**
   * Link Migration's bulk export: a page of the grants the team's connections to the provider hold
   * (only `userIds`' when given), opened, by user id after `afterUserId`; `next` is the last user
   * id of a full page.
   */
  async exportGrants(team: TeamPrincipal, provider: string, userIds: string[] | null, afterUserId: string | null, limit: number) {
    // Whoever holds a grant reads the user's health data at the provider: each one handed out is
    // audited as a PHI read, committed with the read itself.
    const rows = await this.connections.transaction(async (manager) => {
      const page = await this.connections.exportPage(team.teamId, team.environment, provider, userIds, afterUserId, limit, manager);
      await logPhiAccess(
        manager,
        { teamId: team.teamId, apiKeyId: team.apiKeyId },
        'read',
        'provider_connection',
        page.map((row) => row.id),
      );
      return page;
    });
    const grants = rows.map((row) => ({
      userId: row.userId,
      externalUserId: row.externalUserId,
      credentials: this.cipher.decryptJson<ProviderCredentials>(row.sealed),
    }));
    return { grants, next: rows.length === limit ? rows[rows.length - 1].userId : null };
  }

  /** CONNECTED_SOURCES, for the user's erasure: the grants its connections hold, read before they go. */
  grantsOf(userId: string): Promise<ConnectionGrants> {
    return this.connections.sealedGrantsOf(userId);
  }

  /** CONNECTED_SOURCES, once the user is erased: each provider ends labflow's access too. */
  async revokeGrants(grants: ConnectionGrants): Promise<void> {
    for (const grant of grants as SealedGrant[]) await this.revokeAtProvider(grant);
  }

  /**
   * After a deregistration or the user's erasure has committed: the provider ends labflow's access
   * too. Best effort — labflow has forgotten the tokens already, so a provider that cannot be
   * reached now only means they stay valid there until they expire; the removal stands either way.
   */
  private async revokeAtProvider(grant: SealedGrant): Promise<void> {
    try {
      await this.sources.revoke?.({
        provider: grant.provider,
        environment: grant.environment,
        credentials: this.cipher.decryptJson<ProviderCredentials>(grant.sealed),
      });
    } catch (error) {
      this.logger.warn(
        `could not revoke labflow's access at ${grant.provider} for connection ${grant.id}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** An entry of the user object's `connected_sources` (UsersService asks through CONNECTED_SOURCES). */
  viewOf(connection: UserConnection): ConnectedSourceView {
    return connectedSourceView(connection);
  }

  private async requireUser(team: TeamPrincipal, userId: string): Promise<void> {
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
  }
}
