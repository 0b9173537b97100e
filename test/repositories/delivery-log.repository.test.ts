import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DeliveryLogRepository, type LogPosition } from '../../src/events/delivery-log.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** DeliveryLogRepository: the management API's newest-first message and attempt listings of one endpoint. */
let db: DataSource;
let repo: DeliveryLogRepository;
let team: Team;
let other: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new DeliveryLogRepository(db);
  [team, other] = [await createTeam(db), await createTeam(db)];
});
afterAll(async () => {
  await dropTeams(db, [team, other]);
  await db.destroy();
});

async function endpoint(of: Team = team, disabled = false): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc, disabled) VALUES ($1, $2, 'sandbox', 'https://hooks.example.com', 'x', $3)`,
    [id, of.teamId, disabled],
  );
  return id;
}

async function event(of: Team = team, fields: { type?: string; subject?: string; createdAt?: string } = {}): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, subject_id, data_enc, created_at)
     VALUES ($1, $2, $3, 'sandbox', 'u', 'c', $4, 'sealed', COALESCE($5::timestamptz, clock_timestamp()))`,
    [id, fields.type ?? 'labtest.order.updated', of.teamId, fields.subject ?? null, fields.createdAt ?? null],
  );
  return id;
}

async function delivery(endpointId: string, eventId: string, fields: { createdAt?: string; status?: string; type?: string; of?: Team } = {}): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, status, created_at)
     VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', $5, $6, COALESCE($7::timestamptz, clock_timestamp()))`,
    [id, eventId, endpointId, (fields.of ?? team).teamId, fields.type ?? 'labtest.order.updated', fields.status ?? 'pending', fields.createdAt ?? null],
  );
  return id;
}

/** Every page of `limit` as the API walks them (one row more than the page says another follows), as event ids. */
async function walk<T extends { keyset_at: string }>(
  read: (after: LogPosition | undefined) => Promise<T[]>,
  limit: number,
  idOf: (row: T) => string,
  positionId: (row: T) => string,
) {
  const seen: string[] = [];
  let after: LogPosition | undefined;
  for (;;) {
    const rows = await read(after);
    seen.push(...rows.slice(0, limit).map(idOf));
    if (rows.length <= limit) return seen;
    const last = rows[limit - 1];
    after = { at: last.keyset_at, id: positionId(last) };
  }
}

describe('messages', () => {
  it("pages an endpoint's messages newest first across deliveries made at the same microsecond, never another endpoint's", async () => {
    const endpointId = await endpoint();
    const elsewhere = await endpoint();
    const expected: Array<{ delivery: string; event: string; at: string }> = [];
    for (const at of [
      '2026-03-01T00:00:00.000001Z',
      '2026-03-01T00:00:00.000001Z',
      '2026-03-01T00:00:00.000001Z',
      '2026-03-02T00:00:00Z',
      '2026-02-01T00:00:00Z',
    ]) {
      const eventId = await event();
      expected.push({ delivery: await delivery(endpointId, eventId, { createdAt: at }), event: eventId, at });
      await delivery(elsewhere, eventId, { createdAt: at });
    }
    expected.sort((a, b) => (a.at === b.at ? (a.delivery < b.delivery ? 1 : -1) : a.at < b.at ? 1 : -1));
    for (const limit of [1, 2, 5]) {
      const seen = await walk(
        (after) => repo.listMessages(endpointId, { limit, after }),
        limit,
        (row) => row.id,
        (row) => row.delivery_id,
      );
      expect(seen).toEqual(expected.map((item) => item.event));
    }
  });

  it('filters by status and event type', async () => {
    const endpointId = await endpoint();
    const failed = await delivery(endpointId, await event(), { status: 'exhausted', type: 'labtest.result.critical' });
    await delivery(endpointId, await event(), { status: 'succeeded', type: 'labtest.result.critical' });
    await delivery(endpointId, await event(), { status: 'exhausted' });
    const ids = async (options: object) => (await repo.listMessages(endpointId, { limit: 10, ...options })).map((row) => row.delivery_id);
    expect(await ids({ status: 'exhausted', eventTypes: ['labtest.result.critical'] })).toEqual([failed]);
    expect(await ids({ eventTypes: ['labtest.result.critical'] })).toHaveLength(2);
    expect(await ids({ status: 'exhausted' })).toHaveLength(2);
  });

  it('finds a message with its event only at its own endpoint', async () => {
    const endpointId = await endpoint();
    const eventId = await event();
    const deliveryId = await delivery(endpointId, eventId);
    expect(await repo.findMessage(endpointId, eventId)).toMatchObject({ delivery_id: deliveryId, id: eventId, data_enc: 'sealed', team_id: team.teamId });
    const elsewhere = await endpoint();
    expect(await repo.findMessage(elsewhere, eventId)).toBeNull();
    expect(await repo.hasMessage(elsewhere, eventId)).toBe(false);
    expect(await repo.findDeliveryId(endpointId, eventId)).toBe(deliveryId);
  });
});

