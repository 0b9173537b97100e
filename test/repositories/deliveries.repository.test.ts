import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { DeliveriesRepository } from '../../src/events/deliveries.repository';
import type { Claim, DeliveryContext, FinishedAttempt } from '../../src/events/delivery-attempts.types';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/**
 * An attempt's row is written once, with its outcome: the claim only counts the attempt on the
 * delivery (its lease and trigger), the outcome writes the row, and an attempt whose outcome never
 * came is written `interrupted` by the claim that next takes (or cancels) the delivery.
 */
let db: DataSource;
let tenant: Team;
let repo: DeliveriesRepository;
const cipher = new PhiCipher(randomBytes(32));

beforeAll(async () => {
  db = await testDatabase();
  tenant = await createTeam(db);
  repo = new DeliveriesRepository(db);
});
afterAll(async () => {
  await dropTeams(db, [tenant]);
  await db?.destroy();
});

const URL = 'https://hooks.example.com/attempts';

async function endpoint(): Promise<string> {
  const [row] = await db.query(`INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc) VALUES ($1, $2, 'sandbox', $3, 'x') RETURNING id`, [
    randomUUID(),
    tenant.teamId,
    URL,
  ]);
  return row.id;
}

/** A pending webhook delivery, due now, of a new event. */
async function delivery(endpointId: string, columns: { manual?: boolean } = {}): Promise<string> {
  const eventId = randomUUID();
  await db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc, relayed_at)
     VALUES ($1, 'labtest.order.updated', $2, 'sandbox', 'u', 'c', $3, now())`,
    [eventId, tenant.teamId, cipher.encryptJson({})],
  );
  const id = randomUUID();
  await db.query(
    `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, manual, enqueued_at)
     VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', 'labtest.order.updated', $5, now())`,
    [id, eventId, endpointId, tenant.teamId, columns.manual === true],
  );
  return id;
}

