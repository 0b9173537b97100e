import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { LinkBulkOpIdentity, LinkBulkOpStatus, LinkBulkOpType } from '../../workflows/contract';
import type { KeysetPosition } from '../common/keyset-cursor';
import type { ApiEnvironment, Region } from '../tenancy/entities';
import { changedCount } from '../common/write-statements';

/** A Link Migration operation (`link_bulk_ops`) with its users counted. */
export interface BulkOpRow {
  id: string;
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
  type: LinkBulkOpType;
  provider: string;
  status: LinkBulkOpStatus;
  startedAt: Date;
  endedAt: Date | null;
  pending: number;
  processed: number;
}

/** One user of an operation as submitted: an import's tokens sealed (PHI key), a historical pull's none. */
export interface NewBulkOpItem {
  userId: string;
  credentialsEnc: string | null;
  providerUserId: string | null;
}

/** An operation's user not yet processed. */
export interface PendingBulkOpItem extends NewBulkOpItem {
  position: number;
}

const OP_COLUMNS = `o.id, o.team_id AS "teamId", o.environment, o.region, o.type, o.provider, o.status, o.started_at AS "startedAt", o.ended_at AS "endedAt",
  CASE WHEN o.processed_count IS NULL THEN (SELECT count(*) FROM link_bulk_op_items i WHERE i.op_id = o.id AND i.outcome IS NULL)::int ELSE 0 END AS pending,
  COALESCE(o.processed_count, (SELECT count(*) FROM link_bulk_op_items i WHERE i.op_id = o.id AND i.outcome IS NOT NULL)::int) AS processed`;

