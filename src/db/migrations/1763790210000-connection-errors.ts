import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What went wrong with a connection whose source refused it (status `error`): the error type
 * Junction names (`token_refresh_failed`, `required_scopes_not_granted`, …), the source's
 * message and when it first happened, shown as `error_details` by `GET /v2/user/providers`.
 * All three are set together with status `error` and cleared when a sync succeeds again.
 */
export class ConnectionErrors1763790210000 implements MigrationInterface {
  name = 'ConnectionErrors1763790210000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE provider_connections
        ADD COLUMN error_type text,
        ADD COLUMN error_message text,
        ADD COLUMN errored_at timestamptz,
        ADD CONSTRAINT provider_connections_error_details CHECK ((status = 'error') = (error_type IS NOT NULL AND error_message IS NOT NULL AND errored_at IS NOT NULL))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE provider_connections
        DROP CONSTRAINT provider_connections_error_details,
        DROP COLUMN error_type,
        DROP COLUMN error_message,
        DROP COLUMN errored_at`);
  }
}
