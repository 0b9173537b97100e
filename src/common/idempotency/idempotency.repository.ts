import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { changedCount } from '../write-statements';

/** Whose key: a team in one environment. */
export interface IdempotencyScope {
  teamId: string;
  environment: string;
}

/** A stored answer (`idempotency_keys`). */
export interface StoredAnswer {
  request_hash: string;
  state: string;
  status_code: number | null;
  /** The answer's body, sealed (PhiCipher.encryptJson). */
  response_enc: string | null;
  /** An answer stored in plaintext before answers were sealed (gone after the key's TTL). */
  response: unknown;
}

/** A stored result reference (`appointment_idempotency_keys`): which subject the key acted on and what it made. */
export interface StoredResult {
  subjectId: string;
  requestHash: string;
  resultId: string;
}

/**
 * The idempotency module's tables: `idempotency_keys` (stored answers: status and body, claimed
 * while the first request runs) and `appointment_idempotency_keys` (stored result ids of PSC
 * bookings: the order booked and the appointment made).
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Takes the key for a new request: inserts it in progress, or takes over an expired one (older
   * than `ttlSeconds`) or one abandoned in progress (older than `abandonedSeconds`). False when
   * someone else holds it.
   */
  async claim(scope: IdempotencyScope, key: string, requestHash: string, ttlSeconds: number, abandonedSeconds: number): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO idempotency_keys (team_id, environment, key, request_hash, state)
       VALUES ($1, $2, $3, $4, 'in_progress')
       ON CONFLICT (team_id, environment, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, state = 'in_progress', status_code = NULL, response = NULL, response_enc = NULL,
             created_at = clock_timestamp()
         WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $5)
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $6))
       RETURNING key`,
      [scope.teamId, scope.environment, key, requestHash, ttlSeconds, abandonedSeconds],
    );
    return rows.length > 0;
  }

  async findAnswer(scope: IdempotencyScope, key: string): Promise<StoredAnswer | null> {
    const [row]: StoredAnswer[] = await this.db.query(
      `SELECT request_hash, state, status_code, response_enc, response FROM idempotency_keys WHERE team_id = $1 AND environment = $2 AND key = $3`,
      [scope.teamId, scope.environment, key],
    );
    return row ?? null;
  }

  /** Stores the sealed answer of the claimed key (in the caller's transaction for a success). */
  async storeAnswer(manager: EntityManager | undefined, scope: IdempotencyScope, key: string, status: number, sealedResponse: string): Promise<void> {
    await (manager ?? this.db.manager).query(
      `UPDATE idempotency_keys SET state = 'done', status_code = $4, response_enc = $5, response = NULL
        WHERE team_id = $1 AND environment = $2 AND key = $3`,
      [scope.teamId, scope.environment, key, status, sealedResponse],
    );
  }

  /** Gives a claimed key back (the request failed in a way that is not stored). */
  async release(scope: IdempotencyScope, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE team_id = $1 AND environment = $2 AND key = $3 AND state = 'in_progress'`, [
      scope.teamId,
      scope.environment,
      key,
    ]);
  }

  /** The result a key made within the last `ttlSeconds`, if any. */
  async findResult(scope: IdempotencyScope, key: string, ttlSeconds: number): Promise<StoredResult | null> {
    const [row]: Array<{ order_id: string; request_hash: string; appointment_id: string }> = await this.db.query(
      `SELECT order_id, request_hash, appointment_id FROM appointment_idempotency_keys
        WHERE team_id = $1 AND environment = $2 AND key = $3 AND created_at > clock_timestamp() - make_interval(secs => $4)`,
      [scope.teamId, scope.environment, key, ttlSeconds],
    );
    return row ? { subjectId: row.order_id, requestHash: row.request_hash, resultId: row.appointment_id } : null;
  }

  /** Records what a key made; replaces a row older than `ttlSeconds`, keeps a live one. */
  async storeResult(scope: IdempotencyScope, key: string, result: StoredResult, ttlSeconds: number): Promise<void> {
    await this.db.query(
      `INSERT INTO appointment_idempotency_keys (team_id, environment, key, order_id, request_hash, appointment_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (team_id, environment, key) DO UPDATE
         SET order_id = EXCLUDED.order_id, request_hash = EXCLUDED.request_hash, appointment_id = EXCLUDED.appointment_id, created_at = clock_timestamp()
         WHERE appointment_idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $7)`,
      [scope.teamId, scope.environment, key, result.subjectId, result.requestHash, result.resultId, ttlSeconds],
    );
  }

  // ------------------------------------------------------------------------------------------
  // Retention: an expired key is already treated as unused, so deleting it changes no answer.

  /** Deletes up to `limit` stored answers older than `ttlMs`; returns how many. */
  deleteExpiredAnswers(ttlMs: number, limit: number): Promise<number> {
    return this.deleteOlderThan('idempotency_keys', ttlMs, limit);
  }

  /** Deletes up to `limit` stored results older than `ttlMs`; returns how many. */
  deleteExpiredResults(ttlMs: number, limit: number): Promise<number> {
    return this.deleteOlderThan('appointment_idempotency_keys', ttlMs, limit);
  }

  /** `table` is one of this module's two tables, never user input. */
  private async deleteOlderThan(table: 'idempotency_keys' | 'appointment_idempotency_keys', ttlMs: number, limit: number): Promise<number> {
    const count = await changedCount(
      this.db,
      `DELETE FROM ${table} WHERE ctid IN (
         SELECT ctid FROM ${table} WHERE created_at < clock_timestamp() - make_interval(secs => $1) LIMIT $2)`,
      [ttlMs / 1000, limit],
    );
    return count;
  }
}
