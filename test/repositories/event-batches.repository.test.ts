import { randomBytes, randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { createDataSource } from '../../src/db/data-source';
import { EventBatchFlusher } from '../../src/events/event-batches';
import { type BatchRow, EventBatchesRepository } from '../../src/events/event-batches.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/**
 * The relay's flush of a due batch whose item lists were written in both forms: the text
 * ciphertext of rows written before migration 1763790190000 and the binary one (compressed, then
 * encrypted) written since.
 * One event comes out, items in append order, a repeated key with its latest value.
 */
describe('event batch flush', () => {
  let db: DataSource;
  const cipher = new PhiCipher(randomBytes(32));

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL as string, 2);
    await db.initialize();
  });
  afterAll(() => db.destroy());

  it('reads item lists of both forms into one event', async () => {
    const org = randomUUID();
    const team = randomUUID();
    const batch = randomUUID();
    await db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, 'flush', 'scale')`, [org]);
    await db.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, 'flush', 'us')`, [team, org]);
    await db.query(
      `INSERT INTO event_batches (id, open, event_type, team_id, environment, user_id, client_user_id, batch_group, envelope_enc, items_field, item_count, flush_at)
       VALUES ($1, false, 'daily.data.heartrate.created', $2, 'sandbox', 'u-1', 'client-1', 'oura|ring', $3, 'data', 3, clock_timestamp())`,
      [batch, team, cipher.encryptJson({ data: [], source_id: 3, user_id: 'u-1' })],
    );
    await db.query(`INSERT INTO event_batch_items (batch_id, item_count, items_enc) VALUES ($1, 2, $2)`, [
      batch,
      cipher.encryptJson([
        ['|1', { timestamp: 'a', value: 60 }],
        ['|2', { timestamp: 'b', value: 61 }],
      ]),
    ]);
    await db.query(`INSERT INTO event_batch_items (batch_id, item_count, items) VALUES ($1, 2, $2)`, [
      batch,
      cipher.encryptBytes(
        deflateRawSync(
          Buffer.from(
            JSON.stringify([
              ['|1', { timestamp: 'a', value: 70 }],
              ['|3', { timestamp: 'c', value: 62 }],
            ]),
          ),
        ),
      ),
    ]);

    expect(await new EventBatchFlusher(new EventBatchesRepository(db), cipher).flushDue([team])).toBe(1);

    const [event] = await db.query(`SELECT id, event_type, data_enc FROM event_outbox WHERE team_id = $1`, [team]);
    expect(event.id).toBe(batch);
    expect(event.event_type).toBe('daily.data.heartrate.created');
    expect(cipher.decryptJson(event.data_enc)).toEqual({
      data: [
        { timestamp: 'a', value: 70 },
        { timestamp: 'b', value: 61 },
        { timestamp: 'c', value: 62 },
      ],
      source_id: 3,
      user_id: 'u-1',
    });
    expect(await db.query(`SELECT count(*)::int AS n FROM event_batches WHERE id = $1`, [batch])).toEqual([{ n: 0 }]);
    await db.query(`DELETE FROM orgs WHERE id = $1`, [org]);
  });
});