/** The SQL of `link_bulk_ops` and `link_bulk_op_items`. */
@Injectable()
export class BulkOpsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Writes the operation (in progress) and its users, in submission order. */
  async insert(op: LinkBulkOpIdentity, items: NewBulkOpItem[], manager: EntityManager): Promise<void> {
    await manager.query(`INSERT INTO link_bulk_ops (id, team_id, environment, region, type, provider, status) VALUES ($1, $2, $3, $4, $5, $6, 'in_progress')`, [
      op.opId,
      op.teamId,
      op.environment,
      op.region,
      op.type,
      op.provider,
    ]);
    await manager.query(
      `INSERT INTO link_bulk_op_items (op_id, position, user_id, credentials_enc, provider_user_id)
       SELECT $1, n, u, c, p FROM unnest($2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS t(u, c, p, n)`,
      [op.opId, items.map((item) => item.userId), items.map((item) => item.credentialsEnc), items.map((item) => item.providerUserId)],
    );
  }

  /**
   * `open` when the operation's row exists; otherwise writes it `aborted` and answers so. The
   * insert waits for an uncommitted insert of the same id (the API's, still in its transaction)
   * to commit or roll back, so this answers only once the API's transaction has ended.
   */
  async openOrAbort(op: LinkBulkOpIdentity): Promise<'open' | 'aborted'> {
    const inserted: unknown[] = await this.db.query(
      `INSERT INTO link_bulk_ops (id, team_id, environment, region, type, provider, status, ended_at, processed_count) VALUES ($1, $2, $3, $4, $5, $6, 'aborted', now(), 0)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [op.opId, op.teamId, op.environment, op.region, op.type, op.provider],
    );
    if (inserted.length > 0) return 'aborted';
    const row = await this.find(op.opId);
    return row?.status === 'aborted' ? 'aborted' : 'open';
  }

  async find(id: string): Promise<BulkOpRow | null> {
    const rows: BulkOpRow[] = await this.db.query(`SELECT ${OP_COLUMNS} FROM link_bulk_ops o WHERE o.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Up to `limit` of the operation's users not yet processed, in submission order. */
  pending(opId: string, limit: number): Promise<PendingBulkOpItem[]> {
    return this.db.query(
      `SELECT position, user_id AS "userId", credentials_enc AS "credentialsEnc", provider_user_id AS "providerUserId"
         FROM link_bulk_op_items WHERE op_id = $1 AND outcome IS NULL ORDER BY position LIMIT $2`,
      [opId, limit],
    );
  }

  /** Records a user's outcome, and forgets the tokens it was imported with. */
  async finishItem(opId: string, position: number, outcome: 'done' | 'failed', detail: string | null): Promise<void> {
    await this.db.query(
      `UPDATE link_bulk_op_items SET outcome = $3, detail = $4, credentials_enc = NULL WHERE op_id = $1 AND position = $2 AND outcome IS NULL`,
      [opId, position, outcome, detail],
    );
  }

  async remaining(opId: string): Promise<number> {
    const [row]: Array<{ remaining: number }> = await this.db.query(
      `SELECT count(*)::int AS remaining FROM link_bulk_op_items WHERE op_id = $1 AND outcome IS NULL`,
      [opId],
    );
    return row.remaining;
  }

  /** Ends the operation `success` unless it has ended already; answers its status. */
  async close(opId: string): Promise<LinkBulkOpStatus> {
    await this.db.query(
      `UPDATE link_bulk_ops SET status = 'success', ended_at = now(),
              processed_count = (SELECT count(*) FROM link_bulk_op_items WHERE op_id = $1 AND outcome IS NOT NULL)
        WHERE id = $1 AND status = 'in_progress'`,
      [opId],
    );
    return (await this.find(opId))?.status ?? 'aborted';
  }

  /** The users of the operation by outcome so far (each user once, in submission order). */
  async outcomes(opId: string): Promise<{ done: string[]; failed: string[] }> {
    const rows: Array<{ userId: string; outcome: 'done' | 'failed' }> = await this.db.query(
      `SELECT user_id AS "userId", outcome FROM link_bulk_op_items WHERE op_id = $1 AND outcome IS NOT NULL ORDER BY position`,
      [opId],
    );
    const unique = (ids: string[]) => [...new Set(ids)];
    return {
      done: unique(rows.filter((row) => row.outcome === 'done').map((row) => row.userId)),
      failed: unique(rows.filter((row) => row.outcome === 'failed').map((row) => row.userId)),
    };
  }

  /**
   * A page of the team's operations, newest first, strictly after the keyset position `after`
   * (started_at at microsecond precision, id); each row with its own position.
   */
  page(teamId: string, environment: ApiEnvironment, after: KeysetPosition | null, limit: number): Promise<Array<BulkOpRow & { keysetAt: string }>> {
    return this.db.query(
      `SELECT ${OP_COLUMNS}, to_char(o.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS "keysetAt" FROM link_bulk_ops o
        WHERE o.team_id = $1 AND o.environment = $2
          AND ($3::timestamp IS NULL OR (o.started_at, o.id) < ($3::timestamp AT TIME ZONE 'UTC', $4::uuid))
        ORDER BY o.started_at DESC, o.id DESC LIMIT $5`,
      [teamId, environment, after?.at ?? null, after?.id ?? null, limit],
    );
  }

  /**
   * Deletes up to `limit` user rows of operations that ended more than `retentionMs` ago (their
   * counts stay on the operation's row); answers how many.
   */
  async deleteExpiredItems(retentionMs: number, limit: number): Promise<number> {
    const deleted = await changedCount(
      this.db,
      `DELETE FROM link_bulk_op_items WHERE (op_id, position) IN (
         SELECT i.op_id, i.position FROM link_bulk_ops o JOIN link_bulk_op_items i ON i.op_id = o.id
          WHERE o.ended_at < now() - make_interval(secs => $1::double precision / 1000)
          LIMIT $2)`,
      [retentionMs, limit],
    );
    return deleted;
  }

  /**
   * Names `opId` by the team's idempotency key, first in the transaction that then writes the
   * operation (the reference is checked at commit); or, when the key names an operation already,
   * answers that one and the request it was made for (a repeat of a request still in its
   * transaction waits here for it to end).
   */
  async claimKey(
    manager: EntityManager,
    owner: { teamId: string; environment: ApiEnvironment },
    key: string,
    requestHash: string,
    opId: string,
  ): Promise<{ claimed: true } | { claimed: false; opId: string; requestHash: string }> {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO link_bulk_op_keys (team_id, environment, key, request_hash, op_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team_id, environment, key) DO NOTHING RETURNING op_id`,
      [owner.teamId, owner.environment, key, requestHash, opId],
    );
    if (inserted.length > 0) return { claimed: true };
    const [earlier]: Array<{ opId: string; requestHash: string }> = await manager.query(
      `SELECT op_id AS "opId", request_hash AS "requestHash" FROM link_bulk_op_keys WHERE team_id = $1 AND environment = $2 AND key = $3`,
      [owner.teamId, owner.environment, key],
    );
    return { claimed: false, ...earlier };
  }
}
