import { type Channel, type ChannelModel, connect, type ConsumeMessage } from 'amqplib';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { EventType } from '../../src/events/catalogue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Fan-out: 1,000 events to three endpoints with different filters (plus endpoints that must get
 * nothing), and to the team's RabbitMQ exchange (ETL pipeline) filtered by event type prefix.
 */
const RABBIT_URI = 'amqp://guest:guest@127.0.0.1:5672';

let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;
let rabbit: ChannelModel;
let channel: Channel;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    // Quick first retries, then about 30 s of budget in all: the late-exchange test creates the
    // exchange after the first failures, and on a loaded machine a shorter budget could run out
    // (deliveries exhausted) before it exists.
    env: { WEBHOOK_RETRY_SCHEDULE: '0s,100ms,200ms,500ms,1s,1s,2s,5s,10s,10s', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  rabbit = await connect(RABBIT_URI);
  channel = await rabbit.createChannel();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await rabbit?.close();
});

function management(who: Tenant) {
  return (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${who.orgId}${path}`, { headers: { 'X-Management-Key': who.managementKey }, body });
}

async function endpoint(who: Tenant, path: string, body: Record<string, unknown>, environment = 'sandbox'): Promise<string> {
  const api = management(who);
  const created = await api('POST', `/team/${who.teamId}/${environment}/webhook`, { url: receiver.url(path), ...body });
  expect(created.status).toBe(200);
  receiver.secret(path, (await api('GET', `/team/${who.teamId}/${environment}/webhook/${created.body.id}/secret`)).body.key);
  return created.body.id;
}

/** A topic exchange with a queue bound to everything; returns what arrives. */
/**
 * Creates `exchange` with every message it gets already routed to a queue of ours: the queue is
 * bound to an alternate exchange that exists first, so no message published between the
 * exchange's creation and a binding can be confirmed to labflow and then dropped as unroutable.
 */
async function consume(exchange: string): Promise<ConsumeMessage[]> {
  const alternate = `${exchange}-all`;
  await channel.assertExchange(alternate, 'fanout', { durable: false, autoDelete: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, alternate, '');
  await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: false, alternateExchange: alternate });
  const received: ConsumeMessage[] = [];
  await channel.consume(queue, (message) => message && received.push(message), { noAck: true });
  return received;
}

async function pipeline(who: Tenant, exchange: string, prefixes: string[] | null): Promise<void> {
  const created = await management(who)('POST', '/team_etl_pipelines/sandbox/us', {
    team_ids: [who.teamId],
    event_type_prefixes: prefixes,
    preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
    rabbitmq: { uri: RABBIT_URI, exchange },
  });
  expect(created.status).toBeLessThan(300);
}

/** What a deadline's message says: what arrived, the deliveries by status and attempts, and the commonest failures. */
async function deliveryState(teamId: string, arrived: Record<string, number>): Promise<Record<string, unknown>> {
  const statuses = await stack.db.query(
    `SELECT target, status, status_reason, enqueued_at IS NULL AS jobless, unfinished_trigger IS NOT NULL AS in_flight, next_attempt_at <= now() AS due,
            max(attempt_count)::int AS max_attempts, count(*)::int AS n
       FROM event_deliveries WHERE team_id = $1 GROUP BY 1, 2, 3, 4, 5, 6`,
    [teamId],
  );
  // The database is shared with the other test files: a statement stuck on a lock shows here.
  const sessions = await stack.db.query(
    `SELECT state, wait_event_type, wait_event, left(query, 60) AS query, count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' GROUP BY 1, 2, 3, 4`,
  );
  const errors = await stack.db.query(
    `SELECT a.error, a.response_status_code, count(*)::int AS n FROM event_delivery_attempts a JOIN event_deliveries d ON d.id = a.delivery_id
      WHERE d.team_id = $1 AND a.status <> 'succeeded' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5`,
    [teamId],
  );
  return { ...arrived, statuses, errors, sessions };
}

function event(who: Tenant, eventType: EventType, seq: number): NewEvent {
  return { eventType, teamId: who.teamId, environment: 'sandbox', userId: randomUUID(), clientUserId: `c-${seq}`, data: { seq } };
}

