import { Inject, Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { ApiError, notFound } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { type ConnectionRow, ConnectionsRepository } from '../connections/connections.repository';
import { providerInfo } from '../health-data/providers';
import { UsersRepository } from '../users/users.repository';
import type { HistoricalStageDto, SyncProgressDto } from './mobile.dto';
import { SdkSyncRepository } from './sdk-sync.repository';

/** How long the SDK may go by an answer before asking again. */
const STATE_TTL_SECONDS = 4 * 3600;
const DAY_MS = 24 * 3600 * 1000;

export interface SdkSyncStateView {
  status: 'active' | 'paused' | 'error';
  request_start_date: string;
  request_end_date: string;
  ingestion_start?: string;
  ingestion_end?: string;
  expires_in: number;
}

/**
 * `POST /v2/user/{user_id}/sdk_sync_state/{provider}`: what the SDK of a phone source (Apple
 * HealthKit, Health Connect) should sync, from the connection's state: `paused` while Link
 * Migration paused it, `error` while it is in error, `active` otherwise (also before the SDK
 * connected it: it connects as it starts); the window to read, the last CONNECTION_BACKFILL_DAYS
 * within the user's ingestion bounds. Dates without fractional seconds (the iOS SDK's decoder).
 * The iOS SDK also reports, per connection, each historical stage it begins (the range of one
 * backfill type) and its progress (sdk_sync_progress); both are kept, the latest of each.
 */
@Injectable()
export class SdkSyncService {
  constructor(
    private readonly users: UsersRepository,
    private readonly connections: ConnectionsRepository,
    private readonly reports: SdkSyncRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async state(team: TeamPrincipal, userId: string, provider: string): Promise<SdkSyncStateView> {
    if (providerInfo(provider)?.authType !== 'sdk') throw notFound(`SDK provider ${provider}`);
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    const connection = await this.connections.findByProvider(user.id, provider);
    const now = Date.now();
    const ingestionStart = user.ingestionStart ? Date.parse(`${user.ingestionStart}T00:00:00Z`) : null;
    const ingestionEnd = user.ingestionEnd ? Date.parse(`${user.ingestionEnd}T00:00:00Z`) + DAY_MS - 1000 : null;
    const start = Math.max(now - this.config.connections.backfillDays * DAY_MS, ingestionStart ?? 0);
    const end = Math.min(now, ingestionEnd ?? now);
    return {
      status: connection?.status === 'paused' ? 'paused' : connection?.status === 'error' ? 'error' : 'active',
      request_start_date: whole(start),
      request_end_date: whole(Math.max(start, end)),
      ...(ingestionStart !== null ? { ingestion_start: whole(ingestionStart) } : {}),
      ...(ingestionEnd !== null ? { ingestion_end: whole(ingestionEnd) } : {}),
      expires_in: STATE_TTL_SECONDS,
    };
  }

  /** `POST /v2/user/{user_id}/sdk_start_historical_stage/{provider}`: the phone begins uploading one backfill type's history. */
  async startHistoricalStage(team: TeamPrincipal, userId: string, provider: string, body: HistoricalStageDto): Promise<{ success: true }> {
    const connection = await this.sdkConnection(team, userId, provider);
    await this.reports.startHistoricalStage(connection.id, {
      backfillType: body.backfill_type,
      rangeStart: new Date(body.range_start),
      rangeEnd: new Date(body.range_end),
    });
    return { success: true };
  }

  /** `POST /v2/user/{user_id}/sdk_sync_progress/{provider}`: the phone's latest progress report. */
  async reportProgress(team: TeamPrincipal, userId: string, provider: string, body: SyncProgressDto): Promise<{ success: true }> {
    const connection = await this.sdkConnection(team, userId, provider);
    await this.reports.reportProgress(connection.id, body.sync_progress, body.device_info ?? null);
    return { success: true };
  }

  /** The user's connection to a phone source: the SDK connects it (POST /v2/link/provider/manual) before it reports. */
  private async sdkConnection(team: TeamPrincipal, userId: string, provider: string): Promise<ConnectionRow> {
    if (providerInfo(provider)?.authType !== 'sdk') throw notFound(`SDK provider ${provider}`);
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    const connection = await this.connections.findByProvider(user.id, provider);
    if (!connection) throw new ApiError(404, `The user has no ${provider} connection: the SDK connects it first (POST /v2/link/provider/manual/${provider}).`);
    return connection;
  }
}

/** ISO 8601 in UTC without fractional seconds. */
function whole(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