function claimed(claim: Claim): DeliveryContext {
  if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(claim)}`);
  return claim.context;
}

function outcome(context: DeliveryContext, status: 'succeeded' | 'failed', delivery: FinishedAttempt['delivery']): FinishedAttempt {
  return {
    claimed: context,
    status,
    statusCode: status === 'succeeded' ? 200 : 500,
    sealedResponseExcerpt: null,
    error: status === 'succeeded' ? null : 'HTTP 500',
    latencyMs: 12,
    delivery,
  };
}

interface AttemptRecord {
  attempt_number: number;
  trigger: string;
  status: string;
  url: string | null;
  response_status_code: number | null;
  error: string | null;
  created_at: string;
  finished: boolean;
}

/** The delivery's attempts as the listings show them: rows, and a first attempt that succeeded, written on the delivery row. */
async function attempts(deliveryId: string): Promise<AttemptRecord[]> {
  return db.query(
    `SELECT attempt_number, trigger, status, url, response_status_code, error, created_at::text AS created_at,
            finished_at IS NOT NULL AS finished
       FROM (SELECT attempt_number, trigger, status, url, response_status_code, error, created_at, finished_at
               FROM event_delivery_attempts WHERE delivery_id = $1
             UNION ALL
             SELECT 1, first_attempt_trigger, 'succeeded', first_attempt_url, first_attempt_status_code, NULL, first_attempt_at,
                    first_attempt_finished_at
               FROM event_deliveries WHERE id = $1 AND first_attempt_at IS NOT NULL) x
      ORDER BY attempt_number`,
    [deliveryId],
  );
}

/** Rows of event_delivery_attempts the delivery has. */
async function attemptRows(deliveryId: string): Promise<number> {
  const [row] = await db.query(`SELECT count(*)::int AS n FROM event_delivery_attempts WHERE delivery_id = $1`, [deliveryId]);
  return row.n;
}

async function deliveryRow(id: string): Promise<{ status: string; attempt_count: number; unfinished_trigger: string | null }> {
  const [row] = await db.query(`SELECT status, attempt_count, unfinished_trigger FROM event_deliveries WHERE id = $1`, [id]);
  return row;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the claim writes no attempt row and holds the delivery for its lease; the outcome of a first attempt that succeeds is written on the delivery', async () => {
  const id = await delivery(await endpoint());
  const context = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  expect(context).toMatchObject({ attempt_number: 1, trigger: 'scheduled', url: URL });
  expect(await attempts(id)).toEqual([]);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 1, unfinished_trigger: 'scheduled' });

  // A second job of the delivery meanwhile: not due until the lease ends.
  const second = await repo.claim(id, { leaseMs: 60_000 });
  expect(second.kind).toBe('not_due');
  expect(second.kind === 'not_due' && second.atMs).toBeGreaterThan(Date.now() + 50_000);

  await repo.finishAttempt(outcome(context, 'succeeded', { status: 'succeeded', reason: null }));
  expect(await attempts(id)).toEqual([
    {
      attempt_number: 1,
      trigger: 'scheduled',
      status: 'succeeded',
      url: URL,
      response_status_code: 200,
      error: null,
      created_at: context.claimed_at,
      finished: true,
    },
  ]);
  expect(await attemptRows(id)).toBe(0);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 1, unfinished_trigger: null });
});

test('a first attempt that fails, and the retry that succeeds, are attempt rows', async () => {
  const id = await delivery(await endpoint());
  const first = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  await repo.finishAttempt(outcome(first, 'failed', { status: 'pending', delayMs: 0 }));
  const second = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  await repo.finishAttempt(outcome(second, 'succeeded', { status: 'succeeded', reason: null }));
  expect((await attempts(id)).map((a) => [a.attempt_number, a.status])).toEqual([
    [1, 'failed'],
    [2, 'succeeded'],
  ]);
  expect(await attemptRows(id)).toBe(2);
});

test("a dead worker's attempt is written interrupted by the next claim; a slow worker's outcome replaces it", async () => {
  const id = await delivery(await endpoint(), { manual: true });
  const first = claimed(await repo.claim(id, { leaseMs: 100 }));
  expect(first).toMatchObject({ attempt_number: 1, trigger: 'manual' });
  await sleep(200);

  const second = claimed(await repo.claim(id, { leaseMs: 100 }));
  expect(second).toMatchObject({ attempt_number: 2, trigger: 'scheduled' });
  expect(await attempts(id)).toEqual([
    {
      attempt_number: 1,
      trigger: 'manual',
      status: 'interrupted',
      url: URL,
      response_status_code: null,
      error: 'The worker stopped during this attempt; the receiver may have got it.',
      created_at: first.claimed_at,
      finished: true,
    },
  ]);

  // The first worker was only slow: its outcome takes the place of `interrupted`, and the
  // delivery's second attempt is still the unfinished one.
  await repo.finishAttempts([outcome(first, 'failed', { status: 'pending', delayMs: 1_000 })]);
  expect((await attempts(id)).map((a) => [a.attempt_number, a.trigger, a.status, a.response_status_code, a.created_at])).toEqual([
    [1, 'manual', 'failed', 500, first.claimed_at],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 2, unfinished_trigger: 'scheduled' });

  await repo.finishAttempt(outcome(second, 'succeeded', { status: 'succeeded', reason: null }));
  expect((await attempts(id)).map((a) => [a.attempt_number, a.status])).toEqual([
    [1, 'failed'],
    [2, 'succeeded'],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 2, unfinished_trigger: null });
});

test('a manual attempt asked for while an attempt is in flight is not lost to its outcome', async () => {
  const id = await delivery(await endpoint());
  const first = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  // A resend (or the management API's retry) arrives while the first attempt is being sent.
  await db.transaction((manager) => repo.requestManualAttempt(manager, id));
  expect(await repo.finishAttempt(outcome(first, 'succeeded', { status: 'succeeded', reason: null }))).toBe(true);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 1, unfinished_trigger: null });

  const second = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  expect(second).toMatchObject({ attempt_number: 2, trigger: 'manual' });
  expect(await repo.finishAttempt(outcome(second, 'succeeded', { status: 'succeeded', reason: null }))).toBe(false);
  expect((await attempts(id)).map((a) => [a.attempt_number, a.trigger, a.status])).toEqual([
    [1, 'scheduled', 'succeeded'],
    [2, 'manual', 'succeeded'],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 2, unfinished_trigger: null });
});

test("cancelling a delivery (its endpoint was disabled) writes a dead worker's attempt interrupted", async () => {
  const endpointId = await endpoint();
  const id = await delivery(endpointId);
  claimed(await repo.claim(id, { leaseMs: 100 }));
  await sleep(200);
  await db.query(`UPDATE webhook_endpoints SET disabled = true WHERE id = $1`, [endpointId]);

  expect(await repo.claim(id, { leaseMs: 100 })).toEqual({ kind: 'none' });
  expect((await attempts(id)).map((a) => [a.attempt_number, a.status])).toEqual([[1, 'interrupted']]);
  expect((await deliveryRow(id)).status).toBe('cancelled');
});

test('an outcome whose delivery was deleted meanwhile (endpoint deleted) writes nothing and does not fail its batch', async () => {
  const gone = await endpoint();
  const kept = await endpoint();
  const goneDelivery = await delivery(gone);
  const keptDelivery = await delivery(kept);
  const [a, b] = await repo.claimMany(
    [
      { deliveryId: goneDelivery, rateLimitCleared: false },
      { deliveryId: keptDelivery, rateLimitCleared: false },
    ],
    60_000,
  );
  await db.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [gone]);

  await repo.finishAttempts([
    outcome(claimed(a), 'succeeded', { status: 'succeeded', reason: null }),
    outcome(claimed(b), 'succeeded', { status: 'succeeded', reason: null }),
  ]);
  expect(await attempts(goneDelivery)).toEqual([]);
  expect((await attempts(keptDelivery)).map((row) => row.status)).toEqual(['succeeded']);
});

test('a row left `sending` before migration 1763790200000 is held by its lease, then marked interrupted', async () => {
  const endpointId = await endpoint();
  // As the migration leaves a delivery whose latest attempt was `sending`: its trigger on the delivery.
  const legacy = async (claimedAgo: string) => {
    const id = await delivery(endpointId);
    await db.query(`UPDATE event_deliveries SET attempt_count = 1, last_attempt_at = now() - $2::interval, unfinished_trigger = 'scheduled' WHERE id = $1`, [
      id,
      claimedAgo,
    ]);
    await db.query(
      `INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, trigger, status, target, url, created_at)
       SELECT gen_random_uuid(), d.id, d.event_id, d.endpoint_id, 1, 'scheduled', 'sending', 'webhook', $2, d.last_attempt_at
         FROM event_deliveries d WHERE d.id = $1`,
      [id, URL],
    );
    return id;
  };
  const inFlight = await legacy('1 second');
  const dead = await legacy('10 minutes');

  expect((await repo.claim(inFlight, { leaseMs: 60_000 })).kind).toBe('not_due');
  expect(claimed(await repo.claim(dead, { leaseMs: 60_000 })).attempt_number).toBe(2);
  expect((await attempts(dead)).map((a) => [a.attempt_number, a.status, a.finished])).toEqual([[1, 'interrupted', true]]);
});

describe('claims', () => {
  test('two workers claiming one delivery at once: one attempt; the other is told when the lease ends, or that the delivery is taken', async () => {
    const id = await delivery(await endpoint());
    const claims = await Promise.all([repo.claim(id, { leaseMs: 60_000 }), repo.claim(id, { leaseMs: 60_000 })]);
    const kinds = claims.map((claim) => claim.kind).sort();
    // Which answer the loser gets depends on when its statement's snapshot was taken: after the
    // winner committed, it sees the lease (`not_due`, with its end); before, it loses at the write
    // (`none`: taken by another worker). The next test makes the second case certain.
    expect(kinds[0]).toBe('claimed');
    expect(['none', 'not_due']).toContain(kinds[1]);
    const loser = claims.find((claim) => claim.kind !== 'claimed')!;
    if (loser.kind === 'not_due') expect(loser.atMs).toBeGreaterThan(Date.now() + 50_000);
    expect(await deliveryRow(id)).toMatchObject({ attempt_count: 1 });
  });

  test('two claims that read the delivery before either wrote it: only the first counts an attempt', async () => {
    const id = await delivery(await endpoint());
    // A third transaction holds the row, so both claims read it as due and then wait to write it.
    const holder = db.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT id FROM event_deliveries WHERE id = $1 FOR UPDATE`, [id]);
    const racing = Promise.all([repo.claim(id, { leaseMs: 60_000 }), repo.claim(id, { leaseMs: 60_000 })]);
    for (let waiting = 0; waiting < 2;) {
      await sleep(20);
      [{ waiting }] = await db.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%WITH input AS%' AND query LIKE '%event_deliveries%'`,
      );
    }
    await holder.commitTransaction();
    await holder.release();
    const claims = await racing;
    expect(claims.map((claim) => claim.kind).sort()).toEqual(['claimed', 'none']);
    expect(await deliveryRow(id)).toMatchObject({ attempt_count: 1 });
  });

  test('claimMany answers in input order: claimed, not due, unknown, finished', async () => {
    const endpointId = await endpoint();
    const [due, later, finished] = [await delivery(endpointId), await delivery(endpointId), await delivery(endpointId)];
    await db.query(`UPDATE event_deliveries SET next_attempt_at = '2099-01-01T00:00:00Z' WHERE id = $1`, [later]);
    await db.query(`UPDATE event_deliveries SET status = 'succeeded' WHERE id = $1`, [finished]);
    const claims = await repo.claimMany(
      [later, randomUUID(), due, finished].map((deliveryId) => ({ deliveryId, rateLimitCleared: false })),
      60_000,
    );
    expect(claims.map((claim) => claim.kind)).toEqual(['not_due', 'none', 'claimed', 'none']);
    expect(claims[0]).toEqual({ kind: 'not_due', atMs: Date.parse('2099-01-01T00:00:00Z') });
    expect(claimed(claims[2]).id).toBe(due);
    expect((await deliveryRow(finished)).attempt_count).toBe(0);
  });

  test("an endpoint's rate limit holds a due delivery back, counting no attempt, until the caller cleared it", async () => {
    const endpointId = await endpoint();
    await db.query(`UPDATE webhook_endpoints SET rate_limit = 5 WHERE id = $1`, [endpointId]);
    const id = await delivery(endpointId);
    expect(await repo.claim(id)).toEqual({ kind: 'rate_limited', endpointId, rateLimit: 5 });
    expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 0, unfinished_trigger: null });
    expect(claimed(await repo.claim(id, { rateLimitCleared: true })).attempt_number).toBe(1);
  });

  test('a RabbitMQ delivery whose pipeline no longer has RabbitMQ enabled is cancelled as destination_removed', async () => {
    const team = await createTeam(db);
    const pipelineId = randomUUID();
    await db.query(
      `INSERT INTO etl_pipelines (id, team_id, environment, region, preferred, enabled, destinations_enc) VALUES ($1, $2, 'sandbox', 'us', 'rabbitmq', '{}', 'x')`,
      [pipelineId, team.teamId],
    );
    const eventId = randomUUID();
    await db.query(
      `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc) VALUES ($1, 'labtest.order.updated', $2, 'sandbox', 'u', 'c', 'x')`,
      [eventId, team.teamId],
    );
    const id = randomUUID();
    await db.query(
      `INSERT INTO event_deliveries (id, event_id, target, pipeline_id, team_id, environment, event_type) VALUES ($1, $2, 'rabbitmq', $3, $4, 'sandbox', 'labtest.order.updated')`,
      [id, eventId, pipelineId, team.teamId],
    );
    expect(await repo.claim(id)).toEqual({ kind: 'none' });
    expect(await db.query(`SELECT status, status_reason, attempt_count FROM event_deliveries WHERE id = $1`, [id])).toEqual([
      { status: 'cancelled', status_reason: 'destination_removed', attempt_count: 0 },
    ]);
    await dropTeams(db, [team]);
  });

  test('an outcome stores an error with NUL characters without them', async () => {
    const id = await delivery(await endpoint());
    const context = claimed(await repo.claim(id, { leaseMs: 60_000 }));
    await repo.finishAttempt({ ...outcome(context, 'failed', { status: 'exhausted', reason: 'gave up' }), error: 'a\u0000b' });
    expect(await db.query(`SELECT error FROM event_delivery_attempts WHERE delivery_id = $1`, [id])).toEqual([{ error: 'ab' }]);
    expect(await db.query(`SELECT status, status_reason FROM event_deliveries WHERE id = $1`, [id])).toEqual([
      { status: 'exhausted', status_reason: 'gave up' },
    ]);
  });
});

