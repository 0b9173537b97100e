import { Webhook } from 'standardwebhooks';
import { PhiCipher } from '../../src/common/crypto';
import { signingSecrets } from '../../src/events/signing-secrets';
import { WebhookEndpointEntity } from '../../src/management/webhooks/webhook-endpoint.entity';
import { createTenant, type HttpResult, startStack, type Tenant, type TestStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';

let stack: TestStack;
let tenant: Tenant;
let api: TeamManagementApi;

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
  tenant = await createTenant(stack.db);
  api = teamManagementApi(stack, tenant);
});
afterAll(async () => stack?.close());

const cipher = () => new PhiCipher(stack.config.phiEncryptionKey);
const stored = (id: string) => stack.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id });

describe('webhook endpoints', () => {
  test('create, get, patch, list, delete', async () => {
    const created = await api('POST', '/sandbox/webhook', {
      url: 'https://hooks.example.com/labflow',
      description: 'orders',
      filter_types: ['labtest.order.created', 'labtest.order.updated'],
      rate_limit: 10,
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      description: 'orders',
      rate_limit: 10,
      url: 'https://hooks.example.com/labflow',
      disabled: false,
      filter_types: ['labtest.order.created', 'labtest.order.updated'],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id;
    expect((await api('GET', `/sandbox/webhook/${id}`)).body).toEqual(created.body);
    // Environments are separate collections.
    expect((await api('GET', `/production/webhook/${id}`)).status).toBe(404);

    const patched = await api('PATCH', `/sandbox/webhook/${id}`, { disabled: true, filter_types: [], rate_limit: null });
    expect(patched.body).toMatchObject({ disabled: true, filter_types: null, rate_limit: null, description: 'orders' });

    const listed = await api('GET', '/sandbox/webhook');
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(id);
    expect(listed.body.data[0]).not.toHaveProperty('secret');

    const deleted = await api('DELETE', `/sandbox/webhook/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await api('GET', `/sandbox/webhook/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/sandbox/webhook/${id}`)).status).toBe(404);
  });

  test('list pages with limit and next_cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api('POST', '/production/webhook', { url: `https://example.com/${i}` })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: HttpResult = await api('GET', `/production/webhook?limit=2${cursor ? `&next_cursor=${cursor}` : ''}`);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((w: { id: string }) => w.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect((await api('GET', '/production/webhook?limit=0')).body.detail[0].loc).toEqual(['query', 'limit']);
    expect((await api('GET', '/production/webhook?limit=251')).status).toBe(422);
  });

  test('URL, secret and field validation', async () => {
    const ftp = await api('POST', '/sandbox/webhook', { url: 'ftp://example.com/x' });
    expect(ftp.status).toBe(422);
    expect(ftp.body.detail[0].loc).toEqual(['body', 'url']);
    const creds = await api('POST', '/sandbox/webhook', { url: 'https://user:pw@example.com/x' });
    expect(creds.status).toBe(422);
    const badSecret = await api('POST', '/sandbox/webhook', { url: 'https://example.com', secret: 'plain' });
    expect(badSecret.body.detail[0].loc).toEqual(['body', 'secret']);
    const shortSecret = await api('POST', '/sandbox/webhook', { url: 'https://example.com', secret: `whsec_${Buffer.alloc(8).toString('base64')}` });
    expect(shortSecret.status).toBe(422);
    const extra = await api('POST', '/sandbox/webhook', { url: 'https://example.com', headers: {} });
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'headers'], type: 'extra_forbidden' });
    const badType = await api('POST', '/sandbox/webhook', { url: 'https://example.com', filter_types: ['Not An Event'] });
    expect(badType.body.detail[0].loc).toEqual(['body', 'filter_types', 0]);
  });
});

