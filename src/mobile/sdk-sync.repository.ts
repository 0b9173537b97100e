import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export interface HistoricalStage {
  backfillType: string;
  rangeStart: Date;
  rangeEnd: Date;
}

/** The SQL of `sdk_historical_stages` and `sdk_sync_progress`: what a phone reports of its syncing, per connection. */
@Injectable()
export class SdkSyncRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Records a historical stage begun; the same backfill type begun again replaces it. */
  async startHistoricalStage(connectionId: string, stage: HistoricalStage): Promise<void> {
    await this.db.query(
      `INSERT INTO sdk_historical_stages (connection_id, backfill_type, range_start, range_end) VALUES ($1, $2, $3, $4)
       ON CONFLICT (connection_id, backfill_type) DO UPDATE SET range_start = EXCLUDED.range_start, range_end = EXCLUDED.range_end, started_at = now()`,
      [connectionId, stage.backfillType, stage.rangeStart, stage.rangeEnd],
    );
  }

  /** Keeps the latest progress report of the connection's phone. */
  async reportProgress(connectionId: string, progress: object, deviceInfo: object | null): Promise<void> {
    await this.db.query(
      `INSERT INTO sdk_sync_progress (connection_id, progress, device_info) VALUES ($1, $2, $3)
       ON CONFLICT (connection_id) DO UPDATE SET progress = EXCLUDED.progress, device_info = EXCLUDED.device_info, reported_at = now()`,
      [connectionId, JSON.stringify(progress), deviceInfo === null ? null : JSON.stringify(deviceInfo)],
    );
  }
}
