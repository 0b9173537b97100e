import { randomUUID } from 'node:crypto';
import type { EventType } from '../../src/events/catalogue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { EventResendService } from '../../src/events/resend.service';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Webhook delivery end to end: events written to the outbox are relayed, signed, POSTed to a
 * local receiver that verifies them with `svix` and `standardwebhooks`, retried on the
 * (compressed) schedule, and every attempt is readable through the management API.
 */
let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;
let api: TeamManagementApi;

// 1 + 8 attempts as in production, with the delays compressed.
const SCHEDULE = '0s,50ms,100ms,100ms,100ms,100ms,100ms,100ms';

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE, WEBHOOK_DELIVERY_TIMEOUT: '5s', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  api = teamManagementApi(stack, tenant, 'sandbox');
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** Creates an endpoint for `path` on the receiver and registers its secret there. */
async function endpoint(path: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const created = await api('POST', '/webhook', { url: receiver.url(path), ...body });
  expect(created.status).toBe(200);
  const secret = (await api('GET', `/webhook/${created.body.id}/secret`)).body.key as string;
  receiver.secret(path, secret);
  return { id: created.body.id, secret };
}

function event(eventType: EventType, data: Record<string, unknown>): NewEvent {
  return {
    eventType,
    teamId: tenant.teamId,
    environment: 'sandbox',
    userId: randomUUID(),
    clientUserId: `client-${randomUUID().slice(0, 8)}`,
    data,
  };
}

const emit = (events: NewEvent[]) => stack.api.get(OutboxService).emit(events);

/** Requests grouped by the payload's `seq`: what one event looked like across its attempts. */
function bySeq(requests: ReceivedRequest[]): Map<number, ReceivedRequest[]> {
  const groups = new Map<number, ReceivedRequest[]>();
  for (const request of requests) {
    const seq = request.json?.data?.seq as number;
    groups.set(seq, [...(groups.get(seq) ?? []), request]);
  }
  return groups;
}

test('delivers the signed envelope with the endpoint headers; the attempt is readable', async () => {
  const { id } = await endpoint('/basic');
  expect((await api('PUT', `/webhook/${id}/headers`, { headers: { 'X-Custom': 'yes', 'X-Api-Token': 't0k3n' } })).status).toBe(204);
  const sent = event('labtest.order.created', { id: randomUUID(), status: 'ordered', seq: 1 });
  const [eventId] = await emit([sent]);

  const [request] = await waitFor(() => receiver.accepted('/basic').length >= 1 && receiver.accepted('/basic'));
  expect(request.verifyError).toBeNull();
  expect(request.verified).toBe(true);
  expect(request.webhookId).toBe(eventId);
  expect(request.headers['svix-id']).toBe(eventId);
  expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['x-custom']).toBe('yes');
  expect(request.headers['x-api-token']).toBe('t0k3n');
  expect(request.json).toEqual({
    event_type: 'labtest.order.created',
    data: sent.data,
    team_id: tenant.teamId,
    user_id: sent.userId,
    client_user_id: sent.clientUserId,
  });

  const message = await waitFor(async () => {
    const page = await api('GET', `/webhook/${id}/messages`);
    return page.body.data?.[0]?.status === 'succeeded' && page.body.data[0];
  });
  expect(message).toMatchObject({ id: eventId, event_type: 'labtest.order.created', attempt_count: 1, next_attempt_at: null });
  const attempts = await api('GET', `/webhook/${id}/attempts`);
  expect(attempts.status).toBe(200);
  expect(attempts.body.data).toEqual([
    expect.objectContaining({
      message_id: eventId,
      endpoint_id: id,
      attempt_number: 1,
      trigger: 'scheduled',
      status: 'succeeded',
      response_status_code: 200,
      response: 'ok',
      error: null,
      url: receiver.url('/basic'),
      latency_ms: expect.any(Number),
    }),
  ]);
  const single = await api('GET', `/webhook/${id}/messages/${eventId}`);
  expect(single.body.payload).toEqual(request.json);
});

