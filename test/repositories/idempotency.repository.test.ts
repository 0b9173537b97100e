import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { IdempotencyRepository, type IdempotencyScope } from '../../src/common/idempotency/idempotency.repository';
import { createOrder, createTeam, migratedScratchDatabase } from '../helpers/repository-db';

/** IdempotencyRepository on a database of this file's own: its retention deletes read every team's keys. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: IdempotencyRepository;
let scope: IdempotencyScope;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_idempotency');
  db = scratch.db;
  repo = new IdempotencyRepository(db);
  scope = { teamId: (await createTeam(db)).teamId, environment: 'sandbox' };
});
afterAll(() => scratch?.drop());

const DAY = 86_400;
const age = (table: string, key: string, interval: string) =>
  db.query(`UPDATE ${table} SET created_at = clock_timestamp() - $2::interval WHERE key = $1`, [key, interval]);

describe('stored answers', () => {
  it('a key is claimed once; another environment or team has a key of its own', async () => {
    const key = randomUUID();
    expect(await repo.claim(scope, key, 'h1', DAY, 60)).toBe(true);
    expect(await repo.claim(scope, key, 'h1', DAY, 60)).toBe(false);
    expect(await repo.claim({ ...scope, environment: 'production' }, key, 'h1', DAY, 60)).toBe(true);
    const other = await createTeam(db);
    expect(await repo.claim({ teamId: other.teamId, environment: 'sandbox' }, key, 'h1', DAY, 60)).toBe(true);
    expect(await repo.findAnswer(scope, key)).toEqual({ request_hash: 'h1', state: 'in_progress', status_code: null, response_enc: null, response: null });
  });

  it('five concurrent claims of one key from five connections: exactly one wins', async () => {
    const key = randomUUID();
    const claims = await Promise.all(Array.from({ length: 5 }, (_, i) => repo.claim(scope, key, `h${i}`, DAY, 60)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await repo.findAnswer(scope, key))?.request_hash).toBe(`h${claims.indexOf(true)}`);
  });

  it('an answer stored is found; an expired key is taken over with its answer cleared', async () => {
    const key = randomUUID();
    await repo.claim(scope, key, 'h1', DAY, 60);
    await repo.storeAnswer(undefined, scope, key, 201, 'sealed-answer');
    expect(await repo.findAnswer(scope, key)).toEqual({ request_hash: 'h1', state: 'done', status_code: 201, response_enc: 'sealed-answer', response: null });
    // Done and older than the abandonment age but within the TTL: still held.
    await age('idempotency_keys', key, '2 hours');
    expect(await repo.claim(scope, key, 'h2', DAY, 60)).toBe(false);
    await age('idempotency_keys', key, '25 hours');
    expect(await repo.claim(scope, key, 'h2', DAY, 60)).toBe(true);
    expect(await repo.findAnswer(scope, key)).toEqual({ request_hash: 'h2', state: 'in_progress', status_code: null, response_enc: null, response: null });
  });

  it('a key abandoned in progress is taken over after the abandonment age, not before', async () => {
    const key = randomUUID();
    await repo.claim(scope, key, 'h1', DAY, 60);
    await age('idempotency_keys', key, '30 seconds');
    expect(await repo.claim(scope, key, 'h2', DAY, 60)).toBe(false);
    await age('idempotency_keys', key, '2 minutes');
    expect(await repo.claim(scope, key, 'h2', DAY, 60)).toBe(true);
  });

  it('release gives back a key in progress, never a stored answer', async () => {
    const running = randomUUID();
    const done = randomUUID();
    await repo.claim(scope, running, 'h', DAY, 60);
    await repo.claim(scope, done, 'h', DAY, 60);
    await repo.storeAnswer(undefined, scope, done, 200, 'sealed-answer');
    await repo.release(scope, running);
    await repo.release(scope, done);
    expect(await repo.findAnswer(scope, running)).toBeNull();
    expect((await repo.findAnswer(scope, done))?.state).toBe('done');
  });
});

describe('stored results (PSC bookings)', () => {
  it('keeps a live result, replaces an expired one, and finds only what is within the TTL', async () => {
    const key = randomUUID();
    const [first, second] = [await createOrder(db, scope.teamId), await createOrder(db, scope.teamId)];
    const result = (orderId: string) => ({ subjectId: orderId, requestHash: `hash-${orderId}`, resultId: randomUUID() });
    const kept = result(first);
    await repo.storeResult(scope, key, kept, DAY);
    await repo.storeResult(scope, key, result(second), DAY);
    expect(await repo.findResult(scope, key, DAY)).toEqual(kept);

    await age('appointment_idempotency_keys', key, '2 days');
    expect(await repo.findResult(scope, key, DAY)).toBeNull();
    const replaced = result(second);
    await repo.storeResult(scope, key, replaced, DAY);
    expect(await repo.findResult(scope, key, DAY)).toEqual(replaced);
  });
});

describe('retention', () => {
  it('deletes answers older than the TTL, at most `limit` a pass, and no younger one', async () => {
    const old = [randomUUID(), randomUUID(), randomUUID()];
    const young = randomUUID();
    for (const key of [...old, young]) await repo.claim(scope, key, 'h', DAY, 60);
    for (const key of old) await age('idempotency_keys', key, '3 days');
    await age('idempotency_keys', young, '23 hours');

    expect(await repo.deleteExpiredAnswers(2 * DAY * 1000, 2)).toBe(2);
    expect(await repo.deleteExpiredAnswers(2 * DAY * 1000, 100)).toBe(1);
    expect(await repo.deleteExpiredAnswers(2 * DAY * 1000, 100)).toBe(0);
    expect(await repo.findAnswer(scope, young)).not.toBeNull();
  });

  it('deletes expired results and keeps live ones', async () => {
    const [expired, live] = [randomUUID(), randomUUID()];
    const orderId = await createOrder(db, scope.teamId);
    for (const key of [expired, live]) await repo.storeResult(scope, key, { subjectId: orderId, requestHash: 'h', resultId: randomUUID() }, DAY);
    await age('appointment_idempotency_keys', expired, '3 days');
    expect(await repo.deleteExpiredResults(DAY * 1000, 100)).toBe(1);
    expect(await repo.findResult(scope, live, DAY)).not.toBeNull();
  });
});