describe('EventBatchesRepository', () => {
  let db: DataSource;
  let repo: EventBatchesRepository;
  let team: Team;

  beforeAll(async () => {
    db = await testDatabase();
    repo = new EventBatchesRepository(db);
    team = await createTeam(db);
  });
  afterAll(async () => {
    await dropTeams(db, [team]);
    await db.destroy();
  });

  const row = (fields: Partial<BatchRow> = {}): BatchRow => ({
    id: randomUUID(),
    batchKey: `key-${randomUUID()}`,
    open: true,
    eventType: 'daily.data.heartrate.created',
    teamId: team.teamId,
    environment: 'sandbox',
    userId: 'u-1',
    clientUserId: 'c-1',
    batchGroup: 'oura|ring',
    envelopeEnc: 'envelope',
    itemsField: 'data',
    itemCount: 0,
    itemBytes: 0,
    dueInMs: 60_000,
    requestId: null,
    traceParent: null,
    ...fields,
  });
  const lockOpen = (batch: BatchRow) => db.transaction((manager) => repo.lockOpen(manager, batch));
  const due = () => db.transaction((manager) => repo.lockDue(manager, 100, [team.teamId]));
  const batch = async (id: string) =>
    (await db.query(`SELECT open, item_count, flush_at <= clock_timestamp() AS due FROM event_batches WHERE id = $1`, [id]))[0];

  it("a key's open batch is found again; once sealed, the key starts a new one that is not due yet", async () => {
    const first = row();
    expect(await lockOpen(first)).toEqual({ id: first.id, itemCount: 0, itemBytes: 0 });
    await db.transaction((manager) => repo.grow(manager, { id: first.id, addCount: 3, addBytes: 30, seal: false }));
    expect(await lockOpen({ ...first, id: randomUUID() })).toEqual({ id: first.id, itemCount: 3, itemBytes: 30 });

    await db.transaction((manager) => repo.grow(manager, { id: first.id, addCount: 1, addBytes: 10, seal: true }));
    expect(await batch(first.id)).toEqual({ open: false, item_count: 4, due: true });
    const second = { ...first, id: randomUUID() };
    expect((await lockOpen(second)).id).toBe(second.id);
    expect(await batch(second.id)).toEqual({ open: true, item_count: 0, due: false });
    expect((await due()).map((item) => item.id)).toContain(first.id);
    expect((await due()).map((item) => item.id)).not.toContain(second.id);
    await db.transaction((manager) => repo.replaceWithEvents(manager, [], [first.id, second.id]));
  });

  it('two appenders of one key: the second waits for the first and sees what it added', async () => {
    const open = row();
    const first = db.createQueryRunner();
    await first.connect();
    await first.startTransaction();
    await repo.lockOpen(first.manager, open);
    await repo.grow(first.manager, { id: open.id, addCount: 2, addBytes: 20, seal: false });
    const second = lockOpen({ ...open, id: randomUUID() });
    for (let waiting = 0; waiting < 1;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO event_batches%'`,
      );
    }
    await first.commitTransaction();
    await first.release();
    expect(await second).toEqual({ id: open.id, itemCount: 2, itemBytes: 20 });
    await db.transaction((manager) => repo.replaceWithEvents(manager, [], [open.id]));
  });

  it('the flush takes due batches in the order written, skipping one an appender holds', async () => {
    const [a, b, c] = [row({ dueInMs: 0 }), row({ dueInMs: 0 }), row({ dueInMs: 0 })];
    await db.transaction((manager) => repo.insert(manager, [a, b, c]));
    const appender = db.createQueryRunner();
    await appender.connect();
    await appender.startTransaction();
    await repo.lockOpen(appender.manager, { ...b, id: randomUUID() });
    try {
      expect((await due()).map((item) => item.id)).toEqual([a.id, c.id]);
    } finally {
      await appender.rollbackTransaction();
      await appender.release();
    }
    expect((await due()).map((item) => item.id)).toEqual([a.id, b.id, c.id]);
    expect(await db.transaction((manager) => repo.lockDue(manager, 2, [team.teamId]))).toHaveLength(2);
    // Another team's relay sees none of them.
    expect(await db.transaction((manager) => repo.lockDue(manager, 100, [randomUUID()]))).toEqual([]);
    await db.transaction((manager) => repo.replaceWithEvents(manager, [], [a.id, b.id, c.id]));
  });

  it("sealOpen seals the user's open batches of the types and group prefix only", async () => {
    const sealed = row({ batchGroup: 'backfill:oura|ring' });
    const otherGroup = row({ batchGroup: 'oura|ring' });
    const otherType = row({ batchGroup: 'backfill:oura|ring', eventType: 'daily.data.sleep.created' });
    const otherUser = row({ batchGroup: 'backfill:oura|ring', userId: 'u-2' });
    for (const item of [sealed, otherGroup, otherType, otherUser]) await lockOpen(item);
    await db.transaction((manager) =>
      repo.sealOpen(manager, {
        teamId: team.teamId,
        environment: 'sandbox',
        userId: 'u-1',
        eventTypes: ['daily.data.heartrate.created'],
        groupPrefix: 'backfill:',
      }),
    );
    expect(await batch(sealed.id)).toMatchObject({ open: false, due: true });
    for (const item of [otherGroup, otherType, otherUser]) expect(await batch(item.id)).toMatchObject({ open: true, due: false });
    await db.transaction((manager) =>
      repo.replaceWithEvents(
        manager,
        [],
        [sealed, otherGroup, otherType, otherUser].map((item) => item.id),
      ),
    );
  });

  it('replacing batches with events writes them in the order given, and an event id already there adds nothing', async () => {
    const batches = [row({ dueInMs: 0 }), row({ dueInMs: 0 })];
    await db.transaction((manager) => repo.insert(manager, batches));
    await db.transaction((manager) => repo.insert(manager, [{ ...batches[0], envelopeEnc: 'changed' }]));
    expect(await repo.pendingCount(team.teamId)).toBe(2);
    const event = (id: string, dataEnc: string) => ({
      id,
      eventType: 'daily.data.heartrate.created',
      teamId: team.teamId,
      environment: 'sandbox',
      userId: 'u-1',
      clientUserId: 'c-1',
      dataEnc,
      requestId: null,
      traceParent: null,
    });
    const [second, first] = [batches[1].id, batches[0].id];
    await db.transaction((manager) =>
      repo.replaceWithEvents(
        manager,
        [event(second, 'b'), event(first, 'a')],
        batches.map((item) => item.id),
      ),
    );
    await db.transaction((manager) => repo.replaceWithEvents(manager, [event(first, 'again')], [randomUUID()]));
    expect(await repo.pendingCount(team.teamId)).toBe(0);
    const events = await db.query(`SELECT id, data_enc FROM event_outbox WHERE id = ANY($1::uuid[]) ORDER BY created_at`, [[first, second]]);
    expect(events).toEqual([
      { id: second, data_enc: 'b' },
      { id: first, data_enc: 'a' },
    ]);
  });
});
