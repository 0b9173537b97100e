import { VitalClient, VitalError } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';

/**
 * The team routes the SDK calls: `GET /v2/team/link/config` (the Link widget's settings as the
 * management API sets them, for the link token the SDK sends alone) and the source priorities,
 * read and written (the SDK's PATCH sends no body: it changes nothing), which the reads merging
 * sources follow.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
const day = '2026-11-20';

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const api = (method: string, path: string, body?: unknown, key = tenant.apiKey) => call(stack.apiUrl, method, path, { key, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `team-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

describe('GET /v2/team/link/config', () => {
  it("answers the link token's team's widget settings as the management API set them", async () => {
    const management = teamManagementApi(stack, tenant);
    const patched = await management('PATCH', '', {
      logo_url: 'https://example.com/logo.png',
      brand_information: { company_name: 'Acme Health', primary_color: '#123456' },
      sandbox: { link_theme: 'dark', link_show_logo: true },
      production: { link_theme: 'light' },
    });
    expect(patched.status).toBe(200);
    const userId = await createUser();
    const { linkToken } = await client.link.token({ userId, filterOnProviders: ['oura', 'fitbit'] });

    const config = await client.team.getLinkConfig({ vitalLinkToken: linkToken });
    expect(config).toMatchObject({
      team_id: tenant.teamId,
      environment: 'sandbox',
      name: 'Acme Health',
      logo_url: 'https://example.com/logo.png',
      brand_information: { company_name: 'Acme Health', primary_color: '#123456' },
      settings: { link_theme: 'dark', link_show_logo: true },
      providers: ['oura', 'fitbit'],
    });
  });

  it('refuses a missing or unknown link token', async () => {
    expect((await call(stack.apiUrl, 'GET', '/v2/team/link/config')).status).toBe(401);
    const unknown = await client.team.getLinkConfig({ vitalLinkToken: 'not-a-token' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(VitalError);
    expect((unknown as VitalError).statusCode).toBe(401);
  });
});

describe('source priorities', () => {
  it('are read and written; the SDK’s PATCH (no body) changes nothing', async () => {
    expect(await client.team.getSourcePriorities()).toEqual([]);
    const set = await api('PATCH', '/v2/team/source/priorities', [
      { data_type: 'sleep', source: 'oura', priority: 1 },
      { data_type: 'sleep', source: 'fitbit', priority: 2 },
      { data_type: 'timeseries', source: 'apple_health_kit', priority: 1 },
    ]);
    expect(set.status).toBe(200);
    expect(set.body).toHaveLength(3);

    const untouched = await client.team.updateSourcePriorities();
    expect(untouched).toEqual(set.body);
    expect(await client.team.getSourcePriorities({ dataType: 'sleep' })).toEqual([
      { data_type: 'sleep', source: expect.objectContaining({ slug: 'oura', name: 'Oura' }), priority: 1 },
      { data_type: 'sleep', source: expect.objectContaining({ slug: 'fitbit' }), priority: 2 },
    ]);

    // null drops a ranking.
    const dropped = await api('PATCH', '/v2/team/source/priorities', [{ data_type: 'sleep', source: 'fitbit', priority: null }]);
    expect(dropped.body.filter((entry: { data_type: string }) => entry.data_type === 'sleep')).toHaveLength(1);
  });

  it('refuse what cannot be ranked (422), and are the team’s own', async () => {
    expect((await api('PATCH', '/v2/team/source/priorities', [{ data_type: 'sleep', source: 'nope', priority: 1 }])).status).toBe(422);
    expect((await api('PATCH', '/v2/team/source/priorities', [{ data_type: 'steps', source: 'oura', priority: 1 }])).status).toBe(422);
    expect((await api('PATCH', '/v2/team/source/priorities', [{ data_type: 'sleep', source: 'oura', priority: 0 }])).status).toBe(422);
    expect((await api('GET', '/v2/team/source/priorities?data_type=steps')).status).toBe(422);
    const other = await createTenant(stack.db);
    expect((await api('GET', '/v2/team/source/priorities', undefined, other.apiKey)).body).toEqual([]);
  });

  it('decide which provider answers a merged read: the preferred one where two report the same instant or day', async () => {
    const userId = await createUser();
    for (const [provider, value] of [
      ['apple_health_kit', 61],
      ['oura', 70],
    ] as const) {
      expect(
        (
          await api('POST', `/v2/timeseries/${userId}/heartrate`, {
            provider,
            data: [{ timestamp: `${day}T08:00:00Z`, value }, ...(provider === 'oura' ? [{ timestamp: `${day}T09:00:00Z`, value: 72 }] : [])],
          })
        ).status,
      ).toBe(200);
    }
    // apple_health_kit ranks first for timeseries (set above): it answers 08:00; 09:00 only oura reported.
    const merged = await api('GET', `/v2/timeseries/${userId}/heartrate?start_date=${day}&end_date=${day}`);
    expect(merged.body.map((sample: { value: number }) => sample.value)).toEqual([61, 72]);
    // A provider filter answers that provider's samples whatever the ranking.
    const oura = await api('GET', `/v2/timeseries/${userId}/heartrate?start_date=${day}&end_date=${day}&provider=oura`);
    expect(oura.body.map((sample: { value: number }) => sample.value)).toEqual([70, 72]);
    // Dropping the ranking answers every source again.
    await api('PATCH', '/v2/team/source/priorities', [{ data_type: 'timeseries', source: 'apple_health_kit', priority: null }]);
    const all = await api('GET', `/v2/timeseries/${userId}/heartrate?start_date=${day}&end_date=${day}`);
    expect(all.body.map((sample: { value: number }) => sample.value).sort()).toEqual([61, 70, 72]);
  });
});
