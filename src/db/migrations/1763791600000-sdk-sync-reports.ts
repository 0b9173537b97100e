import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the iOS SDK reports of its syncing, per connection (src/mobile/sdk-sync.service.ts):
 *
 * - `sdk_historical_stages`: `POST /v2/user/{id}/sdk_start_historical_stage/{provider}`, one row
 *   per backfill type (heartrate, steps, activity…): the range the phone is about to upload in the
 *   historical stage, replaced when it starts that type again (a reinstall).
 * - `sdk_sync_progress`: `POST /v2/user/{id}/sdk_sync_progress/{provider}`, the latest report:
 *   the SDK's progress per backfill type and the device (OS, model, app), as the phone sent them.
 */
export class SdkSyncReports1763791600000 implements MigrationInterface {
  name = 'SdkSyncReports1763791600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE sdk_historical_stages (
        connection_id uuid NOT NULL REFERENCES provider_connections(id) ON DELETE CASCADE,
        backfill_type text NOT NULL,
        range_start timestamptz NOT NULL,
        range_end timestamptz NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (connection_id, backfill_type)
      )`);
    await db.query(`
      CREATE TABLE sdk_sync_progress (
        connection_id uuid PRIMARY KEY REFERENCES provider_connections(id) ON DELETE CASCADE,
        progress jsonb NOT NULL,
        device_info jsonb,
        reported_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE sdk_sync_progress');
    await db.query('DROP TABLE sdk_historical_stages');
  }
}
