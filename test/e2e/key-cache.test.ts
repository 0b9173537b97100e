import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { API_DOCUMENT, ApiModule } from '../../src/app.module';
import { createHttpApp } from '../../src/common/http-app';
import { eventually } from '../helpers/eventually';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Two API replicas keep the team keys they verified in memory for an hour here (longer than any
 * test), so only the revocation notice can make them refuse a key: revoked through the management
 * API or by hand in SQL, deleted with its team, the key is refused by both as soon as the NOTIFY
 * reaches them (milliseconds; on a machine loaded far past its cores, the next request can come
 * first, so each check waits up to 5 s: 700 times shorter than the cache's lifetime here).
 */
describe('verified team keys across API replicas', () => {
  let stack: TestStack;
  let second: NestFastifyApplication;
  let secondUrl: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false, management: true, env: { API_KEY_CACHE_TTL: '1h' } });
    second = await createHttpApp(ApiModule.forRoot(stack.config), stack.config, API_DOCUMENT);
    await second.listen({ port: 0, host: '127.0.0.1' });
    const address = second.getHttpServer().address();
    secondUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await second?.close();
    await stack?.close();
  });

  const replicas = () => [stack.apiUrl, secondUrl];
  const statusOn = async (url: string, key: string) => (await call(url, 'GET', '/v2/user', { key })).status;
  const newKey = async (tenant: Tenant) => {
    const created = await call(stack.managementUrl, 'POST', `/v1/org/${tenant.orgId}/team_api_keys/sandbox/us`, {
      headers: { 'x-management-key': tenant.managementKey },
      body: { label: 'replicas', team_id: tenant.teamId },
    });
    expect(created.status).toBe(200);
    return created.body as { id: string; value: string };
  };
  /** The key's 401 from `url`, once the revocation notice has reached it (at most 5 s). */
  const refusedSoon = (url: string, key: string) =>
    eventually(
      async () => {
        const response = await call(url, 'GET', '/v2/user', { key });
        return response.status === 401 ? response : undefined;
      },
      `${url} to refuse the revoked key`,
      5_000,
      20,
    );
  /** Both replicas accept the key, twice each: the second answer comes from their caches. */
  const acceptedTwiceByBoth = async (key: string) => {
    for (let i = 0; i < 2; i += 1) for (const url of replicas()) expect(await statusOn(url, key)).toBe(200);
  };

  it('a key revoked through the management API is refused by both replicas on the next request', async () => {
    const tenant = await createTenant(stack.db);
    const key = await newKey(tenant);
    await acceptedTwiceByBoth(key.value);
    const revoked = await call(stack.managementUrl, 'DELETE', `/v1/org/${tenant.orgId}/team_api_keys/sandbox/us?api_key_id=${key.id}`, {
      headers: { 'x-management-key': tenant.managementKey },
    });
    expect(revoked.body).toEqual({ success: [key.id], failure: [], not_found: [] });
    for (const url of replicas()) {
      const refused = await refusedSoon(url, key.value);
      expect(refused.body).toEqual({ detail: 'Invalid or revoked API key.' });
    }
    // The team's other key is untouched, and still served from the caches.
    for (const url of replicas()) expect(await statusOn(url, tenant.apiKey)).toBe(200);
  });

  it('whatever revokes it: SQL by hand, or deleting the team', async () => {
    const byHand = await createTenant(stack.db);
    await acceptedTwiceByBoth(byHand.apiKey);
    await stack.db.query(`UPDATE team_api_keys SET revoked_at = now() WHERE id = $1`, [byHand.apiKeyId]);
    for (const url of replicas()) await refusedSoon(url, byHand.apiKey);

    const doomed = await createTenant(stack.db);
    await acceptedTwiceByBoth(doomed.apiKey);
    await stack.db.query(`DELETE FROM team_api_keys WHERE team_id = $1`, [doomed.teamId]);
    for (const url of replicas()) await refusedSoon(url, doomed.apiKey);
  });
});
