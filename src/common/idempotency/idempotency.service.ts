import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PhiCipher } from '../crypto';
import { ApiError, conflict } from '../errors';
import { fingerprint, type IdempotencyHeader, keyUsedForAnotherRequest, requireValidKey } from './idempotency-key';
import { type IdempotencyScope, IdempotencyRepository, type StoredResult } from './idempotency.repository';

/** An in-progress claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;

/** How a route keeps its keys: the header it reads them from and how long a key is remembered. */
export interface IdempotencyPolicy {
  header: IdempotencyHeader;
  ttlMs: number;
}

export interface IdempotencyOptions {
  /** The idempotency key header, if sent. */
  key?: string;
  /** `X-Idempotency-Error: no-cache`: keep successes only. */
  cacheErrors: boolean;
}

/**
 * Hands the work a way to store its success answer inside its own transaction; `run` passes null
 * when the request sent no key (nothing to store: the work may then write without a transaction).
 */
export type CompleteIdempotently = (manager: EntityManager, response: unknown) => Promise<void>;

/**
 * Every idempotent route, two ways of remembering a key (validity and request fingerprint shared):
 *
 * - `run` stores the answer, sealed with the PHI key, as Junction does on order creation: the first answer (status and
 *   body) per team and key is replayed for the policy's TTL; the same key with another body is
 *   refused (400); a duplicate while the first request still runs gets 409. Nothing is stored when
 *   validation fails (422) or the server fails (5xx). A success is stored in the same transaction
 *   as the work's rows, so they never exist without their stored answer.
 * - `earlierResult` / `rememberResult` store what the key made (PSC booking: the appointment of
 *   the order): a retry is answered from the result as it is now, and concurrent retries are made
 *   one by the caller's own means (a Temporal update id derived from the key).
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly cipher: PhiCipher,
  ) {}

  async run<T>(
    scope: IdempotencyScope,
    request: unknown,
    options: IdempotencyOptions,
    policy: IdempotencyPolicy,
    work: (complete: CompleteIdempotently | null) => Promise<T>,
  ): Promise<T> {
    const key = options.key;
    if (key === undefined) return work(null);
    requireValidKey(key, policy.header);
    const hash = fingerprint(request);
    const claimed = await this.keys.claim(scope, key, hash, policy.ttlMs / 1000, ABANDONED_AFTER_MS / 1000);
    if (!claimed) return this.replay(scope, key, hash, policy) as Promise<T>;
    try {
      return await work((manager, response) => this.keys.storeAnswer(manager, scope, key, HttpStatus.OK, this.cipher.encryptJson(response)));
    } catch (error) {
      const status = error instanceof HttpException ? error.getStatus() : 500;
      const cacheable = options.cacheErrors && status >= 400 && status < 500 && status !== HttpStatus.UNPROCESSABLE_ENTITY;
      if (cacheable) await this.keys.storeAnswer(undefined, scope, key, status, this.cipher.encryptJson((error as HttpException).getResponse()));
      else await this.keys.release(scope, key);
      throw error;
    }
  }

  /**
   * The id of what an earlier request with this key made, when the key was used within the
   * policy's TTL for this very request (subject and fingerprint); null when the key is new (or
   * none was sent). 400 when the key was used for another request.
   */
  async earlierResult(
    scope: IdempotencyScope,
    key: string | undefined,
    request: Omit<StoredResult, 'resultId'>,
    policy: IdempotencyPolicy,
  ): Promise<string | null> {
    if (key === undefined) return null;
    requireValidKey(key, policy.header);
    const row = await this.keys.findResult(scope, key, policy.ttlMs / 1000);
    if (!row) return null;
    if (row.subjectId !== request.subjectId || row.requestHash !== request.requestHash) throw keyUsedForAnotherRequest(policy.header, 'booking');
    return row.resultId;
  }

  /** Remembers what the request with this key made (after it made it). */
  async rememberResult(scope: IdempotencyScope, key: string, result: StoredResult, policy: IdempotencyPolicy): Promise<void> {
    await this.keys.storeResult(scope, key, result, policy.ttlMs / 1000);
  }

  private async replay(scope: IdempotencyScope, key: string, hash: string, policy: IdempotencyPolicy): Promise<unknown> {
    const row = await this.keys.findAnswer(scope, key);
    if (!row) throw conflict(`A request with this ${policy.header} is in progress; retry shortly.`);
    if (row.request_hash !== hash) throw keyUsedForAnotherRequest(policy.header, 'request');
    if (row.state !== 'done' || row.status_code === null) {
      throw conflict(`A request with this ${policy.header} is in progress; retry shortly.`);
    }
    // Answers are stored sealed (they carry the patient's details); one stored before that in plaintext.
    const response = row.response_enc !== null ? this.cipher.decryptJson<unknown>(row.response_enc) : row.response;
    if (row.status_code >= 400) {
      const body = response as { detail?: unknown } | null;
      throw new ApiError(row.status_code, body && typeof body === 'object' && 'detail' in body ? body.detail : body);
    }
    return response;
  }
}
