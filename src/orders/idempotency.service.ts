import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiError, badRequest, conflict } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { Scope } from './orders.repository';

/** An in-progress claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;

export interface IdempotencyOptions {
  /** The X-Idempotency-Key header, if sent. */
  key?: string;
  /** `X-Idempotency-Error: no-cache`: keep successes only. */
  cacheErrors: boolean;
}

/** Hands the work a way to store its success answer inside its own transaction. */
export type CompleteIdempotently = (manager: EntityManager, response: unknown) => Promise<void>;

/**
 * `X-Idempotency-Key` on order creation, as Junction does it: the first answer (status and body)
 * per team and key is stored and replayed for IDEMPOTENCY_KEY_TTL; the same key with another
 * body is refused (400); a duplicate while the first request still runs gets 409. Nothing is
 * stored when validation fails (422) or the server fails (5xx). A success is stored in the same
 * transaction as the order, so an order never exists without its stored answer.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async run<T>(scope: Scope, request: unknown, options: IdempotencyOptions, work: (complete: CompleteIdempotently) => Promise<T>): Promise<T> {
    const key = options.key;
    if (key === undefined) return work(async () => undefined);
    if (key.length === 0 || key.length > 255) throw badRequest('X-Idempotency-Key must be 1 to 255 characters.');
    const hash = fingerprint(request);
    const claimed = await this.claim(scope, key, hash);
    if (!claimed) return this.replay(scope, key, hash) as Promise<T>;
    try {
      return await work((manager, response) => this.store(manager, scope, key, HttpStatus.OK, response));
    } catch (error) {
      const status = error instanceof HttpException ? error.getStatus() : 500;
      const cacheable = options.cacheErrors && status >= 400 && status < 500 && status !== HttpStatus.UNPROCESSABLE_ENTITY;
      if (cacheable) await this.store(this.db.manager, scope, key, status, (error as HttpException).getResponse());
      else await this.release(scope, key);
      throw error;
    }
  }

  /** Takes the key (new, expired, or abandoned in progress); false when someone else holds it. */
  private async claim(scope: Scope, key: string, hash: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO idempotency_keys (team_id, environment, key, request_hash, state)
       VALUES ($1, $2, $3, $4, 'in_progress')
       ON CONFLICT (team_id, environment, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, state = 'in_progress', status_code = NULL, response = NULL,
             created_at = clock_timestamp()
         WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $5)
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.created_at < clock_timestamp() - make_interval(secs => $6))
       RETURNING key`,
      [scope.teamId, scope.environment, key, hash, this.config.orders.idempotencyKeyTtlMs / 1000, ABANDONED_AFTER_MS / 1000],
    );
    return rows.length > 0;
  }

  private async replay(scope: Scope, key: string, hash: string): Promise<unknown> {
    const [row]: Array<{ request_hash: string; state: string; status_code: number | null; response: unknown }> = await this.db.query(
      `SELECT request_hash, state, status_code, response FROM idempotency_keys WHERE team_id = $1 AND environment = $2 AND key = $3`,
      [scope.teamId, scope.environment, key],
    );
    if (!row) throw conflict('A request with this X-Idempotency-Key is in progress; retry shortly.');
    if (row.request_hash !== hash) {
      throw badRequest('This X-Idempotency-Key was already used with a different request; use a new key for a new request.');
    }
    if (row.state !== 'done' || row.status_code === null) {
      throw conflict('A request with this X-Idempotency-Key is in progress; retry shortly.');
    }
    if (row.status_code >= 400) {
      const body = row.response as { detail?: unknown } | null;
      throw new ApiError(row.status_code, body && typeof body === 'object' && 'detail' in body ? body.detail : body);
    }
    return row.response;
  }

  private async store(manager: EntityManager, scope: Scope, key: string, status: number, response: unknown): Promise<void> {
    await manager.query(
      `UPDATE idempotency_keys SET state = 'done', status_code = $4, response = $5::jsonb
        WHERE team_id = $1 AND environment = $2 AND key = $3`,
      [scope.teamId, scope.environment, key, status, JSON.stringify(response)],
    );
  }

  private async release(scope: Scope, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE team_id = $1 AND environment = $2 AND key = $3 AND state = 'in_progress'`, [
      scope.teamId,
      scope.environment,
      key,
    ]);
  }
}

/** SHA-256 of the request in canonical JSON (keys sorted), so key order does not matter. */
export function fingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
