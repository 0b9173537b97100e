import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { logPhiAccess, type PhiAccess } from '../common/phi-access-log';

const RESOURCE = 'user_info';

/** A user's demographics (table user_infos: one encrypted row per user) and their PHI audit rows. */
@Injectable()
export class UserInfoRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Replaces the user's info, with its audit row in the same transaction: no write goes unlogged. */
  async upsertAudited(userId: string, infoEnc: string, by: PhiAccess): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO user_infos (user_id, info_enc) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET info_enc = EXCLUDED.info_enc, updated_at = now()`,
        [userId, infoEnc],
      );
      await logPhiAccess(manager, by, 'write', RESOURCE, [userId]);
    });
  }

  /** The user's info (encrypted), or null when none was given. */
  async find(userId: string): Promise<string | null> {
    const [row] = await this.db.query<Array<{ info_enc: string }>>(`SELECT info_enc FROM user_infos WHERE user_id = $1`, [userId]);
    return row?.info_enc ?? null;
  }

  async logRead(userId: string, by: PhiAccess): Promise<void> {
    await logPhiAccess(this.db.manager, by, 'read', RESOURCE, [userId]);
  }
}