describe('signing secret', () => {
  test('generated in Standard Webhooks format, encrypted at rest, verifiable', async () => {
    const { id } = (await api('POST', '/sandbox/webhook', { url: 'https://example.com/s' })).body;
    const secret = await api('GET', `/sandbox/webhook/${id}/secret`);
    expect(secret.status).toBe(200);
    expect(secret.body.key).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.body.key.slice(6), 'base64')).toHaveLength(24);

    const row = await stored(id);
    expect(row.secretEnc).not.toContain(secret.body.key.slice(6));
    expect(cipher().decrypt(row.secretEnc)).toBe(secret.body.key);

    // A receiver using the standardwebhooks package accepts a payload signed with it.
    const webhook = new Webhook(secret.body.key);
    const payload = JSON.stringify({ event_type: 'x' });
    const msgId = 'msg_1';
    const timestamp = new Date();
    const signature = webhook.sign(msgId, timestamp, payload);
    expect(() =>
      webhook.verify(payload, {
        'webhook-id': msgId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      }),
    ).not.toThrow();
  });

  test('a supplied secret is kept', async () => {
    const supplied = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const { id } = (await api('POST', '/sandbox/webhook', { url: 'https://example.com/t', secret: supplied })).body;
    expect((await api('GET', `/sandbox/webhook/${id}/secret`)).body.key).toBe(supplied);
  });

  test('rotation: the new secret is current, the old one keeps signing for 24 hours', async () => {
    const { id } = (await api('POST', '/sandbox/webhook', { url: 'https://example.com/r' })).body;
    const before = (await api('GET', `/sandbox/webhook/${id}/secret`)).body.key;

    const rotated = await api('POST', `/sandbox/webhook/${id}/secret/rotate`);
    expect(rotated.status).toBe(204);
    const after = (await api('GET', `/sandbox/webhook/${id}/secret`)).body.key;
    expect(after).not.toBe(before);
    expect(after).toMatch(/^whsec_/);

    const row = await stored(id);
    expect(cipher().decrypt(row.previousSecretEnc!)).toBe(before);
    const graceHours = (row.previousSecretExpiresAt!.getTime() - Date.now()) / 3_600_000;
    expect(graceHours).toBeGreaterThan(23.9);
    expect(graceHours).toBeLessThanOrEqual(24.01);
    expect(signingSecrets(row, cipher())).toEqual([after, before]);
    expect(signingSecrets(row, cipher(), new Date(Date.now() + 25 * 3_600_000))).toEqual([after]);

    const chosen = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    expect((await api('POST', `/sandbox/webhook/${id}/secret/rotate`, { key: chosen })).status).toBe(204);
    expect((await api('GET', `/sandbox/webhook/${id}/secret`)).body.key).toBe(chosen);
    expect(signingSecrets(await stored(id), cipher())).toEqual([chosen, after]);

    expect((await api('POST', `/sandbox/webhook/${id}/secret/rotate`, { key: 'nope' })).status).toBe(422);
    expect((await api('POST', `/sandbox/webhook/00000000-0000-4000-8000-000000000000/secret/rotate`)).status).toBe(404);
  });
});

describe('custom headers', () => {
  test('put replaces, get masks sensitive values, values are encrypted at rest', async () => {
    const { id } = (await api('POST', '/sandbox/webhook', { url: 'https://example.com/h' })).body;
    expect((await api('GET', `/sandbox/webhook/${id}/headers`)).body).toEqual({ headers: {}, sensitive: [] });

    const put = await api('PUT', `/sandbox/webhook/${id}/headers`, {
      headers: { 'X-Tenant': 'acme', Authorization: 'Bearer t0p-s3cret', 'X-Signing-Hint': 'hint-value' },
      sensitive: ['X-Signing-Hint'],
    });
    expect(put.status).toBe(204);
    const read = await api('GET', `/sandbox/webhook/${id}/headers`);
    expect(read.body).toEqual({
      headers: { 'X-Tenant': 'acme', Authorization: '********', 'X-Signing-Hint': '********' },
      sensitive: ['Authorization', 'X-Signing-Hint'],
    });
    const row = await stored(id);
    expect(row.headersEnc).not.toContain('t0p-s3cret');
    expect(cipher().decryptJson(row.headersEnc!)).toMatchObject({ Authorization: 'Bearer t0p-s3cret' });

    // PUT replaces everything.
    await api('PUT', `/sandbox/webhook/${id}/headers`, { headers: { 'X-Only': '1' } });
    expect((await api('GET', `/sandbox/webhook/${id}/headers`)).body).toEqual({ headers: { 'X-Only': '1' }, sensitive: [] });
    // The webhook object never carries headers.
    expect((await api('GET', `/sandbox/webhook/${id}`)).body).not.toHaveProperty('headers');
  });

  test.each([
    [{ headers: { 'Webhook-Signature': 'x' } }, ['body', 'headers']],
    [{ headers: { 'Content-Type': 'text/plain' } }, ['body', 'headers']],
    [{ headers: { 'X-A': 'line\r\nInjected: yes' } }, ['body', 'headers', 'X-A']],
    [{ headers: { 'Bad Name': 'x' } }, ['body', 'headers', 'Bad Name']],
    [{ headers: { 'X-A': 'x' }, sensitive: ['X-B'] }, ['body', 'sensitive', 0]],
    [{ headers: { 'X-A': 'x', 'x-a': 'y' } }, ['body', 'headers']],
  ])('refuses %j', async (body, loc) => {
    const { id } = (await api('POST', '/sandbox/webhook', { url: 'https://example.com/bad' })).body;
    const result = await api('PUT', `/sandbox/webhook/${id}/headers`, body);
    expect(result.status).toBe(422);
    expect(result.body.detail[0].loc).toEqual(loc);
  });
});