describe('endpoint health', () => {
  const health = async (endpointId: string) =>
    (
      await db.query(
        `SELECT failing_since IS NOT NULL AS failing, disabled_at IS NOT NULL AS disabled, disabled_reason, failing_since::text AS since
           FROM webhook_endpoint_health WHERE endpoint_id = $1`,
        [endpointId],
      )
    )[0];

  test('the failing clock starts at the first failure, keeps running over later ones, and a success stops it', async () => {
    const endpointId = await endpoint();
    expect(await repo.endpointFailed(endpointId, 3_600_000)).toBe(false);
    const first = (await health(endpointId)).since;
    expect(await repo.endpointFailed(endpointId, 3_600_000)).toBe(false);
    expect((await health(endpointId)).since).toBe(first);
    expect(await repo.endpointFailed(endpointId, 0)).toBe(true);

    await repo.endpointRecovered(endpointId);
    expect(await health(endpointId)).toMatchObject({ failing: false });
    await repo.endpointFailed(endpointId, 3_600_000);
    expect((await health(endpointId)).since > first).toBe(true);
  });

  test('disabling is done once; after the endpoint is enabled again, a failure restarts the clock and forgets the disabling', async () => {
    const endpointId = await endpoint();
    await repo.endpointFailed(endpointId, 0);
    const before = (await health(endpointId)).since;
    expect(await repo.disableEndpoint(endpointId, 'failing_too_long')).toBe(true);
    expect(await repo.disableEndpoint(endpointId, 'gone')).toBe(false);
    expect(await health(endpointId)).toMatchObject({ disabled: true, disabled_reason: 'failing_too_long' });

    await db.query(`UPDATE webhook_endpoints SET disabled = false WHERE id = $1`, [endpointId]);
    await repo.endpointFailed(endpointId, 3_600_000);
    const after = await health(endpointId);
    expect(after).toMatchObject({ failing: true, disabled: false, disabled_reason: null });
    expect(after.since > before).toBe(true);
  });
});