test('a receiver failing for a while still gets every event, each with one webhook id across its attempts', async () => {
  const { id } = await endpoint('/flaky');
  // Each event is refused three times (500), then accepted.
  const refusals = new Map<string, number>();
  receiver.respond('/flaky', (request) => {
    const seen = refusals.get(request.body) ?? 0;
    refusals.set(request.body, seen + 1);
    return seen < 3 ? { status: 500, body: `boom ${seen}` } : { status: 200 };
  });
  const events = Array.from({ length: 10 }, (_, seq) => event('labtest.order.updated', { id: randomUUID(), status: 'collecting_sample', seq }));
  const ids = await emit(events);

  await waitFor(() => new Set(receiver.accepted('/flaky').map((r) => r.webhookId)).size === 10, {
    describe: () => receiver.forPath('/flaky').length,
  });
  const requests = receiver.forPath('/flaky');
  expect(requests.every((r) => r.verified)).toBe(true);
  const groups = bySeq(requests);
  expect(groups.size).toBe(10);
  for (const [seq, attempts] of groups) {
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(new Set(attempts.map((r) => r.webhookId))).toEqual(new Set([ids[seq]]));
  }

  // Every attempt is recorded: three failures with the response excerpt, then the success. An
  // attempt's row comes with its outcome, after the receiver answered: wait for all ten successes.
  await waitFor(
    async () => {
      const [{ n }] = await stack.db.query(`SELECT count(*)::int AS n FROM event_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [id]);
      return n === 10;
    },
    { describe: () => stack.db.query(`SELECT status, count(*)::int AS n FROM event_deliveries WHERE endpoint_id = $1 GROUP BY status`, [id]) },
  );
  const perMessage = (await api('GET', `/webhook/${id}/messages/${ids[0]}/attempts`)).body.data;
  expect(perMessage.map((a: { attempt_number: number }) => a.attempt_number)).toEqual([4, 3, 2, 1]);
  expect(perMessage.slice(1)).toEqual(
    [2, 1, 0].map((n) => expect.objectContaining({ status: 'failed', response_status_code: 500, response: `boom ${n}`, error: 'HTTP 500' })),
  );
  const all: string[] = [];
  let cursor: string | null = null;
  do {
    const page: HttpResult = await api('GET', `/webhook/${id}/attempts?limit=7${cursor ? `&next_cursor=${cursor}` : ''}`);
    all.push(...page.body.data.map((a: { id: string }) => a.id));
    cursor = page.body.next_cursor;
  } while (cursor);
  expect(new Set(all).size).toBe(40);
});

test('exhaustion is recorded and surfaced; a manual retry sends the message again with the same id', async () => {
  const { id } = await endpoint('/down');
  let up = false;
  receiver.respond('/down', () => (up ? { status: 204 } : { status: 503, body: 'down' }));
  const [eventId] = await emit([event('labtest.result.critical', { order_id: randomUUID(), status: 'final', seq: 0 })]);

  const exhausted = await waitFor(async () => (await api('GET', `/webhook/${id}/messages?status=exhausted`)).body.data[0]);
  expect(exhausted).toMatchObject({ id: eventId, status: 'exhausted', status_reason: 'retries_exhausted', attempt_count: 9 });
  expect(receiver.forPath('/down')).toHaveLength(9);
  expect((await api('GET', `/webhook/${id}/messages/${eventId}/attempts`)).body.data).toHaveLength(9);

  up = true;
  const retried = await api('POST', `/webhook/${id}/messages/${eventId}/retry`);
  expect(retried.status).toBe(202);
  expect(retried.body).toMatchObject({ id: eventId, status: 'pending' });
  await waitFor(() => receiver.accepted('/down').length === 1);
  expect(receiver.accepted('/down')[0].webhookId).toBe(eventId);
  const after = await waitFor(async () => {
    const message = (await api('GET', `/webhook/${id}/messages/${eventId}`)).body;
    return message.status === 'succeeded' && message;
  });
  expect(after.attempt_count).toBe(10);
  const [latest] = (await api('GET', `/webhook/${id}/messages/${eventId}/attempts?limit=1`)).body.data;
  expect(latest).toMatchObject({ attempt_number: 10, trigger: 'manual', status: 'succeeded', response_status_code: 204 });

  expect((await api('POST', `/webhook/${id}/messages/${randomUUID()}/retry`)).status).toBe(404);
  expect((await api('GET', `/webhook/${id}/messages/${randomUUID()}/attempts`)).status).toBe(404);
});

test('410 Gone disables the endpoint; later events are not sent to it', async () => {
  const { id } = await endpoint('/gone');
  receiver.respond('/gone', () => ({ status: 410 }));
  const [first] = await emit([event('labtest.order.created', { seq: 0 })]);
  await waitFor(async () => (await api('GET', `/webhook/${id}`)).body.disabled === true);
  const message = await waitFor(async () => {
    const body = (await api('GET', `/webhook/${id}/messages/${first}`)).body;
    return body.status !== 'pending' && body;
  });
  expect(message).toMatchObject({ status: 'cancelled', status_reason: 'endpoint_gone', attempt_count: 1 });
  expect((await api('POST', `/webhook/${id}/messages/${first}/retry`)).status).toBe(409);

  // Proof that the relay moved on: an endpoint created afterwards gets the next event, this one not.
  await endpoint('/after-gone');
  const [second] = await emit([event('labtest.order.created', { seq: 1 })]);
  await waitFor(() => receiver.accepted('/after-gone').some((r) => r.webhookId === second));
  expect(receiver.forPath('/gone')).toHaveLength(1);
  expect((await api('GET', `/webhook/${id}/messages`)).body.data.map((m: { id: string }) => m.id)).toEqual([first]);
});

test('Retry-After on 429 sets the next attempt no earlier than asked', async () => {
  const { id } = await endpoint('/busy');
  receiver.respond('/busy', (_request, nth) => (nth === 1 ? { status: 429, headers: { 'Retry-After': '2' } } : { status: 200 }));
  const [eventId] = await emit([event('labtest.appointment.created', { id: randomUUID(), seq: 0 })]);
  // The 429 recorded: its outcome and the delivery's next due time are written in one statement
  // (attempt_count alone rises at the claim, before the request is sent).
  await waitFor(async () => {
    const page = await api('GET', `/webhook/${id}/messages/${eventId}/attempts`);
    return page.body.data?.some((a: { response_status_code: number | null }) => a.response_status_code === 429);
  });
  const pending = (await api('GET', `/webhook/${id}/messages/${eventId}`)).body;
  expect(pending).toMatchObject({ attempt_count: 1, status: 'pending' });
  // The recorded schedule, not a measured duration: due at least 2 s after the 429.
  expect(Date.parse(pending.next_attempt_at) - Date.parse(pending.last_attempt_at)).toBeGreaterThanOrEqual(2000);
  await waitFor(() => receiver.accepted('/busy').length === 1);
  expect(new Set(receiver.forPath('/busy').map((r) => r.webhookId))).toEqual(new Set([eventId]));
});

test('during a secret rotation every delivery carries both signatures', async () => {
  const { id, secret: before } = await endpoint('/rotating');
  expect((await api('POST', `/webhook/${id}/secret/rotate`)).status).toBe(204);
  const after = (await api('GET', `/webhook/${id}/secret`)).body.key as string;
  receiver.secret('/rotating', after, before);
  await emit([event('provider.connection.created', { user_id: randomUUID(), source: { name: 'Oura', slug: 'oura', logo: 'x' } })]);
  const [request] = await waitFor(() => receiver.accepted('/rotating').length === 1 && receiver.accepted('/rotating'));
  expect(request.verifyError).toBeNull();
  expect(request.headers['webhook-signature'].split(' ')).toHaveLength(2);
});

test('an endpoint failing without a success for WEBHOOK_DISABLE_AFTER (5 days) is disabled', async () => {
  const { id } = await endpoint('/failing');
  receiver.respond('/failing', () => ({ status: 500 }));
  const [firstId] = await emit([event('labtest.order.updated', { seq: 0 })]);
  await waitFor(async () => (await api('GET', `/webhook/${id}/messages/${firstId}`)).body.status === 'exhausted');
  expect((await api('GET', `/webhook/${id}`)).body.disabled).toBe(false);
  // Pretend the failures began six days ago; the next failure disables the endpoint.
  await stack.db.query(`UPDATE webhook_endpoint_health SET failing_since = now() - interval '6 days' WHERE endpoint_id = $1`, [id]);
  await emit([event('labtest.order.updated', { seq: 1 })]);
  await waitFor(async () => (await api('GET', `/webhook/${id}`)).body.disabled === true);
  const [health] = await stack.db.query(`SELECT disabled_reason FROM webhook_endpoint_health WHERE endpoint_id = $1`, [id]);
  expect(health.disabled_reason).toBe('failing');
});

test('messages and attempts of another team, or of an unknown endpoint, are not readable', async () => {
  const other = await createTenant(stack.db);
  const { id } = await endpoint('/private');
  const foreign = await call(stack.managementUrl, 'GET', `/v1/org/${other.orgId}/team/${tenant.teamId}/sandbox/webhook/${id}/attempts`, {
    headers: { 'X-Management-Key': other.managementKey },
  });
  expect(foreign.status).toBe(404);
  expect((await api('GET', `/webhook/${randomUUID()}/messages`)).status).toBe(404);
  expect((await api('GET', `/webhook/${id}/attempts?limit=0`)).status).toBe(422);
  expect((await api('GET', `/webhook/${id}/messages?status=lost`)).status).toBe(422);
});

test("resendLatestOrderEvents sends each order's latest event again, with its webhook id", async () => {
  await endpoint('/resend', { filter_types: ['labtest.order.created', 'labtest.order.updated'] });
  const [a, b] = [randomUUID(), randomUUID()];
  const [aCreated] = await emit([event('labtest.order.created', { id: a, status: 'ordered' })]);
  const [aUpdated, bCreated] = await emit([
    event('labtest.order.updated', { id: a, status: 'collecting_sample' }),
    event('labtest.order.created', { id: b, status: 'ordered' }),
    event('labtest.appointment.updated', { id: a, status: 'confirmed' }),
  ]);
  await waitFor(() => receiver.accepted('/resend').length === 3);

  const resend = stack.api.get(EventResendService);
  const scope = { teamId: tenant.teamId, environment: 'sandbox' as const };
  expect((await resend.resendLatestOrderEvents(scope, { orderIds: [a, b, randomUUID()] })).order_ids.sort()).toEqual([a, b].sort());
  await waitFor(() => receiver.accepted('/resend').length === 5);
  const again = receiver
    .accepted('/resend')
    .slice(3)
    .map((request) => request.webhookId);
  expect(again.sort()).toEqual([aUpdated, bCreated].sort());
  expect(again).not.toContain(aCreated);

  expect(await resend.resendLatestOrderEvents(scope, { startAt: new Date(Date.now() + 60_000) })).toEqual({ order_ids: [] });
  const other = await resend.resendLatestOrderEvents({ teamId: randomUUID(), environment: 'sandbox' });
  expect(other).toEqual({ order_ids: [] });
});

test('the management OpenAPI document describes the attempts, messages and retry routes', async () => {
  const { body } = await call(stack.managementUrl, 'GET', '/openapi.json');
  const base = '/v1/org/{org_id}/team/{team_id}/{environment}/webhook/{webhook_id}';
  expect(Object.keys(body.paths[`${base}/attempts`])).toEqual(['get']);
  expect(Object.keys(body.paths[`${base}/messages`])).toEqual(['get']);
  expect(Object.keys(body.paths[`${base}/messages/{message_id}`])).toEqual(['get']);
  expect(Object.keys(body.paths[`${base}/messages/{message_id}/attempts`])).toEqual(['get']);
  expect(body.paths[`${base}/messages/{message_id}/retry`].post.responses).toHaveProperty('202');
  const attempt = body.components.schemas.WebhookAttemptListDto_Output.properties.data.items.properties;
  expect(Object.keys(attempt)).toEqual(
    expect.arrayContaining(['status', 'response_status_code', 'response', 'error', 'latency_ms', 'trigger', 'attempt_number']),
  );
});
