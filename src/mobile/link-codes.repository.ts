import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { SdkUser } from '../users/sdk-sessions.repository';

/** The SQL of `link_codes`: a code is kept as its SHA-256, and exchanged once. */
@Injectable()
export class LinkCodesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(codeHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db.query(`INSERT INTO link_codes (code_hash, user_id, expires_at) VALUES ($1, $2, $3)`, [codeHash, userId, expiresAt]);
  }

  /** Uses the code up: its live user, when it was never used and has not expired; null otherwise. */
  async spend(codeHash: string): Promise<SdkUser | null> {
    const rows: SdkUser[] = await this.db.query(
      `WITH spent AS (
         UPDATE link_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id)
       SELECT u.id AS "userId", u.team_id AS "teamId", u.environment, t.region
         FROM spent JOIN users u ON u.id = spent.user_id JOIN teams t ON t.id = u.team_id
        WHERE u.deletion_requested_at IS NULL`,
      [codeHash],
    );
    return rows[0] ?? null;
  }
}