test('recovering an endpoint since a time queues a manual attempt for its failed deliveries from then on, and nothing else', async () => {
  const endpointId = await endpoint();
  const otherEndpoint = await endpoint();
  const setRow = (id: string, status: string, createdAt: string) =>
    db.query(`UPDATE event_deliveries SET status = $2, status_reason = 'x', created_at = $3, manual = false WHERE id = $1`, [id, status, createdAt]);
  const exhausted = await delivery(endpointId);
  const cancelled = await delivery(endpointId);
  const tooOld = await delivery(endpointId);
  const succeeded = await delivery(endpointId);
  const elsewhere = await delivery(otherEndpoint);
  await setRow(exhausted, 'exhausted', '2026-01-02T00:00:00Z');
  await setRow(cancelled, 'cancelled', '2026-01-01T00:00:00Z');
  await setRow(tooOld, 'exhausted', '2025-12-31T23:59:59Z');
  await setRow(succeeded, 'succeeded', '2026-01-03T00:00:00Z');
  await setRow(elsewhere, 'exhausted', '2026-01-03T00:00:00Z');

  expect(await db.transaction((manager) => repo.requestManualAttemptsSince(manager, endpointId, new Date('2026-01-01T00:00:00Z')))).toBe(2);
  const rows: Array<{ id: string; status: string; manual: boolean; status_reason: string | null }> = await db.query(
    `SELECT id, status, manual, status_reason FROM event_deliveries WHERE id = ANY($1::uuid[])`,
    [[exhausted, cancelled, tooOld, succeeded, elsewhere]],
  );
  const byId = new Map(rows.map((row) => [row.id, [row.status, row.manual, row.status_reason]]));
  expect([exhausted, cancelled, tooOld, succeeded, elsewhere].map((id) => byId.get(id))).toEqual([
    ['pending', true, null],
    ['pending', true, null],
    ['exhausted', false, 'x'],
    ['succeeded', false, 'x'],
    ['exhausted', false, 'x'],
  ]);
  // Again: nothing left to recover.
  expect(await db.transaction((manager) => repo.requestManualAttemptsSince(manager, endpointId, new Date('2026-01-01T00:00:00Z')))).toBe(0);
});
