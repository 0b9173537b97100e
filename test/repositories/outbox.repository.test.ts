import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { OutboxRepository } from '../../src/events/outbox.repository';
import { createTeam, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/**
 * OutboxRepository on a database of this file's own: the relay's claim and the retention sweep
 * read every team's events.
 */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: OutboxRepository;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_outbox');
  db = scratch.db;
  repo = new OutboxRepository(db);
});
afterAll(() => scratch?.drop());

interface EventFixture {
  id?: string;
  type?: string;
  environment?: string;
  subject?: string | null;
  createdAgo?: string;
  createdAt?: string;
  relayed?: boolean;
  traceParent?: string | null;
}

/** An event of the team; answers its id. */
async function event(team: Team, fixture: EventFixture = {}): Promise<string> {
  const id = fixture.id ?? randomUUID();
  await db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, subject_id, data_enc, created_at, relayed_at, trace_parent)
     VALUES ($1, $2, $3, $4, 'u', 'c', $5, 'x', COALESCE($6::timestamptz, clock_timestamp() - COALESCE($7, '0')::interval),
             CASE WHEN $8 THEN clock_timestamp() END, $9)`,
    [
      id,
      fixture.type ?? 'labtest.order.updated',
      team.teamId,
      fixture.environment ?? 'sandbox',
      fixture.subject ?? null,
      fixture.createdAt ?? null,
      fixture.createdAgo ?? null,
      fixture.relayed === true,
      fixture.traceParent ?? null,
    ],
  );
  return id;
}

async function endpoint(team: Team, columns: { environment?: string; disabled?: boolean; filter?: string[] | null } = {}): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc, disabled, filter_types) VALUES ($1, $2, $3, 'https://hooks.example.com', 'x', $4, $5)`,
    [id, team.teamId, columns.environment ?? 'sandbox', columns.disabled === true, columns.filter ?? null],
  );
  return id;
}