const TYPES: EventType[] = [
  'labtest.order.created',
  'labtest.order.updated',
  'labtest.appointment.created',
  'provider.connection.created',
  'daily.data.activity.created',
  'lab_report.parsing_job.updated',
  'labtest.result.critical',
];

test('1,000 events: each endpoint gets exactly its events, the RabbitMQ exchange exactly its prefixes', async () => {
  const all = await endpoint(tenant, '/all', {});
  await endpoint(tenant, '/created', { filter_types: ['labtest.order.created'] });
  await endpoint(tenant, '/updates', { filter_types: ['labtest.order.updated', 'provider.connection.created'] });
  // Must get nothing: a disabled endpoint, the production environment, another team.
  await endpoint(tenant, '/disabled', { disabled: true });
  await endpoint(tenant, '/production', {}, 'production');
  const other = await createTenant(stack.db);
  await endpoint(other, '/other-team', {});

  const exchange = `labflow-test-${randomUUID()}`;
  const messages = await consume(exchange);
  await pipeline(tenant, exchange, ['labtest.order.', 'daily.data.']);

  const outbox = stack.api.get(OutboxService);
  const events = Array.from({ length: 1000 }, (_, seq) => event(tenant, TYPES[seq % TYPES.length], seq));
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += 100) ids.push(...(await outbox.emit(events.slice(i, i + 100))));
  const [otherId] = await outbox.emit([event(other, 'labtest.order.created', -1)]);

  const idsOf = (predicate: (type: EventType) => boolean) => new Set(ids.filter((_, seq) => predicate(events[seq].eventType)));
  const expected = {
    '/all': new Set(ids),
    '/created': idsOf((type) => type === 'labtest.order.created'),
    '/updates': idsOf((type) => type === 'labtest.order.updated' || type === 'provider.connection.created'),
  };
  const expectedRabbit = idsOf((type) => type.startsWith('labtest.order.') || type.startsWith('daily.data.'));
  const received = (path: string) => new Set(receiver.accepted(path).map((request) => request.webhookId));

  // Everything sent: no pending delivery left for the team, then compare sets exactly.
  await waitFor(
    async () => {
      const [{ pending }] = await stack.db.query(`SELECT count(*)::int AS pending FROM event_deliveries WHERE team_id = $1 AND status <> 'succeeded'`, [
        tenant.teamId,
      ]);
      const [{ relayed }] = await stack.db.query(`SELECT count(*)::int AS relayed FROM event_outbox WHERE team_id = $1 AND relayed_at IS NOT NULL`, [
        tenant.teamId,
      ]);
      return relayed === 1000 && pending === 0 && messages.length >= expectedRabbit.size;
    },
    // Generous: on a loaded 2-core CI machine with the fault runs beside Jest, 1,000 deliveries took over 120 s (CI run 21).
    { timeoutMs: 240_000, describe: () => deliveryState(tenant.teamId, { all: received('/all').size, rabbit: messages.length }) },
  );
  for (const [path, want] of Object.entries(expected)) expect(received(path)).toEqual(want);
  expect(receiver.forPath('/disabled')).toHaveLength(0);
  expect(receiver.forPath('/production')).toHaveLength(0);
  await waitFor(() => receiver.accepted('/other-team').length > 0);
  expect(new Set(receiver.forPath('/other-team').map((request) => request.webhookId))).toEqual(new Set([otherId]));
  expect(receiver.requests.filter((request) => !request.verified).map((request) => request.verifyError)).toEqual([]);
  expect(expected['/created'].size).toBe(143);

  expect(new Set(messages.map((message) => message.properties.messageId))).toEqual(expectedRabbit);
  const sample = messages[0];
  const body = JSON.parse(sample.content.toString('utf8'));
  expect(sample.fields.routingKey).toBe(body.event_type);
  expect(sample.properties).toMatchObject({ deliveryMode: 2, contentType: 'application/json', type: body.event_type });
  expect(body).toMatchObject({ team_id: tenant.teamId, data: { seq: expect.any(Number) } });

  // The per-endpoint message list agrees with what the receiver saw.
  const listed = await management(tenant)('GET', `/team/${tenant.teamId}/sandbox/webhook/${all}/messages?limit=250&status=succeeded`);
  expect(listed.body.data).toHaveLength(250);
  expect(listed.body.next_cursor).toEqual(expect.any(String));
  await channel.deleteExchange(exchange);
}, 360_000);

