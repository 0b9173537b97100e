import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { logPhiAccess } from '../common/phi-access-log';
import { changedRows } from '../common/write-statements';
import type { ApiEnvironment } from '../tenancy/entities';

export type PortalContext = 'launch' | 'communications';
export type OtpChannel = 'email' | 'sms';
export type SessionStart = 'launch' | 'code' | 'device';

/** A `portal_links` row (see the migration 1763790140000-portal). */
export interface PortalLinkRow {
  id: string;
  team_id: string;
  environment: ApiEnvironment;
  user_id: string;
  order_id: string | null;
  context: PortalContext;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  otp_hash: Buffer | null;
  otp_channel: OtpChannel | null;
  otp_expires_at: Date | null;
  otp_failures: number;
  otp_sends: number;
}

export interface PortalSessionRow {
  id: string;
  link_id: string;
  team_id: string;
  user_id: string;
  began_by: SessionStart;
  expires_at: Date;
  ended_at: Date | null;
}

const LINK_COLUMNS = `id, team_id, environment, user_id, order_id, context, expires_at, used_at, revoked_at,
  otp_hash, otp_channel, otp_expires_at, otp_failures, otp_sends`;

/** Portal links, their one-time codes and the portal sessions. */
@Injectable()
export class PortalLinksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** `code_hash`: a communications link's code as stored (PortalTokens.codeDigest); null for a launch link. */
  async insertLink(
    link: Pick<PortalLinkRow, 'id' | 'team_id' | 'environment' | 'user_id' | 'order_id' | 'context' | 'expires_at'> & { code_hash: Buffer | null },
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO portal_links (id, team_id, environment, user_id, order_id, context, code_hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [link.id, link.team_id, link.environment, link.user_id, link.order_id, link.context, link.code_hash, link.expires_at],
    );
  }

  async byId(id: string): Promise<PortalLinkRow | null> {
    const [row] = await this.db.query(`SELECT ${LINK_COLUMNS} FROM portal_links WHERE id = $1`, [id]);
    return row ?? null;
  }

  /** The link of a code, given the stored forms it may have (PortalTokens.codeDigests). */
  async byCode(codeDigests: Buffer[]): Promise<PortalLinkRow | null> {
    const [row] = await this.db.query(`SELECT ${LINK_COLUMNS} FROM portal_links WHERE code_hash = ANY($1::bytea[]) LIMIT 1`, [codeDigests]);
    return row ?? null;
  }

  /** Takes a launch link's single use: true for the one caller that did. */
  async useOnce(id: string): Promise<boolean> {
    const rows = await changedRows(this.db, `UPDATE portal_links SET used_at = clock_timestamp() WHERE id = $1 AND used_at IS NULL RETURNING id`, [id]);
    return rows.length === 1;
  }

  /** Revokes the team's communications links of a user (one code, by its stored forms, or all); how many were still live. */
  async revoke(scope: { teamId: string; environment: ApiEnvironment }, userId: string, codeDigests: Buffer[] | null): Promise<number> {
    const rows = await changedRows(
      this.db,
      `UPDATE portal_links SET revoked_at = clock_timestamp()
          WHERE team_id = $1 AND environment = $2 AND user_id = $3 AND context = 'communications'
            AND revoked_at IS NULL AND ($4::bytea[] IS NULL OR code_hash = ANY($4::bytea[])) RETURNING id`,
      [scope.teamId, scope.environment, userId, codeDigests],
    );
    return rows.length;
  }

  /** Whether the team issued this code (by its stored forms) for this user (revoked or not). */
  async codeBelongsTo(scope: { teamId: string; environment: ApiEnvironment }, userId: string, codeDigests: Buffer[]): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT 1 FROM portal_links WHERE team_id = $1 AND environment = $2 AND user_id = $3 AND code_hash = ANY($4::bytea[]) LIMIT 1`,
      [scope.teamId, scope.environment, userId, codeDigests],
    );
    return rows.length === 1;
  }

  /**
   * Stores a new one-time code unless the link has sent its last code or locked after too many
   * wrong ones; false when refused. The count of sends only grows.
   */
  async storeCode(id: string, hash: Buffer, channel: OtpChannel, expiresAt: Date, limits: { maxSends: number; maxFailures: number }): Promise<boolean> {
    const rows = await changedRows(
      this.db,
      `UPDATE portal_links SET otp_hash = $2, otp_channel = $3, otp_expires_at = $4, otp_sends = otp_sends + 1
          WHERE id = $1 AND otp_sends < $5 AND otp_failures < $6 RETURNING id`,
      [id, hash, channel, expiresAt, limits.maxSends, limits.maxFailures],
    );
    return rows.length === 1;
  }

  /** Counts one wrong code; the link's failures so far. */
  async recordFailure(id: string): Promise<number> {
    const [row] = await changedRows<{ otp_failures: number }>(
      this.db,
      `UPDATE portal_links SET otp_failures = otp_failures + 1 WHERE id = $1 RETURNING otp_failures`,
      [id],
    );
    return row?.otp_failures ?? 0;
  }

  /** A code works once: cleared when it is accepted. */
  async clearCode(id: string): Promise<void> {
    await this.db.query(`UPDATE portal_links SET otp_hash = NULL, otp_expires_at = NULL WHERE id = $1`, [id]);
  }

  /** A new portal session, audited in phi_access_log (resource `portal_session`) in the same transaction. */
  async startSession(session: Pick<PortalSessionRow, 'id' | 'link_id' | 'team_id' | 'user_id' | 'began_by' | 'expires_at'>): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.query(`INSERT INTO portal_sessions (id, link_id, team_id, user_id, began_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
        session.id,
        session.link_id,
        session.team_id,
        session.user_id,
        session.began_by,
        session.expires_at,
      ]);
      await logPhiAccess(manager, { teamId: session.team_id, apiKeyId: null }, 'read', 'portal_session', [session.id]);
    });
  }

  async session(id: string): Promise<PortalSessionRow | null> {
    const [row] = await this.db.query(`SELECT id, link_id, team_id, user_id, began_by, expires_at, ended_at FROM portal_sessions WHERE id = $1`, [id]);
    return row ?? null;
  }

  async endSession(id: string): Promise<void> {
    await this.db.query(`UPDATE portal_sessions SET ended_at = clock_timestamp() WHERE id = $1 AND ended_at IS NULL`, [id]);
  }
}
