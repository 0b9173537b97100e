import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { PhiCipher } from '../../src/common/crypto';
import { OutboxService } from '../../src/events/outbox.service';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { generateWebhookSecret } from '../../src/management/webhooks/webhook-secrets';
import { nonPublicRange } from '../../src/events/webhook-url';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * A deployment that refuses private webhook URLs (ALLOW_PRIVATE_WEBHOOK_URLS=false, the
 * production default) refuses them when an endpoint is created or patched, and again at
 * delivery time, after DNS resolution.
 */
let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;
let api: TeamManagementApi;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    env: { ALLOW_PRIVATE_WEBHOOK_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '0s,10ms', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  api = teamManagementApi(stack, tenant, 'sandbox');
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

test.each([
  'http://127.0.0.1:8080/hook',
  'http://localhost/hook',
  'http://localhost./hook',
  'http://[::1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://10.1.2.3/hook',
  'http://192.168.0.10/hook',
  'https://172.16.5.4/hook',
  'http://[::127.0.0.1]/hook',
  'http://[2002:7f00:1::1]/hook',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
  'http://[fec0::1]/hook',
  'http://[64:ff9b:1::a00:1]/hook',
  'http://198.18.0.1/hook',
])('refuses %s at create and at patch', async (url) => {
  const created = await api('POST', '/webhook', { url });
  expect(created.status).toBe(422);
  expect(created.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'url_not_allowed' });
  const ok = await api('POST', '/webhook', { url: 'https://hooks.example.com/labflow' });
  expect(ok.status).toBe(200);
  expect((await api('PATCH', `/webhook/${ok.body.id}`, { url })).status).toBe(422);
  await api('DELETE', `/webhook/${ok.body.id}`);
});

test('refuses at delivery time: a host name resolving to a private address, and a stored private URL', async () => {
  // This machine's own name passes the create check (not an IP, not localhost) but resolves to
  // a loopback or private address (/etc/hosts) — what DNS rebinding would do.
  const name = hostname();
  const { address } = await lookup(name);
  expect(nonPublicRange(address)).not.toBeNull();
  const byName = await api('POST', '/webhook', { url: `http://${name}:${receiver.port}/by-name` });
  expect(byName.status).toBe(200);

  // An endpoint stored before the deployment refused private URLs.
  const cipher = new PhiCipher(stack.config.phiEncryptionKey);
  const stored = await stack.db.getRepository(WebhookEndpointEntity).save({
    id: randomUUID(),
    teamId: tenant.teamId,
    environment: 'sandbox',
    url: receiver.url('/stored'),
    description: '',
    rateLimit: null,
    disabled: false,
    filterTypes: null,
    secretEnc: cipher.encrypt(generateWebhookSecret()),
    previousSecretEnc: null,
    previousSecretExpiresAt: null,
    headersEnc: null,
    sensitiveHeaders: [],
  });

  const [eventId] = await stack.api
    .get(OutboxService)
    .emit([{ eventType: 'labtest.order.created', teamId: tenant.teamId, environment: 'sandbox', userId: randomUUID(), clientUserId: 'c', data: {} }]);
  for (const [id, error] of [
    [byName.body.id as string, /resolves to non-public address/],
    [stored.id, /^Refused: The URL must not point at a private, loopback, link-local or other non-public address/],
  ] as const) {
    const message = await waitFor(async () => {
      const body = (await api('GET', `/webhook/${id}/messages/${eventId}`)).body;
      return body.status === 'exhausted' && body;
    });
    expect(message.attempt_count).toBe(3);
    const attempts = (await api('GET', `/webhook/${id}/messages/${eventId}/attempts`)).body.data;
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ status: 'failed', response_status_code: null });
      expect(attempt.error).toMatch(error);
    }
  }
  expect(receiver.requests).toHaveLength(0);
});

describe('event destinations (RabbitMQ URIs) in the same deployment', () => {
  const pipelines = (body: unknown) =>
    call(stack.managementUrl, 'POST', `/v1/org/${tenant.orgId}/team_etl_pipelines/sandbox/us`, { headers: { 'X-Management-Key': tenant.managementKey }, body });
  const rabbit = (uri: string) => ({
    team_ids: [tenant.teamId],
    preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
    rabbitmq: { uri, exchange: 'junction.events' },
  });
  const stored = () => stack.db.query(`SELECT id FROM etl_pipelines WHERE team_id = $1`, [tenant.teamId]);

  test.each([
    'amqp://guest:guest@127.0.0.1:5672/',
    'amqp://localhost',
    'amqps://[::1]:5671/vhost',
    'amqp://10.0.0.5',
    'amqps://169.254.169.254',
    'amqp://0x7f.1',
    'amqps://[2002:a00:1::1]:5671/vhost',
  ])('refuses %s and stores nothing', async (uri) => {
    const refused = await pipelines(rabbit(uri));
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'rabbitmq', 'uri'], type: 'url_not_allowed' });
    // The refusal does not echo the password back.
    expect(JSON.stringify(refused.body)).not.toContain('guest:guest');
    expect(await stored()).toHaveLength(0);
  });

  test('accepts a public host', async () => {
    const accepted = await pipelines(rabbit('amqps://labflow:secret@mq.example.com:5671/prod'));
    expect(accepted.status).toBe(200);
    expect(await stored()).toHaveLength(1);
  });
});

describe('event destinations (RabbitMQ) at delivery time', () => {
  const message = () => ({ exchange: '', routingKey: 'labflow.safety-test', messageId: randomUUID(), body: Buffer.from('{}'), timestamp: 0 });

  test('refuses a stored private URI, and a host name that resolves to a private address, before connecting', async () => {
    const { RabbitMqPublisher } = await import('../../src/events/rabbitmq.publisher');
    const publisher = new RabbitMqPublisher(5_000, false);
    try {
      await expect(publisher.publish('amqp://guest:guest@127.0.0.1:5672/', message())).rejects.toThrow(/Refused: .*private, loopback/);
      // This machine's own name passes the URI check but resolves to a loopback or private address.
      await expect(publisher.publish(`amqp://guest:guest@${hostname()}:5672/`, message())).rejects.toThrow(/non-public address/);
    } finally {
      await publisher.close();
    }
    // The same broker is reachable when private targets are allowed: the refusal above was the check.
    const allowed = new RabbitMqPublisher(5_000, true);
    try {
      await expect(allowed.publish('amqp://guest:guest@127.0.0.1:5672/', message())).resolves.toBeUndefined();
    } finally {
      await allowed.close();
    }
  });
});
