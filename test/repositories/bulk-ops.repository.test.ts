import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { LinkBulkOpIdentity } from '../../workflows/contract';
import { BulkOpsRepository } from '../../src/connections/bulk-ops.repository';
import { createTeam, createUser, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** BulkOpsRepository (Link Migration operations) on a database of this file's own: its retention reads every team's. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: BulkOpsRepository;
let team: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_bulk_ops');
  db = scratch.db;
  repo = new BulkOpsRepository(db);
  team = await createTeam(db);
});
afterAll(() => scratch?.drop());

const identity = (of: Team = team): LinkBulkOpIdentity =>
  ({ opId: randomUUID(), teamId: of.teamId, environment: 'sandbox', region: 'us', type: 'link_bulk_import', provider: 'oura' }) as LinkBulkOpIdentity;

async function operation(users: string[], of: Team = team): Promise<LinkBulkOpIdentity> {
  const op = identity(of);
  await db.transaction((manager) =>
    repo.insert(
      op,
      users.map((userId) => ({ userId, credentialsEnc: `tokens-${userId}`, providerUserId: null })),
      manager,
    ),
  );
  return op;
}

describe('an operation', () => {
  it('processes its users in submission order, each outcome once, forgetting their tokens', async () => {
    const users = [await createUser(db, team.teamId), await createUser(db, team.teamId), await createUser(db, team.teamId)];
    const op = await operation(users);
    expect((await repo.pending(op.opId, 2)).map((item) => item.userId)).toEqual(users.slice(0, 2));

    await repo.finishItem(op.opId, 1, 'done', null);
    await repo.finishItem(op.opId, 1, 'failed', 'late retry');
    await repo.finishItem(op.opId, 2, 'failed', 'refused');
    expect(await repo.outcomes(op.opId)).toEqual({ done: [users[0]], failed: [users[1]] });
    expect(await db.query(`SELECT position, credentials_enc FROM link_bulk_op_items WHERE op_id = $1 ORDER BY position`, [op.opId])).toEqual([
      { position: 1, credentials_enc: null },
      { position: 2, credentials_enc: null },
      { position: 3, credentials_enc: `tokens-${users[2]}` },
    ]);
    expect(await repo.remaining(op.opId)).toBe(1);
    expect(await repo.find(op.opId)).toMatchObject({ status: 'in_progress', pending: 1, processed: 2 });
  });

  it('closes once, keeping the count of users processed by then', async () => {
    const users = [await createUser(db, team.teamId), await createUser(db, team.teamId)];
    const op = await operation(users);
    await repo.finishItem(op.opId, 1, 'done', null);
    expect(await repo.close(op.opId)).toBe('success');
    const closed = await repo.find(op.opId);
    expect(closed).toMatchObject({ status: 'success', pending: 0, processed: 1 });
    await repo.finishItem(op.opId, 2, 'done', null);
    expect(await repo.close(op.opId)).toBe('success');
    expect(await repo.find(op.opId)).toMatchObject({ processed: 1, endedAt: closed?.endedAt });
    expect(await repo.close(randomUUID())).toBe('aborted');
  });

  it('a workflow whose operation never committed writes it aborted; one whose operation is being written waits for it', async () => {
    const lost = identity();
    expect(await repo.openOrAbort(lost)).toBe('aborted');
    expect(await repo.find(lost.opId)).toMatchObject({ status: 'aborted', processed: 0 });
    expect(await repo.openOrAbort(lost)).toBe('aborted');

    const op = identity();
    const api = db.createQueryRunner();
    await api.connect();
    await api.startTransaction();
    await repo.insert(op, [{ userId: await createUser(db, team.teamId), credentialsEnc: null, providerUserId: null }], api.manager);
    const opened = repo.openOrAbort(op);
    for (let waiting = 0; waiting < 1;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    }
    await api.commitTransaction();
    await api.release();
    expect(await opened).toBe('open');
  });
});

describe('idempotency keys', () => {
  it("a key names the first operation; a repeat gets that one and its request's hash; another team's key is its own", async () => {
    const key = `key-${randomUUID()}`;
    const owner = { teamId: team.teamId, environment: 'sandbox' as const };
    const first = identity();
    expect(
      await db.transaction(async (manager) => {
        const claim = await repo.claimKey(manager, owner, key, 'h1', first.opId);
        await repo.insert(first, [], manager);
        return claim;
      }),
    ).toEqual({ claimed: true });
    expect(await db.transaction((manager) => repo.claimKey(manager, owner, key, 'h2', randomUUID()))).toEqual({
      claimed: false,
      opId: first.opId,
      requestHash: 'h1',
    });

    const other = await createTeam(db);
    const theirs = identity(other);
    expect(
      await db.transaction(async (manager) => {
        const claim = await repo.claimKey(manager, { teamId: other.teamId, environment: 'sandbox' }, key, 'h3', theirs.opId);
        await repo.insert(theirs, [], manager);
        return claim;
      }),
    ).toEqual({ claimed: true });
  });

  it('a key claimed for an operation that is then not written fails its transaction at commit', async () => {
    await expect(
      db.transaction((manager) => repo.claimKey(manager, { teamId: team.teamId, environment: 'sandbox' }, `key-${randomUUID()}`, 'h', randomUUID())),
    ).rejects.toThrow(/foreign key/);
  });
});

describe('the list', () => {
  it("pages the team's operations newest first across operations started at the same microsecond", async () => {
    const lister = await createTeam(db);
    const ops: string[] = [];
    for (let i = 0; i < 5; i++) ops.push((await operation([], lister)).opId);
    await db.query(`UPDATE link_bulk_ops SET started_at = '2026-05-01T00:00:00.000001Z' WHERE id = ANY($1::uuid[])`, [ops.slice(0, 3)]);
    await db.query(`UPDATE link_bulk_ops SET started_at = '2026-05-02T00:00:00Z' WHERE id = ANY($1::uuid[])`, [ops.slice(3)]);
    await operation([]);

    const seen: string[] = [];
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const page: Array<{ id: string; keysetAt: string }> = await repo.page(lister.teamId, 'sandbox', after, 2);
      if (page.length === 0) break;
      seen.push(...page.map((row) => row.id));
      after = { at: page[page.length - 1].keysetAt, id: page[page.length - 1].id };
    }
    expect(seen).toEqual([...ops.slice(3).sort().reverse(), ...ops.slice(0, 3).sort().reverse()]);
  });
});

describe('retention', () => {
  it('deletes the users of operations that ended long enough ago; the operation keeps its counts', async () => {
    const users = [await createUser(db, team.teamId), await createUser(db, team.teamId)];
    const [old, recent, running] = [await operation(users), await operation(users), await operation(users)];
    for (const op of [old, recent]) {
      await repo.finishItem(op.opId, 1, 'done', null);
      await repo.close(op.opId);
    }
    await db.query(`UPDATE link_bulk_ops SET ended_at = now() - interval '40 days' WHERE id = $1`, [old.opId]);

    expect(await repo.deleteExpiredItems(30 * 86_400_000, 1)).toBe(1);
    expect(await repo.deleteExpiredItems(30 * 86_400_000, 10)).toBe(1);
    expect(await repo.deleteExpiredItems(30 * 86_400_000, 10)).toBe(0);
    expect(await repo.find(old.opId)).toMatchObject({ status: 'success', processed: 1, pending: 0 });
    expect(await repo.remaining(recent.opId)).toBe(1);
    expect(await repo.remaining(running.opId)).toBe(2);
  });
});
