import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { LinkBulkOpIdentity, LinkBulkOpStatus } from '../../workflows/contract';
import { actingFor } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { UsersRepository } from '../users/users.repository';
import type { ProviderCredentials } from '../adapters/sources/source-adapter';
import { type BulkOpRow, BulkOpsRepository, type PendingBulkOpItem } from './bulk-ops.repository';
import { ConnectionSyncService } from './connection-sync.service';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';

const DAY_MS = 86_400_000;

/**
 * The workflow side of Link Migration's operations (activities/link-bulk-ops.ts): each user of a
 * bulk import is connected with the tokens submitted for it, as if it had signed in through Link
 * (provider.connection.created, then its backfill); each user of a bulk historical pull has its
 * connection's history fetched again (historical.data.* events once it is stored). Each user's
 * outcome commits after its work, so a step run again redoes at most the user it was on, which
 * both kinds of work allow (connecting again replaces the grant; history is stored under its keys).
 */
@Injectable()
export class ConnectionBulkOpsService {
  constructor(
    private readonly ops: BulkOpsRepository,
    private readonly connections: ConnectionsService,
    private readonly connectionRows: ConnectionsRepository,
    private readonly sync: ConnectionSyncService,
    private readonly users: UsersRepository,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'connections'>,
  ) {}

  open(op: LinkBulkOpIdentity): Promise<'open' | 'aborted'> {
    return this.ops.openOrAbort(op);
  }

  async runStep(opId: string, limit: number): Promise<{ remaining: number }> {
    const op = await this.ops.find(opId);
    if (!op || op.status !== 'in_progress') return { remaining: 0 };
    for (const item of await this.ops.pending(opId, limit)) {
      const failure = op.type === 'link_bulk_import' ? await this.importOne(op, item) : await this.pullHistoryOf(op, item);
      await this.ops.finishItem(opId, item.position, failure ? 'failed' : 'done', failure);
    }
    return { remaining: await this.ops.remaining(opId) };
  }

  close(opId: string): Promise<LinkBulkOpStatus> {
    return this.ops.close(opId);
  }

  /** Connects the user with the submitted grant; answers why it could not, or null. */
  private async importOne(op: BulkOpRow, item: PendingBulkOpItem): Promise<string | null> {
    const team = actingFor(op);
    if (!item.credentialsEnc) return 'No tokens were kept for this user.';
    if (!(await this.users.findLive(team, item.userId))) return 'User not found.';
    const credentials = this.cipher.decryptJson<ProviderCredentials>(item.credentialsEnc);
    try {
      await this.connections.connect(team, item.userId, op.provider, { credentials, externalUserId: item.providerUserId });
      return null;
    } catch (error) {
      if (error instanceof NotFoundException) return 'User not found.'; // erased meanwhile
      throw error;
    }
  }

  /** Fetches the connection's history again (as its first backfill did); answers why it could not, or null. */
  private async pullHistoryOf(op: BulkOpRow, item: PendingBulkOpItem): Promise<string | null> {
    const row = await this.connectionRows.findByProvider(item.userId, op.provider);
    if (!row || row.teamId !== op.teamId || row.environment !== op.environment || row.kind !== 'pull') return `The user has no ${op.provider} connection.`;
    if (row.status === 'paused') return 'The connection is paused.';
    const to = Date.now();
    const from = to - this.config.connections.backfillDays * DAY_MS;
    const result = await this.sync.sync({
      connectionId: row.id,
      from,
      to,
      stage: 'historical',
      finalChunk: true,
      backfill: { from, to },
      backfillKey: `link-bulk-op:${op.id}:${row.id}`,
    });
    if (result.status === 'synced') return null;
    if (result.status === 'error') return `The provider refused the connection (${result.errorType}).`;
    return result.status === 'paused' ? 'The user is pending deletion.' : `The user has no ${op.provider} connection.`;
  }
}
