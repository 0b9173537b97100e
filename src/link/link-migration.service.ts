import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { LinkBulkOpIdentity, LinkBulkOpPace, LinkBulkOpType } from '../../workflows/contract';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, forbidden } from '../common/errors';
import { fingerprint, keyUsedForAnotherRequest, requireValidKey } from '../common/idempotency';
import { encodeCursor, type KeysetPosition } from '../common/keyset-cursor';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { toMs } from '../config/environment';
import { BulkOpsRepository, type NewBulkOpItem } from '../connections/bulk-ops.repository';
import { ConnectionsService } from '../connections/connections.service';
import { PROVIDERS } from '../health-data/providers';
import { TeamSettingsRepository } from '../tenancy/team-settings.repository';
import type { ProviderCredentials } from '../adapters/sources/source-adapter';
import { LinkBulkOpWorkflows } from './link-bulk-op-workflows';
import { LinkService } from './link.service';
import { bulkOpView, connectionRecipeView } from './link-migration-views';
import type { BulkExportDto, BulkHistoricalPullDto, BulkImportDto, BulkPauseDto, ConnectionRecipe } from './link-migration.dto';

/** Users an import step connects (each a transaction and a workflow start). */
const IMPORT_BATCH = 50;
/** Connections one export page holds. */
const EXPORT_PAGE = 100;

/** An operation's answer: whether it ended (200) or goes on in the background (202), and the users by outcome so far. */
export interface BulkOpAnswer {
  ended: boolean;
  done: string[];
  failed: string[];
}

/**
 * Junction's Link Migration: moving OAuth connections into labflow (bulk import: the tokens another
 * system holds become connections, as if each user had signed in through Link) and out of it
 * (bulk pause, so labflow stops using and refreshing the tokens; bulk export, which hands them
 * out), and pulling history again (bulk historical pull). Off unless an org admin enabled it for
 * the team (`link_migration_enabled`, management API). Import and historical pull are background
 * operations, each a `link-bulk-op:<id>` workflow (src/connections/connection-bulk-ops.service.ts
 * does the work), listed by `GET /v2/link/bulk_op`.
 */
@Injectable()
export class LinkMigrationService {
  constructor(
    private readonly ops: BulkOpsRepository,
    private readonly workflows: LinkBulkOpWorkflows,
    private readonly connections: ConnectionsService,
    private readonly teamSettings: TeamSettingsRepository,
    private readonly cipher: PhiCipher,
    private readonly link: LinkService,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'linkMigration' | 'connections'>,
  ) {}

  async bulkImport(team: TeamPrincipal, teamId: string | undefined, body: BulkImportDto, idempotencyKey?: string): Promise<BulkOpAnswer> {
    await this.requireMigration(team, teamId, body.provider);
    const { heartbeatTimeout } = this.config.linkMigration;
    const items = body.connections.map((recipe) => ({
      userId: recipe.user_id,
      credentialsEnc: this.cipher.encryptJson(credentialsOf(recipe)),
      providerUserId: recipe.provider_id,
    }));
    return this.run(
      team,
      'link_bulk_import',
      body.provider,
      items,
      { batchSize: IMPORT_BATCH, stepTimeout: '5 minutes', heartbeatTimeout },
      { body, idempotencyKey },
    );
  }

  async bulkHistoricalPull(team: TeamPrincipal, teamId: string | undefined, body: BulkHistoricalPullDto, idempotencyKey?: string): Promise<BulkOpAnswer> {
    await this.requireMigration(team, teamId, body.provider);
    const { pullBatch, pullInterval, heartbeatTimeout } = this.config.linkMigration;
    // A step pulls each of its connections' whole history, each as long as a connection's sync step may take.
    const stepTimeout = pullBatch * toMs(String(this.config.connections.syncTimeout));
    const items = body.user_ids.map((userId) => ({ userId, credentialsEnc: null, providerUserId: null }));
    return this.run(
      team,
      'link_bulk_historical_trigger',
      body.provider,
      items,
      { batchSize: pullBatch, batchInterval: pullInterval, stepTimeout, heartbeatTimeout },
      { body, idempotencyKey },
    );
  }

  /** Pauses at once (no background operation): the users' connections that exist are paused, the others reported. */
  async bulkPause(team: TeamPrincipal, teamId: string | undefined, body: BulkPauseDto) {
    await this.requireMigration(team, teamId, body.provider);
    const paused = new Set(await this.connections.pause(team, body.provider, body.user_ids));
    return { user_ids_paused: body.user_ids.filter((id) => paused.has(id)), user_ids_not_found: body.user_ids.filter((id) => !paused.has(id)) };
  }