test('a RabbitMQ destination that is missing at first gets the events once it exists', async () => {
  const team = await createTenant(stack.db);
  const exchange = `labflow-late-${randomUUID()}`;
  await pipeline(team, exchange, null);
  const outbox = stack.api.get(OutboxService);
  const ids = await outbox.emit([0, 1, 2].map((seq) => event(team, 'lab_report.parsing_job.created', seq)));
  // The exchange does not exist yet: attempts fail (404 NOT_FOUND closes the channel).
  await waitFor(async () => {
    const [{ failed }] = await stack.db.query(
      `SELECT count(*)::int AS failed FROM event_delivery_attempts a JOIN event_deliveries d ON d.id = a.delivery_id
        WHERE d.team_id = $1 AND a.status = 'failed'`,
      [team.teamId],
    );
    return failed >= 3;
  });
  const messages = await consume(exchange);
  await waitFor(() => new Set(messages.map((m) => m.properties.messageId)).size === 3, {
    describe: () => messages.length,
  });
  expect(new Set(messages.map((m) => m.properties.messageId))).toEqual(new Set(ids));
  // Each failed attempt says why: the broker's NOT_FOUND, or, where an attempt got no answer in
  // time while another to the same target was in flight (a loaded machine), that it was not sent.
  const failed: { error: string; url: string }[] = await stack.db.query(
    `SELECT a.error, a.url FROM event_delivery_attempts a JOIN event_deliveries d ON d.id = a.delivery_id
      WHERE d.team_id = $1 AND a.status = 'failed'`,
    [team.teamId],
  );
  const refusedByBroker = failed.filter((attempt) => /NOT_FOUND|404|closed/i.test(attempt.error));
  expect(refusedByBroker.length).toBeGreaterThan(0);
  for (const attempt of failed) expect(attempt.error).toMatch(/NOT_FOUND|404|closed|^Not sent: the last attempt to this target got no answer/i);
  for (const attempt of refusedByBroker) expect(attempt.url).toBe(`amqp://guest:****@127.0.0.1:5672#${exchange}`);
  await channel.deleteExchange(exchange);
});

test("a team's RabbitMQ broker that never answers does not hold up another team's webhooks", async () => {
  // A broker that takes connections and never says a word: each publish to it waits for its timeout.
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const stuck = await createTenant(stack.db);
    const created = await management(stuck)('POST', '/team_etl_pipelines/sandbox/us', {
      team_ids: [stuck.teamId],
      event_type_prefixes: null,
      preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
      rabbitmq: { uri: `amqp://guest:guest@127.0.0.1:${(silent.address() as net.AddressInfo).port}`, exchange: 'nobody-home' },
    });
    expect(created.status).toBeLessThan(300);
    const healthy = await createTenant(stack.db);
    await endpoint(healthy, '/healthy', {});

    const outbox = stack.api.get(OutboxService);
    const ids: string[] = [];
    for (let i = 0; i < 500; i += 100) {
      await outbox.emit(Array.from({ length: 100 }, (_, n) => event(stuck, 'labtest.order.created', i + n)));
      ids.push(...(await outbox.emit(Array.from({ length: 100 }, (_, n) => event(healthy, 'labtest.order.created', i + n)))));
    }
    // Before, the silent broker's publishes took every send slot of the worker for its whole
    // timeout, again with each retry: these 500 took over two minutes (about 3 a second).
    await waitFor(() => new Set(receiver.accepted('/healthy').map((request) => request.webhookId)).size === 500, {
      timeoutMs: 60_000,
      describe: () => deliveryState(healthy.teamId, { healthy: new Set(receiver.accepted('/healthy').map((request) => request.webhookId)).size }),
    });
    expect(new Set(receiver.accepted('/healthy').map((request) => request.webhookId))).toEqual(new Set(ids));
    // The silent broker's further attempts were not sent while its sends hung, and say why.
    const [{ held }] = await stack.db.query(
      `SELECT count(*)::int AS held FROM event_delivery_attempts a JOIN event_deliveries d ON d.id = a.delivery_id
        WHERE d.team_id = $1 AND a.error LIKE 'Not sent: %in flight%'`,
      [stuck.teamId],
    );
    expect(held).toBeGreaterThan(0);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
}, 120_000);