async function pipeline(team: Team, columns: { region?: string; prefixes?: string[] | null; enabled?: string[] } = {}): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO etl_pipelines (id, team_id, environment, region, event_type_prefixes, preferred, enabled, destinations_enc)
     VALUES ($1, $2, 'sandbox', $3, $4, 'rabbitmq', $5, 'x')`,
    [id, team.teamId, columns.region ?? 'us', columns.prefixes ?? null, columns.enabled ?? ['rabbitmq']],
  );
  return id;
}

/** The deliveries of the given events: [event id, endpoint or pipeline id, target]. */
async function deliveriesOf(eventIds: string[]): Promise<Array<[string, string, string]>> {
  const rows: Array<{ event_id: string; to: string; target: string }> = await db.query(
    `SELECT event_id, COALESCE(endpoint_id, pipeline_id) AS to, target FROM event_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY event_id, target, 2`,
    [eventIds],
  );
  return rows.map((row) => [row.event_id, row.to, row.target]);
}

const sorted = <T>(items: T[]) => [...items].sort();

describe('insertEvents', () => {
  it('adds nothing for an id already there, keeping the first row', async () => {
    const team = await createTeam(db);
    const id = randomUUID();
    const columns = (data: string) => [[id], ['labtest.order.updated'], [team.teamId], ['sandbox'], ['u'], ['c'], [data], ['order-1'], [null]];
    await db.transaction((manager) => repo.insertEvents(manager, columns('first'), '00-trace-01'));
    await db.transaction((manager) => repo.insertEvents(manager, columns('second')));
    expect(await db.query(`SELECT data_enc, subject_id, trace_parent FROM event_outbox WHERE id = $1`, [id])).toEqual([
      { data_enc: 'first', subject_id: 'order-1', trace_parent: '00-trace-01' },
    ]);
  });
});

describe('claimAndFanOut', () => {
  it('fans an event out to matching enabled endpoints only, and marks it relayed', async () => {
    const team = await createTeam(db, 'us');
    const all = await endpoint(team);
    const emptyFilter = await endpoint(team, { filter: [] });
    const matching = await endpoint(team, { filter: ['labtest.order.updated'] });
    await endpoint(team, { filter: ['labtest.result.critical'] });
    await endpoint(team, { disabled: true });
    await endpoint(team, { environment: 'production' });
    const id = await event(team, { traceParent: '00-abc-01' });

    const result = await repo.claimAndFanOut(10, [team.teamId]);

    expect(result.events).toBe(1);
    expect(sorted((await deliveriesOf([id])).map((row) => row.join(' ')))).toEqual(
      sorted([`${id} ${all} webhook`, `${id} ${emptyFilter} webhook`, `${id} ${matching} webhook`]),
    );
    expect(sorted(result.deliveryIds)).toEqual(
      sorted((await db.query(`SELECT id FROM event_deliveries WHERE event_id = $1`, [id])).map((row: { id: string }) => row.id)),
    );
    expect([...result.traceParents.values()]).toEqual(['00-abc-01', '00-abc-01', '00-abc-01']);
    const [row] = await db.query(`SELECT relayed_at IS NOT NULL AS relayed FROM event_outbox WHERE id = $1`, [id]);
    expect(row.relayed).toBe(true);
    // Relayed once: the next pass finds nothing.
    expect(await repo.claimAndFanOut(10, [team.teamId])).toEqual({ events: 0, deliveryIds: [], traceParents: new Map() });
  });

  it("fans out to a team's RabbitMQ pipeline only when enabled, of the team's region, and the type has one of its prefixes", async () => {
    const cases: Array<[string, Parameters<typeof pipeline>[1], boolean]> = [
      ['us', { prefixes: ['labtest.'] }, true],
      ['us', { prefixes: null }, true],
      ['us', { prefixes: ['daily.', 'labtest.order'] }, true],
      ['us', { prefixes: ['daily.'] }, false],
      ['eu', { region: 'us' }, false],
      ['us', { enabled: [] }, false],
    ];
    for (const [region, columns, expected] of cases) {
      const team = await createTeam(db, region);
      const pipelineId = await pipeline(team, { region, ...columns });
      const id = await event(team);
      await repo.claimAndFanOut(10, [team.teamId]);
      expect([JSON.stringify(columns), await deliveriesOf([id])]).toEqual([JSON.stringify(columns), expected ? [[id, pipelineId, 'rabbitmq']] : []]);
    }
  });

  it('takes the oldest events first, at most `limit`, and only the teams it is given', async () => {
    const team = await createTeam(db);
    const other = await createTeam(db);
    const oldest = await event(team, { createdAgo: '3 minutes' });
    const middle = await event(team, { createdAgo: '2 minutes' });
    const newest = await event(team, { createdAgo: '1 minute' });
    const others = await event(other, { createdAgo: '1 hour' });

    expect((await repo.claimAndFanOut(2, [team.teamId])).events).toBe(2);
    const relayed = await db.query(`SELECT id FROM event_outbox WHERE id = ANY($1::uuid[]) AND relayed_at IS NOT NULL ORDER BY created_at`, [
      [oldest, middle, newest, others],
    ]);
    expect(relayed.map((row: { id: string }) => row.id)).toEqual([oldest, middle]);
  });

  it('skips the events another relay holds locked instead of waiting for them', async () => {
    const team = await createTeam(db);
    const held = [await event(team, { createdAgo: '2 minutes' }), await event(team, { createdAgo: '1 minute' })];
    const free = await event(team);
    const other = db.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      await other.query(`SELECT id FROM event_outbox WHERE id = ANY($1::uuid[]) FOR UPDATE`, [held]);
      // Without SKIP LOCKED this would wait for the other transaction, which outlives the test.
      let timer: NodeJS.Timeout | undefined;
      const claim = await Promise.race([
        repo.claimAndFanOut(10, [team.teamId]),
        new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), 5_000))),
      ]);
      clearTimeout(timer);
      expect(claim).toMatchObject({ events: 1 });
      const [row] = await db.query(`SELECT relayed_at IS NOT NULL AS relayed FROM event_outbox WHERE id = $1`, [free]);
      expect(row.relayed).toBe(true);
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    // Once released, the held events go to the next pass.
    expect((await repo.claimAndFanOut(10, [team.teamId])).events).toBe(2);
  });

  it('two relays at once relay every event exactly once', async () => {
    const team = await createTeam(db);
    await endpoint(team);
    const ids: string[] = [];
    for (let index = 0; index < 40; index++) ids.push(await event(team));
    const results = await Promise.all([repo.claimAndFanOut(5, [team.teamId]), repo.claimAndFanOut(5, [team.teamId]), repo.claimAndFanOut(5, [team.teamId])]);
    let total = results.reduce((sum, result) => sum + result.events, 0);
    while (total < ids.length) {
      const more = await repo.claimAndFanOut(7, [team.teamId]);
      expect(more.events).toBeGreaterThan(0);
      total += more.events;
    }
    expect(total).toBe(40);
    const [row] = await db.query(`SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM event_deliveries WHERE team_id = $1`, [team.teamId]);
    expect(row).toEqual({ n: 40, events: 40 });
  });
});

describe('the lost-job sweep (overdue)', () => {
  /** A pending, enqueued delivery of a new event of the team, due at `dueAt` (SQL). */
  async function due(team: Team, dueAt: string): Promise<string> {
    const eventId = await event(team, { relayed: true });
    const endpointId = await endpoint(team);
    const id = randomUUID();
    await db.query(
      `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, next_attempt_at, enqueued_at)
       VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', 'labtest.order.updated', ${dueAt}, now())`,
      [id, eventId, endpointId, team.teamId],
    );
    return id;
  }

  it('pages through deliveries overdue at the same microsecond without losing or repeating one', async () => {
    const team = await createTeam(db);
    const tied: string[] = [];
    for (let index = 0; index < 5; index++) tied.push(await due(team, `'2026-01-01T00:00:00.123456Z'`));
    const earlier = await due(team, `'2026-01-01T00:00:00.123455Z'`);
    await due(team, `clock_timestamp() + interval '1 hour'`);

    const seen: string[] = [];
    let after = null;
    for (;;) {
      const page = await repo.overdue(1_000, 2, [team.teamId], after);
      if (page.length === 0) break;
      seen.push(...page.map((position) => position.id));
      after = page[page.length - 1];
    }
    expect(seen).toEqual([earlier, ...sorted(tied)]);
  });

  it('keeps a delivery within the grace out, and a delivery never enqueued to `unenqueued`', async () => {
    const team = await createTeam(db);
    await due(team, `clock_timestamp() - interval '1 second'`);
    const late = await due(team, `clock_timestamp() - interval '1 hour'`);
    expect((await repo.overdue(60_000, 10, [team.teamId])).map((position) => position.id)).toEqual([late]);

    await repo.markUnenqueued([late]);
    expect(await repo.overdue(60_000, 10, [team.teamId])).toEqual([]);
    expect(await repo.unenqueued(10, [team.teamId])).toEqual([late]);
    await repo.markEnqueued([late]);
    expect(await repo.unenqueued(10, [team.teamId])).toEqual([]);
  });

  it('markUnenqueued leaves a delivery that is no longer pending alone', async () => {
    const team = await createTeam(db);
    const id = await due(team, 'now()');
    await db.query(`UPDATE event_deliveries SET status = 'succeeded' WHERE id = $1`, [id]);
    await repo.markUnenqueued([id]);
    const [row] = await db.query(`SELECT enqueued_at IS NOT NULL AS enqueued FROM event_deliveries WHERE id = $1`, [id]);
    expect(row.enqueued).toBe(true);
  });
});

