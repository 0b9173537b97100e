import { randomUUID } from 'node:crypto';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { TeamEntity } from '../../src/tenancy/entities';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Every management route × every kind of caller: org key, team-admin key in scope, team-admin
 * key out of scope, team API key, no key, the deprecated X-Service-Org-Key header, and an org key
 * of an org that is not on the Scale plan.
 */

let stack: TestStack;
let tenant: Tenant;
let grow: Tenant;
/** A team-admin key bound to `inScope` only. */
let teamAdminKey: string;
const teams: { inScope: string; outOfScope: string } = { inScope: '', outOfScope: '' };
const fixtures = new Map<string, { webhookId: string; integrationTeamId: string }>();

const mg = (key: string) => ({ 'X-Management-Key': key });

async function asOrg(method: string, path: string, body?: unknown): Promise<HttpResult> {
  const result = await call(stack.managementUrl, method, path, { headers: mg(tenant.managementKey), body });
  if (result.status >= 300) throw new Error(`${method} ${path} → ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}

const org = () => `/v1/org/${tenant.orgId}`;
const webhookBase = (teamId: string) => `${org()}/team/${teamId}/sandbox/webhook`;

async function freshTeam(): Promise<string> {
  const team = await asOrg('POST', `${org()}/team`, { name: `Fresh ${randomUUID().slice(0, 6)}`, region: 'us' });
  return team.body.id;
}
async function freshWebhook(teamId: string): Promise<string> {
  return (await asOrg('POST', webhookBase(teamId), { url: 'https://example.com/hook' })).body.id;
}
async function freshApiKey(teamId: string): Promise<string> {
  return (await asOrg('POST', `${org()}/team_api_keys/sandbox/us`, { label: 'fresh', team_id: teamId })).body.id;
}
async function freshCredential(teamId: string): Promise<string> {
  const body = { team_id: teamId, provider: `p${randomUUID().slice(0, 8)}`, client_id: 'id', client_secret: 's3cret' };
  return (await asOrg('POST', `${org()}/team_custom_credentials/sandbox/us`, body)).body.id;
}
async function freshManagementKey(): Promise<string> {
  return (await asOrg('POST', `${org()}/management_key`, { label: 'fresh', role: 'org_admin' })).body.id;
}
const pipelineBody = (teamId: string) => ({
  team_ids: [teamId],
  event_type_prefixes: ['labtest.'],
  preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
  rabbitmq: { uri: 'amqps://user:pw@mq.example.com/vhost', exchange: 'events' },
});

type Request = { method: string; path: string; body?: unknown };

interface Route {
  name: string;
  /** org: org keys only. team: org keys and team-admin keys bound to the team. */
  level: 'org' | 'team';
  ok: number;
  request(teamId: string): Promise<Request>;
  /** What a team-admin key gets for a team outside its bindings, when not a plain 403. */
  outOfScope?: (result: HttpResult, request: Request) => void;
}

const refusedInBulk = (field: string) => (result: HttpResult, request: Request) => {
  expect(result.status).toBe(200);
  const id = new URL(`http://x${request.path}`).searchParams.get(field);
  expect(result.body).toEqual({ success: [], failure: [id], not_found: [] });
};

const ROUTES: Route[] = [
  { name: 'GET org', level: 'org', ok: 200, request: async () => ({ method: 'GET', path: org() }) },
  { name: 'PATCH org', level: 'org', ok: 200, request: async () => ({ method: 'PATCH', path: org(), body: { name: 'Renamed org' } }) },
  { name: 'GET teams', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team?team_id=${t}` }) },
  { name: 'POST team', level: 'org', ok: 200, request: async () => ({ method: 'POST', path: `${org()}/team`, body: { name: 'New team', region: 'eu' } }) },
  { name: 'GET team', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team/${t}` }) },
  { name: 'PATCH team', level: 'team', ok: 200, request: async (t) => ({ method: 'PATCH', path: `${org()}/team/${t}`, body: { sandbox: { note: 'x' } } }) },
  { name: 'DELETE team', level: 'org', ok: 200, request: async () => ({ method: 'DELETE', path: `${org()}/team/${await freshTeam()}` }) },
  {
    name: 'POST resolve_team',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'POST', path: `${org()}/resolve_team`, body: { integration_team_id: fixtures.get(t)!.integrationTeamId } }),
    // A team-admin key cannot see teams outside its bindings: they answer as unknown.
    outOfScope: (result) => expect(result.status).toBe(404),
  },
  { name: 'GET management keys', level: 'org', ok: 200, request: async () => ({ method: 'GET', path: `${org()}/management_key` }) },
  {
    name: 'POST management key',
    level: 'org',
    ok: 200,
    request: async (t) => ({ method: 'POST', path: `${org()}/management_key`, body: { label: 'k', role: 'team_admin', team_role_bindings: [{ team_id: t }] } }),
  },
  { name: 'PATCH management key', level: 'org', ok: 200, request: async () => ({ method: 'PATCH', path: `${org()}/management_key/${await freshManagementKey()}`, body: { label: 'new' } }) },
  { name: 'DELETE management key', level: 'org', ok: 200, request: async () => ({ method: 'DELETE', path: `${org()}/management_key/${await freshManagementKey()}` }) },
  { name: 'GET team api keys', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team_api_keys/sandbox/us?team_id=${t}` }) },
  { name: 'POST team api key', level: 'team', ok: 200, request: async (t) => ({ method: 'POST', path: `${org()}/team_api_keys/sandbox/us`, body: { label: 'l', team_id: t } }) },
  {
    name: 'DELETE team api keys',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'DELETE', path: `${org()}/team_api_keys/sandbox/us?api_key_id=${await freshApiKey(t)}` }),
    outOfScope: refusedInBulk('api_key_id'),
  },
  { name: 'GET webhooks', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: webhookBase(t) }) },
  { name: 'POST webhook', level: 'team', ok: 200, request: async (t) => ({ method: 'POST', path: webhookBase(t), body: { url: 'https://example.com/x' } }) },
  { name: 'GET webhook', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}` }) },
  { name: 'PATCH webhook', level: 'team', ok: 200, request: async (t) => ({ method: 'PATCH', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}`, body: { description: 'd' } }) },
  { name: 'DELETE webhook', level: 'team', ok: 204, request: async (t) => ({ method: 'DELETE', path: `${webhookBase(t)}/${await freshWebhook(t)}` }) },
  { name: 'GET webhook headers', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/headers` }) },
  {
    name: 'PUT webhook headers',
    level: 'team',
    ok: 204,
    request: async (t) => ({ method: 'PUT', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/headers`, body: { headers: { 'X-Env': 'a' } } }),
  },
  { name: 'GET webhook secret', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/secret` }) },
  { name: 'POST rotate secret', level: 'team', ok: 204, request: async (t) => ({ method: 'POST', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/secret/rotate`, body: {} }) },
  { name: 'GET etl pipelines', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team_etl_pipelines/sandbox/us?team_id=${t}` }) },
  { name: 'POST etl pipeline', level: 'team', ok: 200, request: async (t) => ({ method: 'POST', path: `${org()}/team_etl_pipelines/sandbox/us`, body: pipelineBody(t) }) },
  {
    name: 'DELETE etl pipelines',
    level: 'team',
    ok: 200,
    request: async (t) => {
      await asOrg('POST', `${org()}/team_etl_pipelines/sandbox/us`, pipelineBody(t));
      return { method: 'DELETE', path: `${org()}/team_etl_pipelines/sandbox/us?team_id=${t}` };
    },
    outOfScope: refusedInBulk('team_id'),
  },
  { name: 'GET custom credentials', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team_custom_credentials/sandbox/us?team_id=${t}` }) },
  {
    name: 'POST custom credential',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'POST', path: `${org()}/team_custom_credentials/sandbox/us`, body: { team_id: t, provider: 'fitbit', client_id: 'c' } }),
  },
  {
    name: 'DELETE custom credentials',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'DELETE', path: `${org()}/team_custom_credentials/sandbox/us?credential_id=${await freshCredential(t)}` }),
    outOfScope: refusedInBulk('credential_id'),
  },
];

type Caller = 'org key' | 'deprecated header' | 'team-admin in scope' | 'team-admin out of scope' | 'team API key' | 'no key' | 'grow plan';
const CALLERS: Caller[] = ['org key', 'deprecated header', 'team-admin in scope', 'team-admin out of scope', 'team API key', 'no key', 'grow plan'];

function headersFor(caller: Caller): Record<string, string> {
  switch (caller) {
    case 'org key':
      return mg(tenant.managementKey);
    case 'deprecated header':
      return { 'X-Service-Org-Key': tenant.managementKey };
    case 'team-admin in scope':
    case 'team-admin out of scope':
      return mg(teamAdminKey);
    case 'team API key':
      return mg(tenant.apiKey);
    case 'no key':
      return {};
    case 'grow plan':
      return mg(grow.managementKey);
  }
}

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
  tenant = await createTenant(stack.db);
  grow = await createTenant(stack.db, { plan: 'grow' });
  teams.inScope = tenant.teamId;
  teams.outOfScope = await freshTeam();
  teamAdminKey = (await new ApiKeysService(stack.db).issueManagementKey(tenant.orgId, 'team_admin', 'scoped', [teams.inScope])).value;
  for (const teamId of [teams.inScope, teams.outOfScope]) {
    const integrationTeamId = `int-${randomUUID()}`;
    await stack.db.getRepository(TeamEntity).update({ id: teamId }, { integrationTeamId });
    fixtures.set(teamId, { webhookId: await freshWebhook(teamId), integrationTeamId });
  }
});
afterAll(async () => stack?.close());

const CASES = ROUTES.flatMap((route) => CALLERS.map((caller) => [route.name, caller, route] as const));

test.each(CASES)('%s as %s', async (_name, caller, route) => {
  const target = caller === 'team-admin out of scope' ? teams.outOfScope : teams.inScope;
  const request = await route.request(target);
  const result = await call(stack.managementUrl, request.method, request.path, { headers: headersFor(caller), body: request.body });
  const context = `${request.method} ${request.path} → ${result.status} ${JSON.stringify(result.body)}`;
  switch (caller) {
    case 'org key':
    case 'deprecated header':
      expect({ status: result.status, context }).toEqual({ status: route.ok, context });
      break;
    case 'team-admin in scope':
      expect({ status: result.status, context }).toEqual({ status: route.level === 'team' ? route.ok : 403, context });
      break;
    case 'team-admin out of scope':
      if (route.level === 'team' && route.outOfScope) route.outOfScope(result, request);
      else {
        expect({ status: result.status, context }).toEqual({ status: 403, context });
        expect(typeof result.body.detail).toBe('string');
      }
      break;
    case 'team API key':
    case 'no key':
      expect({ status: result.status, context }).toEqual({ status: 401, context });
      expect(typeof result.body.detail).toBe('string');
      break;
    case 'grow plan':
      expect({ status: result.status, context }).toEqual({ status: 403, context });
      expect(result.body.detail).toMatch(/Scale plan/);
      break;
  }
});

describe('org boundaries', () => {
  test('another org id answers 404, never revealing whether it exists', async () => {
    const other = await createTenant(stack.db);
    for (const path of [
      `/v1/org/${other.orgId}`,
      `/v1/org/${other.orgId}/team`,
      `/v1/org/${other.orgId}/team/${other.teamId}`,
      `/v1/org/${other.orgId}/team/${other.teamId}/sandbox/webhook`,
      `/v1/org/${randomUUID()}/team_api_keys/sandbox/us`,
    ]) {
      const result = await call(stack.managementUrl, 'GET', path, { headers: mg(tenant.managementKey) });
      expect({ path, status: result.status }).toEqual({ path, status: 404 });
    }
  });

  test("another org's team under my org id answers 404", async () => {
    const other = await createTenant(stack.db);
    const result = await call(stack.managementUrl, 'GET', `${org()}/team/${other.teamId}`, { headers: mg(tenant.managementKey) });
    expect(result.status).toBe(404);
    const keys = await call(stack.managementUrl, 'POST', `${org()}/team_api_keys/sandbox/us`, {
      headers: mg(tenant.managementKey),
      body: { label: 'x', team_id: other.teamId },
    });
    expect(keys.status).toBe(404);
  });

  test('a team-admin key lists only its bound teams', async () => {
    const result = await call(stack.managementUrl, 'GET', `${org()}/team`, { headers: mg(teamAdminKey) });
    expect(result.status).toBe(200);
    expect(result.body.teams.map((team: { id: string }) => team.id)).toEqual([teams.inScope]);
  });

  test('a management key is refused by the main API', async () => {
    const result = await call(stack.apiUrl, 'GET', '/v2/user', { key: tenant.managementKey });
    expect(result.status).toBe(401);
  });
});