  async bulkExport(team: TeamPrincipal, teamId: string | undefined, body: BulkExportDto) {
    await this.requireMigration(team, teamId, body.provider);
    const after = body.next_token ? decodeExportToken(body.next_token) : null;
    const page = await this.connections.exportGrants(team, body.provider, body.user_ids ?? null, after, EXPORT_PAGE);
    return {
      data: page.grants.map(connectionRecipeView),
      next_token: page.next ? Buffer.from(page.next, 'utf8').toString('base64url') : null,
    };
  }

  async list(team: TeamPrincipal, teamId: string | undefined, after: KeysetPosition | undefined, pageSize: number) {
    await this.requireEnabled(team, teamId);
    const rows = await this.ops.page(team.teamId, team.environment, after ?? null, pageSize + 1);
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return { data: page.map(bulkOpView), next_cursor: rows.length > pageSize ? encodeCursor({ at: last.keysetAt, id: last.id }) : null };
  }

  /**
   * Writes the operation with its users and starts its workflow, in one transaction: a start
   * Temporal refuses leaves nothing written; a transaction that fails after the start leaves the
   * workflow to record the operation aborted (BulkOpsRepository.openOrAbort). With an idempotency
   * key, a repeat of the request answers from the operation the first one made (as it stands
   * now, waited for again if asked) and starts nothing; the same key with another request is a 400.
   */
  private async run(
    team: TeamPrincipal,
    type: LinkBulkOpType,
    provider: string,
    items: NewBulkOpItem[],
    pace: LinkBulkOpPace,
    request: BulkRequest,
  ): Promise<BulkOpAnswer> {
    const op: LinkBulkOpIdentity = { opId: randomUUID(), teamId: team.teamId, environment: team.environment, region: team.region, type, provider };
    const { wait_for_completion: wait = false, ...asked } = request.body;
    const key = request.idempotencyKey;
    if (key !== undefined) requireValidKey(key, KEY_HEADER);
    const opId = await this.ops.transaction(async (manager) => {
      if (key !== undefined) {
        // Hashed only with a key: a request names up to 1,000 users and their tokens.
        const requestHash = fingerprint({ type, asked });
        const claim = await this.ops.claimKey(manager, team, key, requestHash, op.opId);
        if (!claim.claimed) {
          if (claim.requestHash !== requestHash) throw keyUsedForAnotherRequest(KEY_HEADER, 'request');
          return claim.opId;
        }
      }
      await this.ops.insert(op, items, manager);
      await this.workflows.start(op, pace);
      return op.opId;
    });
    const ended = wait ? await this.workflows.ended(opId, this.config.linkMigration.waitMs) : false;
    const outcomes = await this.ops.outcomes(opId);
    return { ended, done: outcomes.done, failed: outcomes.failed };
  }

  private async requireMigration(team: TeamPrincipal, teamId: string | undefined, provider: string): Promise<void> {
    await this.requireEnabled(team, teamId);
    const oauth = (slug: string) => this.link.authTypeOf(slug, team.environment) === 'oauth';
    if (!oauth(provider)) {
      const offered = PROVIDERS.filter((known) => known.authType === 'oauth' && oauth(known.slug)).map((known) => known.slug);
      throw badRequest(
        `Link Migration moves OAuth connections; ${provider} is not an OAuth provider labflow connects for ${team.environment} teams` +
          (offered.length > 0 ? ` (here: ${offered.join(', ')}).` : ' (none is configured here).'),
      );
    }
  }

  private async requireEnabled(team: TeamPrincipal, teamId: string | undefined): Promise<void> {
    if (teamId !== undefined && teamId !== 'infer_from_context' && teamId !== team.teamId)
      throw forbidden('An API key acts for its own team only: omit team_id, or pass infer_from_context.');
    if (!(await this.teamSettings.linkMigrationEnabled(team.teamId))) {
      throw forbidden(
        'Link Migration is disabled for this team: an org admin enables it with the management API (PATCH the team with link_migration_enabled: true).',
      );
    }
  }
}

/** The header a bulk operation's idempotency key comes in (as on order creation). */
const KEY_HEADER = 'x-idempotency-key';

/** A background operation's request as the route received it. */
interface BulkRequest {
  body: { wait_for_completion?: boolean } & object;
  idempotencyKey?: string;
}

function credentialsOf(recipe: ConnectionRecipe): ProviderCredentials {
  return {
    accessToken: recipe.access_token,
    refreshToken: recipe.refresh_token,
    expiresAt: new Date(recipe.expires_at * 1000).toISOString(),
    scopes: recipe.oauth_scopes ?? [],
  };
}

function decodeExportToken(token: string): string {
  const userId = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(userId))
    throw badRequest('next_token: pass it exactly as the previous page returned it.');
  return userId;
}
