import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import { DeliveryQueue } from '../../src/events/delivery-queue';
import { OutboxRepository } from '../../src/events/outbox.repository';
import { EventRelay } from '../../src/events/relay';
import { createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * The relay's lost-job sweep pages through overdue deliveries. Deliveries held back by an
 * endpoint's rate_limit look overdue while their jobs wait in BullMQ's `delayed`; a backlog of
 * them larger than one sweep's batch must not hide a delivery whose job was really lost.
 */
let stack: TestStack;
let tenant: Tenant;
let queue: DeliveryQueue;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  tenant = await createTenant(stack.db);
  queue = new DeliveryQueue(stack.config.redisUrl, `sweep-test-${randomUUID()}`);
});
afterAll(async () => {
  await queue?.queue.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await stack?.close();
});

/** A pending, already-enqueued webhook delivery that was due `overdueMinutes` ago. */
async function overdueDelivery(endpointId: string, overdueMinutes: number): Promise<string> {
  const eventId = randomUUID();
  await stack.db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc, relayed_at)
     VALUES ($1, 'labtest.order.updated', $2, 'sandbox', 'u', 'c', $3, now())`,
    [eventId, tenant.teamId, new PhiCipher(stack.config.phiEncryptionKey).encryptJson({})],
  );
  const id = randomUUID();
  await stack.db.query(
    `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, next_attempt_at, enqueued_at)
     VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', 'labtest.order.updated', now() - make_interval(mins => $5), now())`,
    [id, eventId, endpointId, tenant.teamId, overdueMinutes],
  );
  return id;
}

test('a lost job behind more held deliveries than one sweep takes is re-enqueued by a later sweep', async () => {
  const [endpoint] = await stack.db.query(
    `INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc, rate_limit)
     VALUES ($1, $2, 'sandbox', 'https://hooks.example.com/sweep', 'x', 1) RETURNING id`,
    [randomUUID(), tenant.teamId],
  );
  // Three held deliveries (oldest), their jobs waiting in `delayed`, then one whose job is gone.
  const held = [await overdueDelivery(endpoint.id, 60), await overdueDelivery(endpoint.id, 59), await overdueDelivery(endpoint.id, 58)];
  for (const id of held) await queue.queue.add('deliver', { deliveryId: id }, { jobId: id, delay: 3_600_000 });
  const lost = await overdueDelivery(endpoint.id, 30);

  const relay = new EventRelay(new OutboxRepository(stack.db), queue, { ...stack.config.events, lostJobGraceMs: 0 }, stack.config.databaseUrl, {
    teams: new Set([tenant.teamId]),
    sweepBatch: 2,
  });
  expect(await relay.sweepLost()).toBe(2);
  expect(await queue.queue.getJob(lost)).toBeUndefined();
  expect(await relay.sweepLost()).toBe(2);
  expect(await queue.queue.getJobState(lost)).toBe('waiting');
  // The held jobs were left where they were: re-adding an existing job id is a no-op.
  for (const id of held) expect(await queue.queue.getJobState(id)).toBe('delayed');
  // Past the newest, the sweep starts over from the oldest.
  expect(await relay.sweepLost()).toBe(0);
  expect(await relay.sweepLost()).toBe(2);
});