describe('attempts', () => {
  it("pages an endpoint's attempts newest first across ties, by event when asked", async () => {
    const endpointId = await endpoint();
    const eventIds = [await event(), await event()];
    const attempts: Array<{ id: string; event: string; at: string }> = [];
    for (const [index, eventId] of eventIds.entries()) {
      const deliveryId = await delivery(endpointId, eventId);
      for (const number of [1, 2]) {
        const id = randomUUID();
        const at = number === 1 ? '2026-03-01T00:00:00.000001Z' : `2026-03-0${2 + index}T00:00:00Z`;
        await db.query(
          `INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, trigger, status, target, url, created_at)
           VALUES ($1, $2, $3, $4, $5, 'scheduled', 'failed', 'webhook', 'https://hooks.example.com', $6)`,
          [id, deliveryId, eventId, endpointId, number, at],
        );
        attempts.push({ id, event: eventId, at });
      }
    }
    attempts.sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1));
    const seen = await walk(
      (after) => repo.listAttempts(endpointId, { limit: 1, after }),
      1,
      (row) => row.id,
      (row) => row.id,
    );
    expect(seen).toEqual(attempts.map((item) => item.id));
    expect((await repo.listAttempts(endpointId, { limit: 10, eventId: eventIds[0] })).map((row) => row.id)).toEqual(
      attempts.filter((item) => item.event === eventIds[0]).map((item) => item.id),
    );
    expect(await repo.listAttempts(endpointId, { limit: 10, status: 'succeeded' })).toEqual([]);
  });
});

describe('operator views', () => {
  it('says whether a delivery can still be sent: disabled endpoint, pipeline without RabbitMQ', async () => {
    const live = await delivery(await endpoint(), await event());
    const disabled = await delivery(await endpoint(team, true), await event());
    expect(await repo.findDelivery(live)).toMatchObject({ id: live, target: 'webhook', target_disabled: false });
    expect(await repo.findDelivery(disabled)).toMatchObject({ target_disabled: true });

    const pipelineTeam = await createTeam(db);
    const pipelineId = randomUUID();
    await db.query(
      `INSERT INTO etl_pipelines (id, team_id, environment, region, preferred, enabled, destinations_enc) VALUES ($1, $2, 'sandbox', 'us', 'rabbitmq', '{rabbitmq}', 'x')`,
      [pipelineId, pipelineTeam.teamId],
    );
    const eventId = await event(pipelineTeam);
    const rabbit = randomUUID();
    await db.query(
      `INSERT INTO event_deliveries (id, event_id, target, pipeline_id, team_id, environment, event_type) VALUES ($1, $2, 'rabbitmq', $3, $4, 'sandbox', 'labtest.order.updated')`,
      [rabbit, eventId, pipelineId, pipelineTeam.teamId],
    );
    expect(await repo.findDelivery(rabbit)).toMatchObject({ target: 'rabbitmq', target_disabled: false });
    await db.query(`UPDATE etl_pipelines SET enabled = '{}' WHERE id = $1`, [pipelineId]);
    expect(await repo.findDelivery(rabbit)).toMatchObject({ target_disabled: true });
    await dropTeams(db, [pipelineTeam]);
  });

  it("shows a subject's events oldest first with their deliveries and attempts, of the team's own subject only", async () => {
    const subject = `order-${randomUUID()}`;
    const first = await event(team, { subject, createdAt: '2026-03-01T00:00:00Z' });
    const second = await event(team, { subject, createdAt: '2026-03-02T00:00:00Z' });
    await event(other, { subject });
    const deliveryId = await delivery(await endpoint(), second);
    await db.query(
      `INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, trigger, status, target)
       SELECT gen_random_uuid(), id, event_id, endpoint_id, 1, 'scheduled', 'succeeded', 'webhook' FROM event_deliveries WHERE id = $1`,
      [deliveryId],
    );
    const view = await repo.ofSubject(team.teamId, subject);
    expect(view.events.map((item) => item.id)).toEqual([first, second]);
    expect(view.deliveries.map((item) => [item.id, item.event_id])).toEqual([[deliveryId, second]]);
    expect(view.attempts.map((item) => [item.delivery_id, item.status])).toEqual([[deliveryId, 'succeeded']]);
    expect(await repo.ofSubject(team.teamId, 'no-such-subject')).toEqual({ events: [], deliveries: [], attempts: [] });
  });
});
