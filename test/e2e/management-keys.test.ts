import { randomUUID } from 'node:crypto';
import { ManagementKeyEntity, TeamApiKeyEntity } from '../../src/tenancy/entities';
import { eventually } from '../helpers/eventually';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
});
afterAll(async () => stack?.close());

const mg = (key: string) => ({ 'X-Management-Key': key });

function client(tenant: Tenant, key = tenant.managementKey) {
  return (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${tenant.orgId}${path}`, { headers: mg(key), body });
}

describe('management keys', () => {
  test('create returns the value once; list, patch and delete never show it', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const created = await api('POST', '/management_key', { label: 'ops', role: 'team_admin', team_role_bindings: [{ team_id: tenant.teamId }] });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      label: 'ops',
      created_at: expect.any(String),
      role: 'team_admin',
      team_role_bindings: [{ team_id: tenant.teamId }],
      creator: { type: 'management_key', id: tenant.managementKeyId },
      key: expect.stringMatching(/^mg_[0-9A-Za-z]{64}$/),
    });
    // Only the hash is stored.
    const row = await stack.db.getRepository(ManagementKeyEntity).findOneByOrFail({ id: created.body.id });
    expect(row.keyHash.toString('utf8')).not.toContain(created.body.key);

    const listed = await api('GET', '/management_key');
    expect(listed.body.next_cursor).toBeNull();
    expect(listed.body.data.map((k: { id: string }) => k.id).sort()).toEqual([tenant.managementKeyId, created.body.id].sort());
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect((await api('GET', '/management_key?role=org_admin')).body.data.map((k: { id: string }) => k.id)).toEqual([tenant.managementKeyId]);
    expect((await api('GET', `/management_key?team_id=${tenant.teamId}`)).body.data.map((k: { id: string }) => k.id)).toEqual([created.body.id]);

    const patched = await api('PATCH', `/management_key/${created.body.id}`, { label: 'ops 2' });
    expect(patched.body).toMatchObject({ id: created.body.id, label: 'ops 2' });
    expect(patched.body.key).toBeUndefined();

    // The new key works at once, with either header.
    const viaNew = await call(stack.managementUrl, 'GET', `/v1/org/${tenant.orgId}/team/${tenant.teamId}`, { headers: mg(created.body.key) });
    expect(viaNew.status).toBe(200);
    const viaOld = await call(stack.managementUrl, 'GET', `/v1/org/${tenant.orgId}/team/${tenant.teamId}`, {
      headers: { 'X-Service-Org-Key': created.body.key },
    });
    expect(viaOld.status).toBe(200);

    expect((await api('DELETE', `/management_key/${created.body.id}`)).body).toEqual({ success: true });
    // Revoked: refused on the next request.
    const after = await call(stack.managementUrl, 'GET', `/v1/org/${tenant.orgId}/team/${tenant.teamId}`, { headers: mg(created.body.key) });
    expect(after.status).toBe(401);
    expect((await api('DELETE', `/management_key/${created.body.id}`)).status).toBe(404);
    expect((await api('GET', '/management_key')).body.data).toHaveLength(1);
  });

  test('bindings: team_admin needs teams of the org; org_admin takes none', async () => {
    const tenant = await createTenant(stack.db);
    const other = await createTenant(stack.db);
    const api = client(tenant);
    const none = await api('POST', '/management_key', { label: 'x', role: 'team_admin' });
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(['body', 'team_role_bindings']);
    const foreign = await api('POST', '/management_key', {
      label: 'x',
      role: 'team_admin',
      team_role_bindings: [{ team_id: tenant.teamId }, { team_id: other.teamId }],
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(['body', 'team_role_bindings', 1, 'team_id']);
    const orgWithTeams = await api('POST', '/management_key', { label: 'x', role: 'org_admin', team_role_bindings: [{ team_id: tenant.teamId }] });
    expect(orgWithTeams.status).toBe(422);
    const badRole = await api('POST', '/management_key', { label: 'x', role: 'root' });
    expect(badRole.body.detail[0]).toMatchObject({ loc: ['body', 'role'], type: 'enum' });

    // Re-binding a team-admin key moves its scope at once.
    const second = (await api('POST', '/team', { name: 'Second', region: 'us' })).body.id;
    const key = (await api('POST', '/management_key', { label: 'k', role: 'team_admin', team_role_bindings: [{ team_id: tenant.teamId }] })).body;
    const scoped = client(tenant, key.key);
    expect((await scoped('GET', `/team/${second}`)).status).toBe(403);
    await api('PATCH', `/management_key/${key.id}`, { team_role_bindings: [{ team_id: second }] });
    expect((await scoped('GET', `/team/${second}`)).status).toBe(200);
    expect((await scoped('GET', `/team/${tenant.teamId}`)).status).toBe(403);
    const rebindOrgKey = await api('PATCH', `/management_key/${tenant.managementKeyId}`, { team_role_bindings: [{ team_id: second }] });
    expect(rebindOrgKey.status).toBe(422);
  });

  test("an org's last org key cannot be deleted", async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const last = await api('DELETE', `/management_key/${tenant.managementKeyId}`);
    expect(last.status).toBe(409);
    expect(typeof last.body.detail).toBe('string');
    const spare = (await api('POST', '/management_key', { label: 'spare', role: 'org_admin' })).body;
    expect((await api('DELETE', `/management_key/${tenant.managementKeyId}`)).status).toBe(200);
    // The deleted key is refused; the spare carries on.
    expect((await api('GET', '')).status).toBe(401);
    expect((await client(tenant, spare.key)('GET', '')).status).toBe(200);
  });

  test('a management key of another org cannot touch this org’s keys', async () => {
    const tenant = await createTenant(stack.db);
    const other = await createTenant(stack.db);
    const result = await call(stack.managementUrl, 'DELETE', `/v1/org/${other.orgId}/management_key/${other.managementKeyId}`, {
      headers: mg(tenant.managementKey),
    });
    expect(result.status).toBe(404);
    const own = await client(tenant)('PATCH', `/management_key/${other.managementKeyId}`, { label: 'x' });
    expect(own.status).toBe(404);
  });
});

describe('team API keys', () => {
  test('a key revoked through the management API is refused by the main API on the next request', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const created = await api('POST', '/team_api_keys/sandbox/us', { label: 'backend', team_id: tenant.teamId });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      label: 'backend',
      value: expect.stringMatching(/^sk_us_/),
      team_id: tenant.teamId,
      created_at: expect.any(String),
    });

    expect((await call(stack.apiUrl, 'GET', '/v2/user', { key: created.body.value })).status).toBe(200);
    const revoked = await api('DELETE', `/team_api_keys/sandbox/us?api_key_id=${created.body.id}`);
    expect(revoked.body).toEqual({ success: [created.body.id], failure: [], not_found: [] });
    // Refused as soon as the revocation's NOTIFY reaches the API (its key cache; key-cache.test.ts).
    const refused = await eventually(
      async () => {
        const response = await call(stack.apiUrl, 'GET', '/v2/user', { key: created.body.value });
        return response.status === 401 ? response : undefined;
      },
      'the revoked key to be refused',
      5_000,
      20,
    );
    expect(refused.status).toBe(401);
    // The other key of the team is untouched.
    expect((await call(stack.apiUrl, 'GET', '/v2/user', { key: tenant.apiKey })).status).toBe(200);
    // Revoking again is harmless.
    const again = await api('DELETE', `/team_api_keys/sandbox/us?api_key_id=${created.body.id}`);
    expect(again.body.success).toEqual([created.body.id]);
  });

  test('list hides values and revoked keys; scope is environment and region', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const sandbox = (await api('POST', '/team_api_keys/sandbox/us', { label: 's', team_id: tenant.teamId })).body;
    const production = (await api('POST', '/team_api_keys/production/us', { label: 'p', team_id: tenant.teamId })).body;
    const listed = await api('GET', `/team_api_keys/sandbox/us?team_id=${tenant.teamId}`);
    expect(listed.status).toBe(200);
    const ids = listed.body.api_keys.map((k: { id: string }) => k.id);
    expect(ids).toEqual(expect.arrayContaining([tenant.apiKeyId, sandbox.id]));
    expect(ids).not.toContain(production.id);
    expect(JSON.stringify(listed.body)).not.toContain(sandbox.value);
    expect(listed.body.api_keys.find((k: { id: string }) => k.id === sandbox.id)).toEqual({
      id: sandbox.id,
      label: 's',
      team_id: tenant.teamId,
      created_at: expect.any(String),
      key_prefix: sandbox.value.slice(0, 10),
    });
    // Production keys authenticate as production.
    expect((await call(stack.apiUrl, 'GET', '/v2/user', { key: production.value })).status).toBe(200);

    // Revoking in the wrong environment finds nothing.
    const wrongEnv = await api('DELETE', `/team_api_keys/sandbox/us?api_key_id=${production.id}`);
    expect(wrongEnv.body).toEqual({ success: [], failure: [], not_found: [production.id] });

    // Bulk: several ids, one unknown.
    const unknown = randomUUID();
    const bulk = await api('DELETE', `/team_api_keys/sandbox/us?api_key_id=${sandbox.id}&api_key_id=${tenant.apiKeyId}&api_key_id=${unknown}`);
    expect(bulk.body).toEqual({ success: [sandbox.id, tenant.apiKeyId], failure: [], not_found: [unknown] });
    expect((await api('GET', `/team_api_keys/sandbox/us?team_id=${tenant.teamId}`)).body.api_keys).toEqual([]);
    const stored = await stack.db.getRepository(TeamApiKeyEntity).findOneByOrFail({ id: sandbox.id });
    expect(stored.revokedAt).toBeInstanceOf(Date);
  });

  test('a key for a team in another region is refused; api_key_id is validated', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const wrongRegion = await api('POST', '/team_api_keys/sandbox/eu', { label: 'x', team_id: tenant.teamId });
    expect(wrongRegion.status).toBe(422);
    expect(wrongRegion.body.detail[0].loc).toEqual(['path', 'region']);
    const noIds = await api('DELETE', '/team_api_keys/sandbox/us');
    expect(noIds.status).toBe(422);
    expect(noIds.body.detail[0]).toMatchObject({ loc: ['query', 'api_key_id'], type: 'missing' });
    const badId = await api('DELETE', '/team_api_keys/sandbox/us?api_key_id=abc');
    expect(badId.body.detail[0].loc).toEqual(['query', 'api_key_id', 0]);
    const badEnv = await api('GET', '/team_api_keys/staging/us');
    expect(badEnv.body.detail[0].loc).toEqual(['path', 'env']);
  });

  test('team-admin keys see and revoke only their teams’ keys', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const second = (await api('POST', '/team', { name: 'Second', region: 'us' })).body.id;
    const secondKey = (await api('POST', '/team_api_keys/sandbox/us', { label: 'x', team_id: second })).body;
    const admin = (await api('POST', '/management_key', { label: 'a', role: 'team_admin', team_role_bindings: [{ team_id: tenant.teamId }] })).body;
    const scoped = client(tenant, admin.key);
    const listed = await scoped('GET', '/team_api_keys/sandbox/us');
    expect(listed.body.api_keys.map((k: { id: string }) => k.id)).toEqual([tenant.apiKeyId]);
    const bulk = await scoped('DELETE', `/team_api_keys/sandbox/us?api_key_id=${secondKey.id}&api_key_id=${tenant.apiKeyId}`);
    // Another team's key is unknown to this key, as a random id is.
    expect(bulk.body).toEqual({ success: [tenant.apiKeyId], failure: [], not_found: [secondKey.id] });
    expect((await call(stack.apiUrl, 'GET', '/v2/user', { key: secondKey.value })).status).toBe(200);
  });
});
