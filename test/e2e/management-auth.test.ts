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

/** Outside its bindings, an id is unknown to a team-admin key: `not_found`, as a random id is. */
const refusedInBulk = (field: string) => (result: HttpResult, request: Request) => {
  expect(result.status).toBe(200);
  const id = new URL(`http://x${request.path}`).searchParams.get(field);
  expect(result.body).toEqual({ success: [], failure: [], not_found: [id] });
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
  {
    name: 'PATCH management key',
    level: 'org',
    ok: 200,
    request: async () => ({ method: 'PATCH', path: `${org()}/management_key/${await freshManagementKey()}`, body: { label: 'new' } }),
  },
  {
    name: 'DELETE management key',
    level: 'org',
    ok: 200,
    request: async () => ({ method: 'DELETE', path: `${org()}/management_key/${await freshManagementKey()}` }),
  },
  { name: 'GET team api keys', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team_api_keys/sandbox/us?team_id=${t}` }) },
  {
    name: 'POST team api key',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'POST', path: `${org()}/team_api_keys/sandbox/us`, body: { label: 'l', team_id: t } }),
  },
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
  {
    name: 'PATCH webhook',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'PATCH', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}`, body: { description: 'd' } }),
  },
  { name: 'DELETE webhook', level: 'team', ok: 204, request: async (t) => ({ method: 'DELETE', path: `${webhookBase(t)}/${await freshWebhook(t)}` }) },
  {
    name: 'GET webhook headers',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'GET', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/headers` }),
  },
  {
    name: 'PUT webhook headers',
    level: 'team',
    ok: 204,
    request: async (t) => ({ method: 'PUT', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/headers`, body: { headers: { 'X-Env': 'a' } } }),
  },
  {
    name: 'GET webhook secret',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'GET', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/secret` }),
  },
  {
    name: 'POST rotate secret',
    level: 'team',
    ok: 204,
    request: async (t) => ({ method: 'POST', path: `${webhookBase(t)}/${fixtures.get(t)!.webhookId}/secret/rotate`, body: {} }),
  },
  { name: 'GET etl pipelines', level: 'team', ok: 200, request: async (t) => ({ method: 'GET', path: `${org()}/team_etl_pipelines/sandbox/us?team_id=${t}` }) },
  {
    name: 'POST etl pipeline',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'POST', path: `${org()}/team_etl_pipelines/sandbox/us`, body: pipelineBody(t) }),
  },
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
  {
    name: 'GET custom credentials',
    level: 'team',
    ok: 200,
    request: async (t) => ({ method: 'GET', path: `${org()}/team_custom_credentials/sandbox/us?team_id=${t}` }),
  },
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

/**
 * No existence oracles: for each probe, the whole answer (status and body) to a real id that the
 * caller may not see (another org's team, another team's key, credential, webhook, query or
 * pipeline) is the answer to a random id. The id itself is echoed in some answers
 * (`not_found: [id]`, "Team <id> is not a team of this org."): it is replaced by a placeholder
 * before comparing.
 */
describe('no existence oracles: a real id the caller may not see answers exactly as a random id', () => {
  const answer = async (key: string, method: string, path: string, body: unknown, id: string) => {
    const result = await call(stack.managementUrl, method, path, { headers: mg(key), body });
    return {
      status: result.status,
      body: JSON.parse(
        JSON.stringify(result.body ?? null)
          .split(id)
          .join('<id>'),
      ) as unknown,
    };
  };
  type Probe = { name: string; key: () => string; method: string; path: (id: string) => string; body?: (id: string) => unknown };
  const compare = async (probes: Probe[], realId: string) => {
    for (const probe of probes) {
      const random = randomUUID();
      const real = await answer(probe.key(), probe.method, probe.path(realId), probe.body?.(realId), realId);
      const unknown = await answer(probe.key(), probe.method, probe.path(random), probe.body?.(random), random);
      expect({ probe: probe.name, ...real }).toEqual({ probe: probe.name, ...unknown });
      expect({ probe: probe.name, status: real.status < 500 }).toEqual({ probe: probe.name, status: true });
    }
  };
  const orgKey = () => tenant.managementKey;

  test("another org's team id, under this org's id, with an org key", async () => {
    const other = await createTenant(stack.db);
    await call(stack.managementUrl, 'POST', `/v1/org/${other.orgId}/team/${other.teamId}/sandbox/webhook`, {
      headers: mg(other.managementKey),
      body: { url: 'https://example.com/hook' },
    });
    await compare(
      [
        { name: 'GET team', key: orgKey, method: 'GET', path: (id) => `${org()}/team/${id}` },
        { name: 'POST team with its id', key: orgKey, method: 'POST', path: () => `${org()}/team`, body: (id) => ({ id, name: 'Probe', region: 'us' }) },
        { name: 'PATCH team', key: orgKey, method: 'PATCH', path: (id) => `${org()}/team/${id}`, body: () => ({ name: 'Mine now' }) },
        { name: 'DELETE team', key: orgKey, method: 'DELETE', path: (id) => `${org()}/team/${id}` },
        { name: 'GET teams?team_id', key: orgKey, method: 'GET', path: (id) => `${org()}/team?team_id=${id}` },
        {
          name: 'POST team api key',
          key: orgKey,
          method: 'POST',
          path: () => `${org()}/team_api_keys/sandbox/us`,
          body: (id) => ({ label: 'x', team_id: id }),
        },
        { name: 'GET team api keys?team_id', key: orgKey, method: 'GET', path: (id) => `${org()}/team_api_keys/sandbox/us?team_id=${id}` },
        {
          name: 'POST management key binding',
          key: orgKey,
          method: 'POST',
          path: () => `${org()}/management_key`,
          body: (id) => ({ label: 'k', role: 'team_admin', team_role_bindings: [{ team_id: id }] }),
        },
        { name: 'GET webhooks', key: orgKey, method: 'GET', path: (id) => `${org()}/team/${id}/sandbox/webhook` },
        {
          name: 'POST webhook',
          key: orgKey,
          method: 'POST',
          path: (id) => `${org()}/team/${id}/sandbox/webhook`,
          body: () => ({ url: 'https://example.com/x' }),
        },
        {
          name: 'POST custom credential',
          key: orgKey,
          method: 'POST',
          path: () => `${org()}/team_custom_credentials/sandbox/us`,
          body: (id) => ({ team_id: id, provider: 'fitbit', client_id: 'c' }),
        },
        { name: 'GET custom credentials?team_id', key: orgKey, method: 'GET', path: (id) => `${org()}/team_custom_credentials/sandbox/us?team_id=${id}` },
        { name: 'POST etl pipeline', key: orgKey, method: 'POST', path: () => `${org()}/team_etl_pipelines/sandbox/us`, body: (id) => pipelineBody(id) },
        { name: 'DELETE etl pipelines', key: orgKey, method: 'DELETE', path: (id) => `${org()}/team_etl_pipelines/sandbox/us?team_id=${id}` },
        { name: 'GET continuous queries', key: orgKey, method: 'GET', path: (id) => `${org()}/team/${id}/sandbox/continuous_query` },
        { name: 'GET stranded orders', key: orgKey, method: 'GET', path: (id) => `${org()}/team/${id}/stranded_orders` },
        { name: 'GET held hl7 messages', key: orgKey, method: 'GET', path: (id) => `${org()}/team/${id}/hl7_messages/held` },
      ],
      other.teamId,
    );
  });

  test("another org's team's integration_team_id answers as an unknown one", async () => {
    const other = await createTenant(stack.db);
    const integrationTeamId = `int-${randomUUID()}`;
    await stack.db.getRepository(TeamEntity).update({ id: other.teamId }, { integrationTeamId });
    await compare(
      [{ name: 'POST resolve_team', key: orgKey, method: 'POST', path: () => `${org()}/resolve_team`, body: (id) => ({ integration_team_id: id }) }],
      integrationTeamId,
    );
  });

  test("another org's keys, credentials and webhooks, with an org key", async () => {
    const other = await createTenant(stack.db);
    const otherOrg = `/v1/org/${other.orgId}`;
    const asOther = async (method: string, path: string, body: unknown) =>
      (await call(stack.managementUrl, method, `${otherOrg}${path}`, { headers: mg(other.managementKey), body })).body;
    const apiKey = (await asOther('POST', '/team_api_keys/sandbox/us', { label: 'theirs', team_id: other.teamId })).id;
    const credential = (
      await asOther('POST', '/team_custom_credentials/sandbox/us', { team_id: other.teamId, provider: 'fitbit', client_id: 'c', client_secret: 's' })
    ).id;
    const webhook = (await asOther('POST', `/team/${other.teamId}/sandbox/webhook`, { url: 'https://example.com/theirs' })).id;
    const managementKey = (await asOther('POST', '/management_key', { label: 'theirs', role: 'org_admin' })).id;
    await compare(
      [{ name: 'DELETE team api keys', key: orgKey, method: 'DELETE', path: (id) => `${org()}/team_api_keys/sandbox/us?api_key_id=${id}` }],
      apiKey,
    );
    await compare(
      [{ name: 'DELETE custom credentials', key: orgKey, method: 'DELETE', path: (id) => `${org()}/team_custom_credentials/sandbox/us?credential_id=${id}` }],
      credential,
    );
    await compare(
      [
        { name: 'PATCH management key', key: orgKey, method: 'PATCH', path: (id) => `${org()}/management_key/${id}`, body: () => ({ label: 'mine' }) },
        { name: 'DELETE management key', key: orgKey, method: 'DELETE', path: (id) => `${org()}/management_key/${id}` },
      ],
      managementKey,
    );
    const mine = webhookBase(tenant.teamId);
    await compare(
      [
        { name: 'GET webhook', key: orgKey, method: 'GET', path: (id) => `${mine}/${id}` },
        { name: 'PATCH webhook', key: orgKey, method: 'PATCH', path: (id) => `${mine}/${id}`, body: () => ({ description: 'd' }) },
        { name: 'GET webhook secret', key: orgKey, method: 'GET', path: (id) => `${mine}/${id}/secret` },
        { name: 'GET webhook headers', key: orgKey, method: 'GET', path: (id) => `${mine}/${id}/headers` },
        { name: 'GET webhook messages', key: orgKey, method: 'GET', path: (id) => `${mine}/${id}/messages` },
        { name: 'GET webhook attempts', key: orgKey, method: 'GET', path: (id) => `${mine}/${id}/attempts` },
        { name: 'POST rotate secret', key: orgKey, method: 'POST', path: (id) => `${mine}/${id}/secret/rotate`, body: () => ({}) },
        { name: 'DELETE webhook', key: orgKey, method: 'DELETE', path: (id) => `${mine}/${id}` },
      ],
      webhook,
    );
  });

  test("another team's keys, credentials, pipelines, webhooks and continuous queries, with a team-admin key", async () => {
    const teamAdmin = () => teamAdminKey;
    const apiKey = await freshApiKey(teams.outOfScope);
    const credential = await freshCredential(teams.outOfScope);
    await asOrg('POST', `${org()}/team_etl_pipelines/sandbox/us`, pipelineBody(teams.outOfScope));
    await compare(
      [{ name: 'DELETE team api keys', key: teamAdmin, method: 'DELETE', path: (id) => `${org()}/team_api_keys/sandbox/us?api_key_id=${id}` }],
      apiKey,
    );
    await compare(
      [
        {
          name: 'DELETE custom credentials',
          key: teamAdmin,
          method: 'DELETE',
          path: (id) => `${org()}/team_custom_credentials/sandbox/us?credential_id=${id}`,
        },
      ],
      credential,
    );
    await compare(
      [
        { name: 'DELETE etl pipelines', key: teamAdmin, method: 'DELETE', path: (id) => `${org()}/team_etl_pipelines/sandbox/us?team_id=${id}` },
        { name: 'GET team', key: teamAdmin, method: 'GET', path: (id) => `${org()}/team/${id}` },
        { name: 'GET webhooks', key: teamAdmin, method: 'GET', path: (id) => `${org()}/team/${id}/sandbox/webhook` },
        { name: 'GET continuous queries', key: teamAdmin, method: 'GET', path: (id) => `${org()}/team/${id}/sandbox/continuous_query` },
        { name: 'GET teams?team_id', key: teamAdmin, method: 'GET', path: (id) => `${org()}/team?team_id=${id}` },
      ],
      teams.outOfScope,
    );
    // The key, credential and pipeline are still there.
    expect((await asOrg('GET', `${org()}/team_api_keys/sandbox/us?team_id=${teams.outOfScope}`)).body.api_keys.map((key: { id: string }) => key.id)).toContain(
      apiKey,
    );
    expect(
      (await asOrg('GET', `${org()}/team_custom_credentials/sandbox/us?team_id=${teams.outOfScope}`)).body.credentials.map((c: { id: string }) => c.id),
    ).toContain(credential);
    expect((await asOrg('GET', `${org()}/team_etl_pipelines/sandbox/us?team_id=${teams.outOfScope}`)).body.pipelines).toHaveLength(1);
    // Another team's webhook id under the key's own team.
    await compare(
      [{ name: 'GET webhook', key: teamAdmin, method: 'GET', path: (id) => `${webhookBase(teams.inScope)}/${id}` }],
      fixtures.get(teams.outOfScope)!.webhookId,
    );
  });
});
