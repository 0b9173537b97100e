import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

describe('errors are {detail} with a 4xx, never a 5xx', () => {
  let stack: TestStack;
  let tenant: Tenant;
  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { BODY_LIMIT_BYTES: '65536' } });
    tenant = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  it('answers malformed JSON with 400 {detail}', async () => {
    const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, rawBody: '{"client_user_id": ' });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/JSON/);
  });

  it('answers an oversized body with 413 {detail}', async () => {
    const response = await call(stack.apiUrl, 'POST', '/v2/user', {
      key: tenant.apiKey,
      body: { client_user_id: 'x'.repeat(70_000) },
    });
    expect(response.status).toBe(413);
    expect(response.body.detail).toMatch(/too large/);
  });

  it('answers unknown routes and methods with 404 {detail}', async () => {
    for (const [method, path] of [
      ['GET', '/v9/nothing'],
      ['PUT', '/v2/user'],
      ['GET', '/'],
    ]) {
      const response = await call(stack.apiUrl, method, path, { key: tenant.apiKey });
      expect(response.status).toBe(404);
      expect(typeof response.body.detail).toBe('string');
    }
  });

  it('answers wrong types with 422 in the FastAPI shape', async () => {
    const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: 42 } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', 'client_user_id'], msg: 'Input should be a valid string', type: 'string_type', input: 42 }],
    });
  });

  it('answers a missing field with type "missing" and a non-object body with 422', async () => {
    const missing = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'client_user_id'], type: 'missing', msg: 'Field required' });
    const array = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: [1, 2] });
    expect(array.status).toBe(422);
    expect(array.body.detail[0].loc).toEqual(['body']);
  });

  it('answers a non-UUID user id with 422 naming the path parameter', async () => {
    const response = await call(stack.apiUrl, 'GET', '/v2/user/not-a-uuid', { key: tenant.apiKey });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['path', 'user_id']);
  });

  describe('regressions found by the property test', () => {
    it('answers a 5,000-level nested body with 422 and a short echo', async () => {
      const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}` });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].input).toMatch(/omitted/);
    });

    it('refuses NUL characters with 422 before they reach Postgres', async () => {
      const body = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: 'a\u0000b' } });
      expect(body.status).toBe(422);
      expect(body.body.detail[0]).toMatchObject({ loc: ['body', 'client_user_id'], type: 'string_nul' });
      const path = await call(stack.apiUrl, 'GET', '/v2/user/resolve/%00', { key: tenant.apiKey });
      expect(path.status).toBe(422);
      expect(path.body.detail[0].loc).toEqual(['path', 'client_user_id']);
    });

    it('refuses year 0000 dates with 422', async () => {
      const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: 'y0', ingestion_start: '0000-01-01' } });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'ingestion_start']);
    });

    it('resolves a 255-character client_user_id and answers a malformed URL with 400 {detail}', async () => {
      const long = 'c'.repeat(255);
      expect((await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: long } })).status).toBe(200);
      expect((await call(stack.apiUrl, 'GET', `/v2/user/resolve/${long}`, { key: tenant.apiKey })).status).toBe(200);
      const badUrl = await call(stack.apiUrl, 'GET', '/v2/user/%zz', { key: tenant.apiKey });
      expect(badUrl.status).toBe(400);
      expect(typeof badUrl.body.detail).toBe('string');
    });
  });

  it('leaves nothing half-written when a request fails', async () => {
    const before = await stack.db.query('SELECT count(*)::int AS n FROM users WHERE team_id = $1', [tenant.teamId]);
    await call(stack.apiUrl, 'POST', '/v2/user', {
      key: tenant.apiKey,
      body: { client_user_id: 'ok', ingestion_start: '2024-02-01', ingestion_end: '2024-01-01' },
    });
    const after = await stack.db.query('SELECT count(*)::int AS n FROM users WHERE team_id = $1', [tenant.teamId]);
    expect(after).toEqual(before);
  });
});

describe('/health', () => {
  it('reports Postgres, Redis and Temporal up, without a key; the management API only Postgres, all it needs', async () => {
    const stack = await startStack({ worker: false, management: true });
    try {
      const response = await call(stack.apiUrl, 'GET', '/health');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'ok',
        checks: { postgres: { status: 'up' }, redis: { status: 'up' }, temporal: { status: 'up', namespace: stack.config.temporal.namespace } },
      });
      const management = await call(stack.managementUrl, 'GET', '/health');
      expect(management.status).toBe(200);
      expect(management.body).toMatchObject({ status: 'ok', checks: { postgres: { status: 'up' } } });
      expect(Object.keys(management.body.checks)).toEqual(['postgres']);
      expect(await call(stack.managementUrl, 'GET', '/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await stack.close();
    }
  });

  it('answers 503 {detail} naming the dependency that is down', async () => {
    const stack = await startStack({ worker: false, env: { TEMPORAL_ADDRESS: '127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1/0' } });
    try {
      const response = await call(stack.apiUrl, 'GET', '/health');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({
        detail: expect.any(String),
        status: 'error',
        checks: { postgres: { status: 'up' }, redis: { status: 'down' }, temporal: { status: 'down' } },
      });
    } finally {
      await stack.close();
    }
  });
});
