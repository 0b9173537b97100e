import { randomUUID } from 'node:crypto';
import { TeamEntity } from '../../src/tenancy/entities';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

/** The spec's team-name filter pattern, character for character. */
const SPEC_PATTERN = "^[A-Za-zÀ-ÖØ-öø-ÿ0-9(),/:'|&_\\-\\s’]{0,80}$";

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
});
afterAll(async () => stack?.close());

const mg = (key: string) => ({ 'X-Management-Key': key });

function client(tenant: Tenant) {
  return (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${tenant.orgId}${path}`, { headers: mg(tenant.managementKey), body });
}

async function insertTeams(orgId: string, names: string[], region: 'us' | 'eu' = 'us'): Promise<string[]> {
  const rows = names.map((name) => ({ id: randomUUID(), orgId, name, region, integrationTeamId: null, partialWebhooksEnabled: false }));
  await stack.db.getRepository(TeamEntity).insert(rows);
  return rows.map((row) => row.id);
}

describe('cursor pagination', () => {
  test('250 teams paged while others are created concurrently: each pre-existing team exactly once', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    // Mixed creation times: 100 in one statement (same created_on, ordered by id only), the
    // rest one by one.
    const existing = new Set<string>([tenant.teamId]);
    for (const id of await insertTeams(
      tenant.orgId,
      Array.from({ length: 100 }, (_, i) => `Batch ${i}`),
    ))
      existing.add(id);
    for (let i = 0; i < 149; i++) for (const id of await insertTeams(tenant.orgId, [`Single ${i}`])) existing.add(id);
    expect(existing.size).toBe(250);

    let creating = true;
    const created: string[] = [];
    const creator = (async () => {
      while (creating) {
        const result = await api('POST', '/team', { name: `Concurrent ${created.length}`, region: 'us' });
        expect(result.status).toBe(200);
        created.push(result.body.id);
      }
    })();

    const seen = new Map<string, number>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const result: HttpResult = await api('GET', `/team${cursor ? `?next_cursor=${cursor}` : ''}`);
      expect(result.status).toBe(200);
      expect(result.body.teams.length).toBeLessThanOrEqual(50);
      for (const team of result.body.teams) seen.set(team.id, (seen.get(team.id) ?? 0) + 1);
      cursor = result.body.next_cursor;
      pages++;
      // Interleave deterministically too: a new team between every two pages.
      created.push((await api('POST', '/team', { name: `Between ${pages}`, region: 'us' })).body.id);
    } while (cursor && pages < 100);
    creating = false;
    await creator;

    expect(cursor).toBeNull();
    for (const id of existing) expect({ id, times: seen.get(id) ?? 0 }).toEqual({ id, times: 1 });
    for (const [id, times] of seen) expect({ id, times }).toEqual({ id, times: 1 });
    expect(created.length).toBeGreaterThan(pages - 1);
    expect(pages).toBeGreaterThanOrEqual(5);
  });

  test('the cursor carries filters through and a forged cursor is a 422 on next_cursor', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    await insertTeams(
      tenant.orgId,
      Array.from({ length: 60 }, (_, i) => `Eu ${i}`),
      'eu',
    );
    const first = await api('GET', '/team?region=eu');
    expect(first.body.teams).toHaveLength(50);
    const second = await api('GET', `/team?region=eu&next_cursor=${first.body.next_cursor}`);
    expect(second.body.teams).toHaveLength(10);
    expect(second.body.next_cursor).toBeNull();
    expect(second.body.teams.every((team: { region: string }) => team.region === 'eu')).toBe(true);

    for (const bad of ['nope!', Buffer.from('["2020-01-01T00:00:00.000000","x"]').toString('base64url'), 'W10']) {
      const result = await api('GET', `/team?next_cursor=${encodeURIComponent(bad)}`);
      expect(result.status).toBe(422);
      expect(result.body.detail[0].loc).toEqual(['query', 'next_cursor']);
    }
  });
});

describe('filters', () => {
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  const names = ['Zoë’s Clinic', 'Café (Nord) / Ost', 'Ångström Labs', 'Plain Team', 'a_b', 'axb', "O'Brien & Sons | Health"];

  beforeAll(async () => {
    tenant = await createTenant(stack.db, { teamName: 'Default' });
    api = client(tenant);
    await insertTeams(tenant.orgId, names);
    await insertTeams(tenant.orgId, ['Europa Team'], 'eu');
  });

  const search = async (query: string) => {
    const result = await api('GET', `/team?search_query=${encodeURIComponent(query)}`);
    return result;
  };
  const namesOf = (result: HttpResult) => result.body.teams.map((team: { name: string }) => team.name).sort();

  test.each([
    ['Zoë’s', ['Zoë’s Clinic']],
    ['Café (Nord) / Ost', ['Café (Nord) / Ost']],
    ['Ångström', ['Ångström Labs']],
    ['plain', ['Plain Team']],
    ['PLAIN team', ['Plain Team']],
    ['a_b', ['a_b']],
    ["O'Brien & Sons | Health", ["O'Brien & Sons | Health"]],
    ['', [...names, 'Default', 'Europa Team'].sort()],
    ['   ', [...names, 'Default', 'Europa Team'].sort()],
  ])('search_query %j finds %j', async (query, expected) => {
    const result = await search(query);
    expect(result.status).toBe(200);
    expect(namesOf(result)).toEqual([...expected].sort());
  });

  test('80 characters pass, 81 fail with the pattern in ctx', async () => {
    const ok = await search('a'.repeat(80));
    expect(ok.status).toBe(200);
    expect(ok.body.teams).toEqual([]);
    const tooLong = await search('a'.repeat(81));
    expect(tooLong.status).toBe(422);
    expectPatternError(tooLong, 'a'.repeat(81));
  });

  test.each(['a;b', '<script>', 'x%', 'Łódź', 'tab"quote', 'emoji 🙂', 'semi;colon'])('forbidden %j is a 422', async (query) => {
    const result = await search(query);
    expect(result.status).toBe(422);
    expectPatternError(result, query);
  });

  test('search_query given twice is a 422 (a string is expected)', async () => {
    const result = await api('GET', '/team?search_query=a&search_query=b');
    expect(result.status).toBe(422);
    expect(result.body.detail[0].loc).toEqual(['query', 'search_query']);
  });

  test('region is repeatable and validated', async () => {
    const us = await api('GET', '/team?region=us');
    expect(namesOf(us)).not.toContain('Europa Team');
    const eu = await api('GET', '/team?region=eu');
    expect(namesOf(eu)).toEqual(['Europa Team']);
    const both = await api('GET', '/team?region=us&region=eu');
    expect(both.body.teams).toHaveLength(names.length + 2);
    const bad = await api('GET', '/team?region=us&region=mars');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'region', 1], type: 'enum', input: 'mars' });
  });

  test('team_id filter', async () => {
    const result = await api('GET', `/team?team_id=${tenant.teamId}`);
    expect(result.body.teams.map((team: { id: string }) => team.id)).toEqual([tenant.teamId]);
    expect(result.body.teams[0]).toEqual({
      id: tenant.teamId,
      name: 'Default',
      created_on: expect.any(String),
      region: 'us',
      integration_team_id: null,
    });
  });
});

function expectPatternError(result: HttpResult, input: string) {
  expect(result.body.detail).toHaveLength(1);
  const [issue] = result.body.detail;
  expect(issue).toMatchObject({ loc: ['query', 'search_query'], type: 'string_pattern_mismatch', input });
  expect(typeof issue.msg).toBe('string');
  // The pattern as the spec writes it (the shared validator may wrap it in /…/).
  expect(String(issue.ctx.pattern).replace(/^\/(.*)\/[a-z]*$/s, '$1')).toBe(SPEC_PATTERN);
}

describe('team lifecycle', () => {
  test('create, get, patch, resolve, delete', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const created = await api('POST', '/team', {
      name: 'Clinic One',
      region: 'eu',
      integration_team_id: 'crm-1',
      brand_information: { company_name: 'Clinic One Ltd', support_email: 'help@example.com' },
      logo_url: 'https://example.com/logo.png',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Clinic One',
      region: 'eu',
      integration_team_id: 'crm-1',
      partial_webhooks_enabled: false,
      lab_tests_patient_sms_communication_enabled: true,
      lab_tests_patient_email_communication_enabled: true,
      lab_tests_patient_reminders_enabled: true,
      brand_information: { company_name: 'Clinic One Ltd', support_email: 'help@example.com' },
      sandbox: {},
      production: {},
    });
    const id = created.body.id;

    expect((await api('GET', `/team/${id}`)).body).toEqual(created.body);
    // Upper-case ids are the same team.
    expect((await api('GET', `/team/${id.toUpperCase()}`)).status).toBe(200);

    const patched = await api('PATCH', `/team/${id}`, { name: 'Clinic 1', sandbox: { lab_delay: 2 }, production: { flag: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Clinic 1', sandbox: { lab_delay: 2 }, production: { flag: true } });
    const again = await api('PATCH', `/team/${id}`, { sandbox: { lab_delay: null, other: 'x' } });
    expect(again.body.sandbox).toEqual({ other: 'x' });
    const quiet = await api('PATCH', `/team/${id}`, { lab_tests_patient_reminders_enabled: false });
    expect(quiet.body).toMatchObject({ lab_tests_patient_reminders_enabled: false, lab_tests_patient_email_communication_enabled: true });
    expect((await api('PATCH', `/team/${id}`, { lab_tests_patient_reminders_enabled: 'no' })).status).toBe(422);

    const resolved = await api('POST', '/resolve_team', { integration_team_id: 'crm-1' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.id).toBe(id);
    expect((await api('POST', '/resolve_team', { integration_team_id: 'nope' })).status).toBe(404);

    expect((await api('DELETE', `/team/${id}`)).body).toEqual({ success: true });
    expect((await api('GET', `/team/${id}`)).status).toBe(404);
    expect((await api('DELETE', `/team/${id}`)).status).toBe(404);
  });

  test('integration_team_id conflicts answer 409 with the holder team_id', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const first = await api('POST', '/team', { name: 'A', region: 'us', integration_team_id: 'dup' });
    const second = await api('POST', '/team', { name: 'B', region: 'us', integration_team_id: 'dup' });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ detail: expect.any(String), team_id: first.body.id });
    const third = await api('POST', '/team', { name: 'C', region: 'us' });
    const patch = await api('PATCH', `/team/${third.body.id}`, { integration_team_id: 'dup' });
    expect(patch.status).toBe(409);
    expect(patch.body.team_id).toBe(first.body.id);
    // Another org may use the same integration_team_id.
    const other = await createTenant(stack.db);
    expect((await client(other)('POST', '/team', { name: 'D', region: 'us', integration_team_id: 'dup' })).status).toBe(200);
  });

  test('labflow chooses team ids: an id in the body is refused (422 naming it), taken or not, and nothing is created', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const before = (await api('GET', '/team')).body.teams.length;
    for (const id of [tenant.teamId, randomUUID()]) {
      const chosen = await api('POST', '/team', { id, name: 'Chosen', region: 'us' });
      expect({ status: chosen.status, loc: chosen.body.detail[0].loc }).toEqual({ status: 422, loc: ['body', 'id'] });
    }
    expect((await api('GET', '/team')).body.teams.length).toBe(before);
    const created = await api('POST', '/team', { name: 'Unchosen', region: 'us' });
    expect(created.status).toBe(200);
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('validation: extra fields, bad region, missing name', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const extra = await api('POST', '/team', { name: 'X', region: 'us', colour: 'red' });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'colour'], type: 'extra_forbidden' });
    const region = await api('POST', '/team', { name: 'X', region: 'mars' });
    expect(region.body.detail[0]).toMatchObject({ loc: ['body', 'region'], type: 'enum' });
    const missing = await api('POST', '/team', { region: 'us' });
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'missing' });
    const badId = await api('GET', '/team/not-a-uuid');
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0].loc).toEqual(['path', 'team_id']);
  });

  test('deleting a team unbinds it from team-admin keys', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const extra = (await api('POST', '/team', { name: 'Second', region: 'us' })).body.id;
    const key = await api('POST', '/management_key', {
      label: 'both',
      role: 'team_admin',
      team_role_bindings: [{ team_id: tenant.teamId }, { team_id: extra }],
    });
    await api('DELETE', `/team/${extra}`);
    const listed = await api('GET', '/management_key?role=team_admin');
    const found = listed.body.data.find((k: { id: string }) => k.id === key.body.id);
    expect(found.team_role_bindings).toEqual([{ team_id: tenant.teamId }]);
  });

  test('org get and patch', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const org = await api('GET', '');
    expect(org.body).toEqual({ id: tenant.orgId, name: expect.any(String), expires_at: null });
    const renamed = await api('PATCH', '', { name: 'Acme Health' });
    expect(renamed.body).toEqual({ id: tenant.orgId, name: 'Acme Health', expires_at: null });
    expect((await api('PATCH', '', { name: '' })).status).toBe(422);
  });
});

describe('OpenAPI', () => {
  test('the management API documents its own routes at /openapi.json and /docs', async () => {
    const doc = await call(stack.managementUrl, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    const paths = Object.keys(doc.body.paths);
    for (const path of [
      '/v1/org/{org_id}',
      '/v1/org/{org_id}/team',
      '/v1/org/{org_id}/team/{team_id}',
      '/v1/org/{org_id}/resolve_team',
      '/v1/org/{org_id}/management_key',
      '/v1/org/{org_id}/management_key/{key_id}',
      '/v1/org/{org_id}/team_api_keys/{env}/{region}',
      '/v1/org/{org_id}/team/{team_id}/{environment}/webhook',
      '/v1/org/{org_id}/team/{team_id}/{environment}/webhook/{webhook_id}/secret/rotate',
      '/v1/org/{org_id}/team_etl_pipelines/{env}/{region}',
      '/v1/org/{org_id}/team_custom_credentials/{env}/{region}',
    ]) {
      expect(paths).toContain(path);
    }
    expect(paths.some((path) => path.startsWith('/v2/user'))).toBe(false);
    const search = doc.body.paths['/v1/org/{org_id}/team'].get.parameters.find((p: { name: string }) => p.name === 'search_query');
    expect(search.schema.pattern).toBe(SPEC_PATTERN);
    const region = doc.body.paths['/v1/org/{org_id}/team'].get.parameters.find((p: { name: string }) => p.name === 'region');
    expect(region.schema.type).toBe('array');
    expect(doc.body.components.securitySchemes['management-key']).toMatchObject({ in: 'header', name: 'X-Management-Key' });
    const docs = await fetch(`${stack.managementUrl}/docs`);
    expect(docs.status).toBe(200);
  });
});
