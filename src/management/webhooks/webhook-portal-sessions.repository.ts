import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { changedCount } from '../../common/write-statements';
import type { ApiEnvironment } from '../../tenancy/entities';

/** Why a launch URL's row did not open. */
export type OpenRefusal = 'unknown' | 'used' | 'revoked' | 'expired';

export interface PortalSessionScope {
  teamId: string;
  environment: ApiEnvironment;
}

/** How long a row is kept past its end (for support), before a later signing deletes it. */
const KEPT_AFTER_END = `interval '1 day'`;

/**
 * The hosted webhook portal's launch URLs and the sessions opened from them
 * (`webhook_portal_sessions`, migration 1763791750000): here, in the webhooks module, because
 * both the portal (src/webhook-portal) and the management API's revocation use it.
 */
@Injectable()
export class WebhookPortalSessionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A launch URL signed: its row, until the URL expires. Ended rows of a day ago go. */
  async insertLaunch(id: string, scope: PortalSessionScope, expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO webhook_portal_sessions (id, team_id, environment, expires_at) VALUES ($1, $2, $3, $4)`, [
      id,
      scope.teamId,
      scope.environment,
      expiresAt,
    ]);
    await this.db.query(`DELETE FROM webhook_portal_sessions WHERE expires_at < now() - ${KEPT_AFTER_END}`);
  }

  /**
   * Opens a launch URL's row once, into a session until `sessionExpiresAt`; or why not. One
   * statement, so two browsers opening the same URL at once open it once.
   */
  async open(id: string, scope: PortalSessionScope, sessionExpiresAt: Date): Promise<true | OpenRefusal> {
    const opened = await changedCount(
      this.db,
      `UPDATE webhook_portal_sessions SET opened_at = clock_timestamp(), expires_at = $4
        WHERE id = $1 AND team_id = $2 AND environment = $3 AND opened_at IS NULL AND revoked_at IS NULL AND expires_at > clock_timestamp()`,
      [id, scope.teamId, scope.environment, sessionExpiresAt],
    );
    if (opened === 1) return true;
    const [row] = await this.db.query(
      `SELECT opened_at, revoked_at, expires_at > clock_timestamp() AS live FROM webhook_portal_sessions WHERE id = $1 AND team_id = $2 AND environment = $3`,
      [id, scope.teamId, scope.environment],
    );
    if (!row) return 'unknown';
    if (row.revoked_at) return 'revoked';
    if (row.opened_at) return 'used';
    return 'expired';
  }

  /** Whether the session is open: opened, not revoked, not ended. */
  async isLive(id: string, scope: PortalSessionScope): Promise<boolean> {
    const [row] = await this.db.query(
      `SELECT 1 FROM webhook_portal_sessions
        WHERE id = $1 AND team_id = $2 AND environment = $3 AND opened_at IS NOT NULL AND revoked_at IS NULL AND expires_at > clock_timestamp()`,
      [id, scope.teamId, scope.environment],
    );
    return Boolean(row);
  }

  /** Revokes every session and unopened launch URL of the team in the environment that has not ended: how many. */
  async revokeAll(scope: PortalSessionScope): Promise<number> {
    return changedCount(
      this.db,
      `UPDATE webhook_portal_sessions SET revoked_at = clock_timestamp()
        WHERE team_id = $1 AND environment = $2 AND revoked_at IS NULL AND expires_at > clock_timestamp()`,
      [scope.teamId, scope.environment],
    );
  }
}
