import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { userDeletionWorkflowId } from '../../workflows/contract';

const UI_ORIGIN = 'http://127.0.0.1:8233';

describe('PHI in Temporal payloads', () => {
  let stack: TestStack;
  let tenant: Tenant;
  beforeAll(async () => {
    stack = await startStack({ management: true, env: { USER_DELETION_GRACE: '1s' } });
    tenant = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  async function startedInput(userId: string) {
    const handle = stack.temporal.workflow.getHandle(userDeletionWorkflowId(userId));
    await handle.result();
    const history = await handle.fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!payload) throw new Error('no input payload');
    return payload;
  }

  it('stores workflow inputs as AES-GCM ciphertext in the history', async () => {
    const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `codec-${randomUUID()}` } });
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.body.user_id}`, { key: tenant.apiKey });
    const payload = await startedInput(user.body.user_id);

    expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(Buffer.from(payload.data!).toString('latin1')).not.toContain(user.body.user_id);
  });

  it('decodes them through the codec endpoint the Temporal UI calls, with CORS for the UI only', async () => {
    const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `codec-${randomUUID()}` } });
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.body.user_id}`, { key: tenant.apiKey });
    const payload = await startedInput(user.body.user_id);
    const asJson = {
      metadata: Object.fromEntries(Object.entries(payload.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
      data: Buffer.from(payload.data!).toString('base64'),
    };

    const preflight = await fetch(`${stack.managementUrl}/codec/decode`, {
      method: 'OPTIONS',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);

    const decoded = await call(stack.managementUrl, 'POST', '/codec/decode', {
      body: { payloads: [asJson] },
      headers: { origin: UI_ORIGIN, 'x-namespace': stack.config.temporal.namespace },
    });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const plain = decoded.body.payloads[0];
    expect(Buffer.from(plain.metadata.encoding, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(plain.data, 'base64').toString())).toMatchObject({ userId: user.body.user_id, teamId: tenant.teamId });

    const otherOrigin = await call(stack.managementUrl, 'POST', '/codec/decode', {
      body: { payloads: [asJson] },
      headers: { origin: 'http://evil.example' },
    });
    expect(otherOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('requires a management key on the codec endpoint when configured (production default)', async () => {
    const guarded = await startStack({ worker: false, management: true, env: { CODEC_REQUIRE_KEY: 'true' } });
    try {
      const body = { payloads: [] };
      expect((await call(guarded.managementUrl, 'POST', '/codec/decode', { body })).status).toBe(401);
      const withKey = await call(guarded.managementUrl, 'POST', '/codec/decode', {
        body,
        headers: { authorization: `Bearer ${tenant.managementKey}` },
      });
      expect(withKey).toMatchObject({ status: 200, body: { payloads: [] } });
    } finally {
      await guarded.close();
    }
  });
});