describe('latestPerSubject', () => {
  const types = ['labtest.order.updated', 'labtest.order.created'];
  const latest = (team: Team, filter = {}, limit = 10, environment = 'sandbox') =>
    db.transaction((manager) => repo.latestPerSubject(manager, { teamId: team.teamId, environment }, types, filter, limit));

  it("answers each subject's newest event of the types, oldest first, never another team's or environment's", async () => {
    const team = await createTeam(db);
    const other = await createTeam(db);
    await event(team, { subject: 'a', createdAt: '2026-01-01T00:00:00Z' });
    const a = await event(team, { subject: 'a', createdAt: '2026-01-03T00:00:00Z' });
    const b = await event(team, { subject: 'b', createdAt: '2026-01-02T00:00:00Z', type: 'labtest.order.created' });
    await event(team, { subject: 'b', createdAt: '2026-01-04T00:00:00Z', type: 'labtest.result.critical' });
    await event(team, { subject: 'c', createdAt: '2026-01-05T00:00:00Z', environment: 'production' });
    await event(team, { subject: null, createdAt: '2026-01-05T00:00:00Z' });
    await event(other, { subject: 'a', createdAt: '2026-01-09T00:00:00Z' });

    expect(await latest(team)).toEqual([
      { id: b, subject_id: 'b' },
      { id: a, subject_id: 'a' },
    ]);
    expect(await latest(team, {}, 1)).toEqual([{ id: b, subject_id: 'b' }]);
    expect(await latest(team, { subjectIds: ['a', 'zzz'] })).toEqual([{ id: a, subject_id: 'a' }]);
  });

  it("breaks a tie of created_at by the greater id, and filters by the latest event's time", async () => {
    const team = await createTeam(db);
    const at = '2026-02-01T00:00:00Z';
    const ids = [randomUUID(), randomUUID()].sort();
    for (const id of ids) await event(team, { id, subject: 'tied', createdAt: at });
    await event(team, { subject: 'older', createdAt: '2026-01-01T00:00:00Z' });
    const moved = await event(team, { subject: 'moved', createdAt: '2026-01-01T00:00:00Z' });
    const movedLater = await event(team, { subject: 'moved', createdAt: '2026-03-01T00:00:00Z' });

    expect(await latest(team, { subjectIds: ['tied'] })).toEqual([{ id: ids[1], subject_id: 'tied' }]);
    // 'moved' had an event in January, but its latest is in March: the window asks about the latest.
    expect(await latest(team, { startAt: new Date('2025-12-31T00:00:00Z'), endAt: new Date('2026-01-31T00:00:00Z') })).toEqual([
      expect.objectContaining({ subject_id: 'older' }),
    ]);
    expect(await latest(team, { startAt: new Date('2026-02-15T00:00:00Z') })).toEqual([{ id: movedLater, subject_id: 'moved' }]);
    expect(moved).not.toBe(movedLater);
  });
});

