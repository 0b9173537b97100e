import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ApiEnvironment, Region } from '../tenancy/entities';
import { changedCount } from '../common/write-statements';

/** The user an SDK sign-in acts for, with their team's scope. */
export interface SdkUser {
  userId: string;
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
}

/** A live SDK session: its user is live and it is neither revoked nor expired. */
export interface SdkSession extends SdkUser {
  sessionId: string;
}

const USER_SCOPE = `u.id AS "userId", u.team_id AS "teamId", u.environment, t.region`;

/**
 * The SQL of a user's mobile SDK sign-ins (`user_sign_in_tokens`, `user_sdk_sessions`): the
 * tokens minted, each exchanged once, and the sessions they open. Tables of the users module
 * because a user's deletion revokes them in its own transaction; src/mobile mints and checks.
 */
@Injectable()
export class SdkSessionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async recordSignInToken(jti: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO user_sign_in_tokens (jti, user_id, expires_at) VALUES ($1, $2, $3)`, [jti, userId, expiresAt]);
  }

  /**
   * Uses a sign-in token up: its user, when the token was never used, has not expired and its
   * user is live; null otherwise (and the token is spent either way once used).
   */
  async spendSignInToken(jti: string, userId: string): Promise<SdkUser | null> {
    const rows: SdkUser[] = await this.db.query(
      `WITH spent AS (
         UPDATE user_sign_in_tokens SET used_at = now()
          WHERE jti = $1 AND user_id = $2 AND used_at IS NULL AND expires_at > now()
          RETURNING user_id)
       SELECT ${USER_SCOPE} FROM spent JOIN users u ON u.id = spent.user_id JOIN teams t ON t.id = u.team_id
        WHERE u.deletion_requested_at IS NULL`,
      [jti, userId],
    );
    return rows[0] ?? null;
  }

  async openSession(sessionId: string, userId: string, refreshTokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO user_sdk_sessions (id, user_id, refresh_token_hash, expires_at) VALUES ($1, $2, $3, $4)`, [
      sessionId,
      userId,
      refreshTokenHash,
      expiresAt,
    ]);
  }

  /**
   * A refresh: the session whose current refresh token this is gets `next` in its place and a new
   * expiry; null when the token is unknown (never issued, already replaced, revoked, expired) or
   * the user is not live.
   */
  async rotateRefreshToken(refreshTokenHash: string, nextHash: string, expiresAt: Date): Promise<SdkSession | null> {
    const rows: SdkSession[] = await this.db.query(
      `WITH rotated AS (
         UPDATE user_sdk_sessions s SET refresh_token_hash = $2, refreshed_at = now(), expires_at = $3
           FROM users u
          WHERE s.refresh_token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
            AND u.id = s.user_id AND u.deletion_requested_at IS NULL
          RETURNING s.id, s.user_id)
       SELECT rotated.id AS "sessionId", ${USER_SCOPE} FROM rotated JOIN users u ON u.id = rotated.user_id JOIN teams t ON t.id = u.team_id`,
      [refreshTokenHash, nextHash, expiresAt],
    );
    return rows[0] ?? null;
  }

  /** The session an access token names, if it still stands (checked on every request). */
  async liveSession(sessionId: string): Promise<SdkSession | null> {
    const rows: SdkSession[] = await this.db.query(
      `SELECT s.id AS "sessionId", ${USER_SCOPE}
         FROM user_sdk_sessions s JOIN users u ON u.id = s.user_id JOIN teams t ON t.id = u.team_id
        WHERE s.id = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.deletion_requested_at IS NULL`,
      [sessionId],
    );
    return rows[0] ?? null;
  }

  /**
   * Signs the user out of every SDK installation: sessions revoked, sign-in tokens not yet
   * exchanged spent. Returns how many sessions it revoked.
   */
  async revokeAll(userId: string, manager?: EntityManager): Promise<number> {
    const runner = manager ?? this.db;
    await runner.query(`UPDATE user_sign_in_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
    const revoked = await changedCount(runner, `UPDATE user_sdk_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
    return revoked;
  }
}
