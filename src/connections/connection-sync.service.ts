import { Inject, Injectable } from '@nestjs/common';
import type { ConnectionIdentity, SyncConnectionInput, SyncConnectionResult } from '../../workflows/contract';
import { actingFor } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { OutboxService } from '../events/outbox.service';
import type { IngestionEnvelope } from '../health-data/health-data.dto';
import { HealthDataIngestionService } from '../health-data/health-data-ingestion.service';
import { providerOf } from '../health-data/providers';
import type { Region } from '../tenancy/entities';
import { UsersRepository } from '../users/users.repository';
import { connectionCreatedEvent } from './connection-views';
import { type ConnectionRow, ConnectionsRepository } from './connections.repository';
import {
  type ProviderCredentials,
  SOURCE_ADAPTER,
  type SourceAdapter,
  type SourceBatch,
  type SourceConnection,
  SourceConnectionError,
} from '../adapters/sources/source-adapter';

/**
 * The workflow side of connections (activities/connections.ts): announce a connection, and move
 * a window of a source's data into labflow through the same ingestion path the phone SDKs use
 * (validation, the user's ingestion bounds, upserts by sample key, batched events). Both are
 * idempotent: the announcement's event id comes from the connection, and samples and summaries
 * are stored under their keys, so a step run again stores nothing twice.
 */
@Injectable()
export class ConnectionSyncService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly users: UsersRepository,
    private readonly ingestion: HealthDataIngestionService,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    @Inject(SOURCE_ADAPTER) private readonly sources: SourceAdapter,
  ) {}

  async announce(identity: ConnectionIdentity): Promise<'announced' | 'gone'> {
    const row = await this.connections.insertIfAbsent({
      ...identity,
      id: identity.connectionId,
      seed: identity.connectionId,
      region: identity.region as Region,
    });
    if (!row || row.id !== identity.connectionId) return 'gone';
    const user = (await this.users.findLive(actingFor(row), row.userId)) ?? (await this.users.findPendingDeletion(actingFor(row), row.userId));
    if (!user) return 'gone';
    await this.outbox.emit([connectionCreatedEvent(row, user.clientUserId, this.sources.resources(row.provider, row.environment))]);
    return 'announced';
  }

  /**
   * The connection is `error` and `provider.connection.error` is on its way, both or neither
   * (one transaction); once per episode: a connection already in error is left as it is, so
   * retries of a refused step announce nothing new until a sync succeeds and a later one fails.
   */
  private async markErrored(row: ConnectionRow, clientUserId: string, error: SourceConnectionError): Promise<void> {
    await this.connections.transaction(async (manager) => {
      const errored = await this.connections.markErrored(row.id, error.errorType, error.message, manager);
      if (!errored) return;
      await this.outbox.record(manager, [
        {
          idempotencyKey: `connection:${row.id}:error:${(errored.erroredAt as Date).toISOString()}`,
          eventType: 'provider.connection.error',
          teamId: row.teamId,
          environment: row.environment,
          userId: row.userId,
          clientUserId,
          data: {
            user_id: row.userId,
            provider: row.provider,
            message: `Your connection to ${providerOf(row.provider).name} needs attention: ${error.message}`,
            error_type: error.errorType,
            error_details: error.message,
          },
        },
      ]);
    });
  }

  /** What the source adapter is given of the connection: its credentials opened, and where refreshed ones go. */
  private async sourceConnection(row: ConnectionRow, timeZone: string): Promise<SourceConnection> {
    const storedCredentials = async () => {
      const sealed = await this.connections.credentialsOf(row.id);
      return sealed ? this.cipher.decryptJson<ProviderCredentials>(sealed) : null;
    };
    return {
      userId: row.userId,
      provider: row.provider,
      environment: row.environment,
      seed: row.seed,
      timeZone,
      credentials: await storedCredentials(),
      saveCredentials: (credentials) => this.connections.storeCredentials(row.id, this.cipher.encryptJson(credentials)),
      storedCredentials,
    };
  }

  async end(connectionId: string): Promise<void> {
    await this.connections.deleteById(connectionId);
  }

  async sync(input: SyncConnectionInput): Promise<SyncConnectionResult> {
    const row = await this.connections.findById(input.connectionId);
    if (!row) return { status: 'gone' };
    // Paused (Link Migration): nothing is fetched and no token refreshed; the window is kept.
    if (row.status === 'paused') return { status: 'paused' };
    const team = actingFor(row);
    const user = await this.users.findLive(team, row.userId);
    if (!user) return (await this.users.findPendingDeletion(team, row.userId)) ? { status: 'paused' } : { status: 'gone' };
    const timeZone = user.fallbackTimeZone?.id ?? 'UTC';
    const ending = input.stage === 'historical' && input.finalChunk;
    let pulled: SourceBatch[];
    try {
      pulled = await this.sources.pull(await this.sourceConnection(row, timeZone), input.from, input.to);
    } catch (error) {
      if (!(error instanceof SourceConnectionError)) throw error; // passing trouble: the step is retried
      await this.markErrored(row, user.clientUserId, error);
      return { status: 'error', errorType: error.errorType };
    }
    const batches = withEveryResource(pulled, ending ? this.sources.resources(row.provider, row.environment) : []);
    let stored = 0;
    for (const batch of batches) {
      // An empty batch matters only at a backfill's end: it still ends that resource's backfill.
      if (batch.data.length === 0 && !ending) continue;
      const body: IngestionEnvelope = {
        stage: input.stage,
        start_date: input.backfill ? isoDay(input.backfill.from) : undefined,
        end_date: input.backfill ? isoDay(input.backfill.to) : undefined,
        time_zone: timeZone,
        provider: row.provider,
        source_type: batch.sourceType,
        is_final_chunk: input.stage === 'historical' ? input.finalChunk : true,
        data: batch.data,
      };
      const options = { backfillKey: input.backfillKey ?? `connection:${row.id}` };
      const result =
        batch.kind === 'timeseries'
          ? await this.ingestion.ingestTimeseries(team, row.userId, batch.resource, body, options)
          : await this.ingestion.ingestSummaries(team, row.userId, batch.resource, body, options);
      stored += result.stored;
    }
    await this.connections.markSynced(row.id, new Date(input.to), ending);
    return { status: 'synced', stored };
  }
}

/** The batches plus an empty one for each listed resource they lack. */
function withEveryResource(batches: SourceBatch[], resources: ReadonlyArray<Omit<SourceBatch, 'data'>>): SourceBatch[] {
  const present = new Set(batches.map((batch) => `${batch.kind}|${batch.resource}|${batch.sourceType}`));
  const missing = resources.filter((resource) => !present.has(`${resource.kind}|${resource.resource}|${resource.sourceType}`));
  return [...batches, ...missing.map((resource) => ({ ...resource, data: [] }))];
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}