describe('redeliver', () => {
  it('makes an existing delivery due again as manual, adds one for an endpoint created since, and none for a disabled one', async () => {
    const team = await createTeam(db);
    const before = await endpoint(team);
    const id = await event(team);
    await repo.claimAndFanOut(10, [team.teamId]);
    await db.query(
      `UPDATE event_deliveries SET status = 'exhausted', status_reason = 'gave up', next_attempt_at = now() + interval '1 day' WHERE event_id = $1`,
      [id],
    );
    const since = await endpoint(team);
    await endpoint(team, { disabled: true });

    await db.transaction((manager) => repo.redeliver(manager, [id]));

    const rows = await db.query(
      `SELECT endpoint_id, status, status_reason, manual, enqueued_at IS NULL AS unenqueued, next_attempt_at <= clock_timestamp() AS due
         FROM event_deliveries WHERE event_id = $1 ORDER BY created_at, endpoint_id`,
      [id],
    );
    expect(sorted(rows.map((row: { endpoint_id: string }) => row.endpoint_id))).toEqual(sorted([before, since]));
    for (const row of rows) expect(row).toMatchObject({ status: 'pending', status_reason: null, manual: true, unenqueued: true, due: true });
  });
});

describe('deleteExpired (retention)', () => {
  it("deletes old relayed events, keeping each subject's newest, the unrelayed and those with a pending delivery", async () => {
    const team = await createTeam(db);
    const endpointId = await endpoint(team);
    const oldNoSubject = await event(team, { createdAgo: '40 days', relayed: true });
    const oldOfSubject = await event(team, { subject: 'order-1', createdAgo: '39 days', relayed: true });
    const newestOfSubject = await event(team, { subject: 'order-1', createdAgo: '38 days', relayed: true });
    const onlyOfSubject = await event(team, { subject: 'order-2', createdAgo: '40 days', relayed: true });
    const unrelayed = await event(team, { createdAgo: '40 days' });
    const pending = await event(team, { createdAgo: '40 days', relayed: true });
    const recent = await event(team, { createdAgo: '1 hour', relayed: true });
    const finished = await event(team, { createdAgo: '40 days', relayed: true });
    for (const [eventId, status] of [
      [pending, 'pending'],
      [finished, 'succeeded'],
    ]) {
      await db.query(
        `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, status)
         VALUES (gen_random_uuid(), $1, 'webhook', $2, $3, 'sandbox', 'labtest.order.updated', $4)`,
        [eventId, endpointId, team.teamId, status],
      );
    }

    expect(await repo.deleteExpired(30 * 86_400_000, 100)).toBe(3);

    const left = await db.query(`SELECT id FROM event_outbox WHERE team_id = $1`, [team.teamId]);
    expect(sorted(left.map((row: { id: string }) => row.id))).toEqual(sorted([newestOfSubject, onlyOfSubject, unrelayed, pending, recent]));
    expect(left.map((row: { id: string }) => row.id)).not.toContain(oldNoSubject);
    expect(left.map((row: { id: string }) => row.id)).not.toContain(oldOfSubject);
    // The finished event's delivery went with it.
    expect(await db.query(`SELECT id FROM event_deliveries WHERE event_id = $1`, [finished])).toEqual([]);
  });

  it('deletes at most `limit`, oldest first, and a tie of created_at keeps the greater id as newest', async () => {
    const team = await createTeam(db);
    const ids = [randomUUID(), randomUUID()].sort();
    for (const id of ids) await event(team, { id, subject: 'tied', createdAt: '2020-01-01T00:00:00Z', relayed: true });
    const oldest = await event(team, { createdAt: '2019-01-01T00:00:00Z', relayed: true });
    await event(team, { createdAt: '2019-06-01T00:00:00Z', relayed: true });

    expect(await repo.deleteExpired(86_400_000, 1)).toBe(1);
    expect(await db.query(`SELECT id FROM event_outbox WHERE id = $1`, [oldest])).toEqual([]);
    expect(await repo.deleteExpired(86_400_000, 100)).toBe(2);
    const left = await db.query(`SELECT id FROM event_outbox WHERE team_id = $1`, [team.teamId]);
    expect(left).toEqual([{ id: ids[1] }]);
  });
});
