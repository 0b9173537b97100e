import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { userDeletionWorkflowId } from '../../workflows/contract';

describe('users API (/v2/user)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });
  const createUser = async (clientUserId = `client-${randomUUID()}`, extra: object = {}) => {
    const response = await api('POST', '/v2/user', { body: { client_user_id: clientUserId, ...extra } });
    expect(response.status).toBe(200);
    return response.body as { user_id: string; client_user_id: string; created_on: string };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { USER_DELETION_GRACE: '2s' } });
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  describe('create, get, resolve, list', () => {
    it('creates a user and reads it back three ways', async () => {
      const created = await createUser('alice-001', { fallback_time_zone: 'Europe/London', fallback_birth_date: '1990-05-17' });
      expect(created).toMatchObject({ client_user_id: 'alice-001', team_id: tenant.teamId, connected_sources: [] });
      expect(created.user_id).toMatch(/^[0-9a-f-]{36}$/);

      const byId = await api('GET', `/v2/user/${created.user_id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({
        user_id: created.user_id,
        client_user_id: 'alice-001',
        fallback_time_zone: { id: 'Europe/London', source_slug: 'manual' },
        fallback_birth_date: { value: '1990-05-17', source_slug: 'manual' },
      });

      const resolved = await api('GET', '/v2/user/resolve/alice-001');
      expect(resolved.status).toBe(200);
      expect(resolved.body.user_id).toBe(created.user_id);
    });

    it('refuses a duplicate client_user_id with the existing user in the Junction shape', async () => {
      const first = await createUser();
      const duplicate = await api('POST', '/v2/user', { body: { client_user_id: first.client_user_id } });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body).toEqual({
        detail: {
          error_type: 'INVALID_REQUEST',
          error_message: 'Client user id already exists.',
          user_id: first.user_id,
          created_on: first.created_on,
        },
      });
    });

    it.each(['jane@example.com', '+14155552671', '(415) 555-2671', '415-555-2671'])('refuses personal data as client_user_id: %s', async (value) => {
      const response = await api('POST', '/v2/user', { body: { client_user_id: value } });
      expect(response.status).toBe(422);
      expect(response.body.detail[0]).toMatchObject({ loc: ['body', 'client_user_id'], input: value });
    });

    it('accepts a numeric database id as client_user_id', async () => {
      await createUser(String(Date.now()));
    });

    it('lists users with offset, limit and total', async () => {
      const tenantForList = await createTenant(stack.db);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenantForList.apiKey, body: { client_user_id: `list-${i}` } });
        ids.push(response.body.user_id);
      }
      const page = await call(stack.apiUrl, 'GET', '/v2/user?offset=1&limit=2', { key: tenantForList.apiKey });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ total: 5, offset: 1, limit: 2 });
      expect(page.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(ids.slice(1, 3));

      const all = await call(stack.apiUrl, 'GET', '/v2/user/', { key: tenantForList.apiKey });
      expect(all.body).toMatchObject({ total: 5, offset: 0, limit: 100 });

      const bad = await call(stack.apiUrl, 'GET', '/v2/user?limit=0', { key: tenantForList.apiKey });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'limit']);
    });
  });

  describe('patch', () => {
    it('updates fallbacks and ingestion bounds and answers 204', async () => {
      const user = await createUser();
      const patched = await api('PATCH', `/v2/user/${user.user_id}`, {
        body: { fallback_time_zone: 'America/New_York', ingestion_start: '2024-01-01', ingestion_end: '2024-12-31' },
      });
      expect(patched.status).toBe(204);
      const read = await api('GET', `/v2/user/${user.user_id}`);
      expect(read.body).toMatchObject({
        fallback_time_zone: { id: 'America/New_York', source_slug: 'manual' },
        ingestion_start: '2024-01-01',
        ingestion_end: '2024-12-31',
      });
    });

    it.each([
      [{ fallback_time_zone: 'Mars/Olympus_Mons' }, 'fallback_time_zone'],
      [{ fallback_time_zone: '+01:00' }, 'fallback_time_zone'],
      [{ fallback_birth_date: '1990-02-30' }, 'fallback_birth_date'],
      [{ ingestion_start: '2024-06-01', ingestion_end: '2024-01-01' }, 'ingestion_start'],
    ])('refuses %j with 422 naming the field', async (body, field) => {
      const user = await createUser();
      const response = await api('PATCH', `/v2/user/${user.user_id}`, { body });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', field]);
    });

    it('checks ingestion_start against an ingestion_end stored earlier', async () => {
      const user = await createUser(undefined, { ingestion_end: '2024-01-31' });
      const response = await api('PATCH', `/v2/user/${user.user_id}`, { body: { ingestion_start: '2024-02-01' } });
      expect(response.status).toBe(422);
      const read = await api('GET', `/v2/user/${user.user_id}`);
      expect(read.body.ingestion_start).toBeNull();
    });
  });

  describe('the team (/v2/team)', () => {
    it("shows the key's own team, and nobody else's", async () => {
      const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
      const team = await client.team.get(tenant.teamId);
      expect(team).toMatchObject({
        id: tenant.teamId,
        orgId: tenant.orgId,
        labTestsPatientEmailCommunicationEnabled: true,
        labTestsPatientSmsCommunicationEnabled: true,
        labTestsPatientCommunicationEnabled: true,
        delegatedFlow: 'order_and_results_with_vital_physician_network',
      });
      const raw = await api('GET', `/v2/team/${tenant.teamId}`);
      expect(Object.keys(raw.body)).not.toEqual(expect.arrayContaining(['api_key']));
      expect(JSON.stringify(raw.body)).not.toMatch(/secret|api_key/);
      expect((await api('GET', `/v2/team/${other.teamId}`)).status).toBe(404);
      expect((await api('GET', '/v2/team/not-a-uuid')).status).toBe(422);
    });

    it('finds users by user id or client_user_id (users/search)', async () => {
      const user = await createUser(`search-${randomUUID()}`);
      const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
      expect((await client.team.getUserById({ queryId: user.user_id })).map((found) => found.userId)).toEqual([user.user_id]);
      expect((await client.team.getUserById({ queryId: user.client_user_id })).map((found) => found.userId)).toEqual([user.user_id]);
      expect(await client.team.getUserById({ queryId: `nobody-${randomUUID()}` })).toEqual([]);
      const asOther = await call(stack.apiUrl, 'GET', `/v2/team/users/search?query_id=${user.user_id}`, { key: other.apiKey });
      expect(asOther.body).toEqual([]);
      expect((await api('GET', '/v2/team/users/search')).status).toBe(422);
    });
  });

  describe('user info (demographics)', () => {
    const info = () => ({
      first_name: 'Marguerite',
      last_name: 'Okonkwo',
      email: 'marguerite@example.com',
      phone_number: '+14155550123',
      gender: 'female',
      dob: '1986-04-12',
      address: { first_line: '1 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
    });

    it('stores it through the SDK, encrypted, replaces it on the next PATCH, and reads the latest back', async () => {
      const user = await createUser();
      const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
      await expect(client.user.getLatestUserInfo(user.user_id)).rejects.toMatchObject({ statusCode: 404 });

      const stored = await client.user.upsertUserInfo(user.user_id, {
        firstName: 'Marguerite',
        lastName: 'Okonkwo',
        email: 'marguerite@example.com',
        phoneNumber: '+14155550123',
        gender: 'female',
        dob: '1986-04-12',
        address: { firstLine: '1 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
        race: 'asian',
        medicalProxy: {
          firstName: 'Ada',
          lastName: 'Okonkwo',
          phoneNumber: '+14155550124',
          address: { firstLine: '2 Market St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
        },
      });
      expect(stored).toMatchObject({
        firstName: 'Marguerite',
        dob: '1986-04-12',
        race: 'asian',
        medicalProxy: { firstName: 'Ada' },
        address: { firstLine: '1 Market St' },
      });
      const [row] = await stack.db.query('SELECT info_enc FROM user_infos WHERE user_id = $1', [user.user_id]);
      expect(row.info_enc).not.toContain('Marguerite');

      const moved = await api('PATCH', `/v2/user/${user.user_id}/info`, {
        body: { ...info(), address: { ...info().address, first_line: '500 Howard St' }, ethnicity: 'non_hispanic' },
      });
      expect(moved.status).toBe(200);
      const latest = await client.user.getLatestUserInfo(user.user_id);
      expect(latest).toMatchObject({ lastName: 'Okonkwo', address: { firstLine: '500 Howard St' }, ethnicity: 'non_hispanic' });
      expect(latest.race).toBeUndefined();
      expect(latest.medicalProxy).toBeUndefined();
      const audit = await stack.db.query(`SELECT action FROM phi_access_log WHERE resource = 'user_info' AND resource_id = $1 ORDER BY id`, [user.user_id]);
      expect(audit.map((entry: { action: string }) => entry.action)).toEqual(['write', 'write', 'read']);
    });

    it('refuses bad demographics with a 422 naming the field, writing nothing', async () => {
      const user = await createUser();
      const future = await api('PATCH', `/v2/user/${user.user_id}/info`, { body: { ...info(), dob: '2999-01-01' } });
      expect(future.status).toBe(422);
      expect(future.body.detail[0].loc).toEqual(['body', 'dob']);
      const noName = await api('PATCH', `/v2/user/${user.user_id}/info`, { body: { ...info(), first_name: ' ' } });
      expect(noName.status).toBe(422);
      expect(noName.body.detail[0].loc).toEqual(['body', 'first_name']);
      const badRace = await api('PATCH', `/v2/user/${user.user_id}/info`, { body: { ...info(), race: 'martian' } });
      expect(badRace.status).toBe(422);
      expect(badRace.body.detail[0].loc).toEqual(['body', 'race']);
      expect(await stack.db.query('SELECT user_id FROM user_infos WHERE user_id = $1', [user.user_id])).toEqual([]);
      expect((await api('GET', `/v2/user/${user.user_id}/info/latest`)).status).toBe(404);
    });

    it('bounds every free-text field: names 200, address lines 500, city 200, zip and state 100, phone 32, e-mail 320 (422 naming the field, nothing written)', async () => {
      const user = await createUser();
      const tooLong: Array<[string[], unknown]> = [
        [['first_name'], 'A'.repeat(1_000_000)],
        [['last_name'], 'B'.repeat(201)],
        [['address', 'first_line'], 'x'.repeat(501)],
        [['address', 'second_line'], 'x'.repeat(501)],
        [['address', 'city'], 'C'.repeat(201)],
        [['address', 'zip'], '9'.repeat(101)],
        [['address', 'state'], 'S'.repeat(101)],
        [['medical_proxy', 'first_name'], 'M'.repeat(201)],
        [['email'], `${'e'.repeat(320)}@example.com`],
        [['phone_number'], '1'.repeat(33)],
      ];
      for (const [path, value] of tooLong) {
        const body: Record<string, unknown> = {
          ...info(),
          medical_proxy: { first_name: 'Max', last_name: 'Lee', address: info().address, phone_number: '+14155550123' },
        };
        let node = body;
        for (const part of path.slice(0, -1)) node = node[part] = { ...(node[part] as Record<string, unknown>) };
        node[path.at(-1)!] = value;
        const response = await api('PATCH', `/v2/user/${user.user_id}/info`, { body });
        expect(response.status).toBe(422);
        expect(response.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', ...path], type: 'string_too_long' }));
      }
      expect(await stack.db.query('SELECT user_id FROM user_infos WHERE user_id = $1', [user.user_id])).toEqual([]);
      // At the limits, stored as sent.
      const longest = { ...info(), first_name: 'A'.repeat(200), address: { ...info().address, first_line: 'x'.repeat(500), city: 'C'.repeat(200) } };
      expect((await api('PATCH', `/v2/user/${user.user_id}/info`, { body: longest })).status).toBe(200);
      expect((await api('GET', `/v2/user/${user.user_id}/info/latest`)).body).toMatchObject({
        first_name: 'A'.repeat(200),
        address: { first_line: 'x'.repeat(500) },
      });
    });
  });

  describe('authentication and team scoping', () => {
    it('answers 401 {detail} without a key, with a wrong key and with a management key', async () => {
      const attempts: Array<Record<string, string>> = [{}, { 'x-service-api-key': 'sk_us_not-a-real-key' }, { 'x-service-api-key': tenant.managementKey }];
      for (const headers of attempts) {
        const response = await call(stack.apiUrl, 'GET', '/v2/user', { headers });
        expect(response.status).toBe(401);
        expect(typeof response.body.detail).toBe('string');
      }
    });

    it("answers 404 for another team's user on every route", async () => {
      const user = await createUser();
      const asOther = (method: string, path: string, body?: unknown) => call(stack.apiUrl, method, path, { key: other.apiKey, body });
      expect((await asOther('GET', `/v2/user/${user.user_id}`)).status).toBe(404);
      expect((await asOther('GET', `/v2/user/resolve/${user.client_user_id}`)).status).toBe(404);
      expect((await asOther('PATCH', `/v2/user/${user.user_id}`, { fallback_time_zone: 'UTC' })).status).toBe(404);
      expect((await asOther('DELETE', `/v2/user/${user.user_id}`)).status).toBe(404);
      expect((await asOther('POST', `/v2/user/undo_delete?user_id=${user.user_id}`)).status).toBe(404);
      expect(
        (
          await api('PATCH', `/v2/user/${user.user_id}/info`, {
            body: {
              first_name: 'Ann',
              last_name: 'Lee',
              email: 'ann@example.com',
              phone_number: '+14155550123',
              gender: 'female',
              dob: '1990-01-01',
              address: { first_line: '1 A St', country: 'US', zip: '94105', city: 'SF', state: 'CA' },
            },
          })
        ).status,
      ).toBe(200);
      expect((await asOther('GET', `/v2/user/${user.user_id}/info/latest`)).status).toBe(404);
      expect(
        (
          await asOther('PATCH', `/v2/user/${user.user_id}/info`, {
            first_name: 'Eve',
            last_name: 'Lee',
            email: 'eve@example.com',
            phone_number: '+14155550123',
            gender: 'female',
            dob: '1990-01-01',
            address: { first_line: '1 A St', country: 'US', zip: '94105', city: 'SF', state: 'CA' },
          })
        ).status,
      ).toBe(404);
      expect((await api('GET', `/v2/user/${user.user_id}/info/latest`)).body.first_name).toBe('Ann');
      const list = await asOther('GET', '/v2/user?limit=1000');
      expect(list.body.users.some((u: { user_id: string }) => u.user_id === user.user_id)).toBe(false);
      // and the user is untouched
      expect((await api('GET', `/v2/user/${user.user_id}`)).status).toBe(200);
    });

    it("answers another team's real user id exactly as a random id, on every route (no existence oracle)", async () => {
      const user = await createUser();
      const random = randomUUID();
      const answer = async (method: string, path: string, body?: unknown) => {
        const response = await call(stack.apiUrl, method, path, { key: other.apiKey, body });
        return { status: response.status, body: response.body };
      };
      const routes: Array<[string, (id: string) => string, unknown?]> = [
        ['POST', () => '/v2/link/token', (id: string) => ({ user_id: id })],
        ['GET', (id) => `/v2/user/${id}`],
        ['PATCH', (id) => `/v2/user/${id}`, { fallback_time_zone: 'UTC' }],
        ['GET', (id) => `/v2/user/${id}/info/latest`],
        [
          'PATCH',
          (id) => `/v2/user/${id}/info`,
          {
            first_name: 'Eve',
            last_name: 'Lee',
            email: 'eve@example.com',
            phone_number: '+14155550123',
            gender: 'female',
            dob: '1990-01-01',
            address: { first_line: '1 A St', country: 'US', zip: '94105', city: 'SF', state: 'CA' },
          },
        ],
        ['POST', (id) => `/v2/user/${id}/insurance`, {}],
        ['GET', (id) => `/v2/user/${id}/insurance/latest`],
        ['GET', (id) => `/v2/summary/sleep/${id}?start_date=2024-01-01`],
        ['GET', (id) => `/v2/timeseries/${id}/heartrate?start_date=2024-01-01`],
        ['GET', (id) => `/v2/user/${id}/device`],
        ['GET', (id) => `/v2/user/providers/${id}`],
        ['POST', (id) => `/v2/user/refresh/${id}`],
        ['DELETE', (id) => `/v2/user/${id}/oura`],
        ['POST', (id) => `/v2/user/${id}/create_portal_url`, { context: 'launch' }],
        ['DELETE', (id) => `/v2/user/${id}/portal_urls`],
        ['POST', (id) => `/v2/user/undo_delete?user_id=${id}`],
        ['DELETE', (id) => `/v2/user/${id}`],
      ];
      const bodyFor = (body: unknown, id: string) => (typeof body === 'function' ? (body as (id: string) => unknown)(id) : body);
      for (const [method, path, body] of routes) {
        // The id is echoed in some answers ("User <id> not found."): compared as a placeholder.
        const real = await answer(method, path(user.user_id), bodyFor(body, user.user_id));
        const unknown = await answer(method, path(random), bodyFor(body, random));
        const route = `${method} ${path(':id')}`;
        expect({ route, ...JSON.parse(JSON.stringify(real).split(user.user_id).join('<id>')) }).toEqual({
          route,
          ...JSON.parse(JSON.stringify(unknown).split(random).join('<id>')),
        });
      }
      expect(await answer('GET', `/v2/user/resolve/${user.client_user_id}`)).toEqual(await answer('GET', `/v2/user/resolve/${randomUUID()}`));
      expect((await api('GET', `/v2/user/${user.user_id}`)).status).toBe(200);
    });

    it('keeps sandbox and production users apart within one team', async () => {
      const production = await createTenant(stack.db, { environment: 'production' });
      const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: production.apiKey, body: { client_user_id: 'same-id' } });
      expect(user.status).toBe(200);
      expect((await api('GET', `/v2/user/${user.body.user_id}`)).status).toBe(404);
    });
  });

  describe('delete and undo', () => {
    it('hides a deleted user, frees its client_user_id, and undoes the deletion', async () => {
      const user = await createUser();
      const deleted = await api('DELETE', `/v2/user/${user.user_id}`);
      expect(deleted).toMatchObject({ status: 200, body: { success: true } });

      expect((await api('GET', `/v2/user/${user.user_id}`)).status).toBe(404);
      expect((await api('GET', `/v2/user/resolve/${user.client_user_id}`)).status).toBe(404);
      expect((await api('DELETE', `/v2/user/${user.user_id}`)).status).toBe(404);

      const undone = await api('POST', `/v2/user/undo_delete?user_id=${user.user_id}`);
      expect(undone).toMatchObject({ status: 200, body: { success: true } });
      const back = await api('GET', `/v2/user/${user.user_id}`);
      expect(back.status).toBe(200);
      expect(back.body.created_on).toBe(user.created_on);

      const outcome = await stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id)).result();
      expect(outcome).toBe('restored');
    });

    it('undoes by client_user_id', async () => {
      const user = await createUser();
      await api('DELETE', `/v2/user/${user.user_id}`);
      const undone = await api('POST', `/v2/user/undo_delete?client_user_id=${encodeURIComponent(user.client_user_id)}`);
      expect(undone).toMatchObject({ status: 200, body: { success: true } });
      expect((await api('GET', `/v2/user/resolve/${user.client_user_id}`)).body.user_id).toBe(user.user_id);
    });

    it('refuses undo once a new user has taken the client_user_id', async () => {
      const user = await createUser();
      await api('DELETE', `/v2/user/${user.user_id}`);
      const successor = await createUser(user.client_user_id);
      expect(successor.user_id).not.toBe(user.user_id);

      const undone = await api('POST', `/v2/user/undo_delete?user_id=${user.user_id}`);
      expect(undone.status).toBe(400);
      expect(undone.body.detail).toMatch(/taken/);
      expect((await api('GET', `/v2/user/resolve/${user.client_user_id}`)).body.user_id).toBe(successor.user_id);
    });

    it('needs exactly one of user_id and client_user_id', async () => {
      for (const query of ['', `?user_id=${randomUUID()}&client_user_id=x`]) {
        const response = await api('POST', `/v2/user/undo_delete${query}`);
        expect(response.status).toBe(422);
        expect(response.body.detail[0].msg).toMatch(/exactly one/);
      }
    });

    it('erases the user and everything it owns when the grace period ends', async () => {
      const user = await createUser();
      await stack.db.query(
        `INSERT INTO insurances (id, team_id, user_id, payor_code, relationship, is_primary, member_id_enc, insured_enc)
         VALUES ($1, $2, $3, '60054', 'Self', true, 'x', 'x')`,
        [randomUUID(), tenant.teamId, user.user_id],
      );
      // An order's health insurance is the patient's too (order_health_insurances).
      await stack.db.query(`INSERT INTO order_health_insurances (id, user_id, insurance_enc) VALUES ($1, $2, 'x')`, [randomUUID(), user.user_id]);
      await stack.db.query(`INSERT INTO user_infos (user_id, info_enc) VALUES ($1, 'x')`, [user.user_id]);
      await api('DELETE', `/v2/user/${user.user_id}`);
      const outcome = await stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id)).result();
      expect(outcome).toBe('erased');

      expect(await stack.db.query('SELECT id FROM users WHERE id = $1', [user.user_id])).toEqual([]);
      expect(await stack.db.query('SELECT id FROM insurances WHERE user_id = $1', [user.user_id])).toEqual([]);
      expect(await stack.db.query('SELECT id FROM order_health_insurances WHERE user_id = $1', [user.user_id])).toEqual([]);
      expect(await stack.db.query('SELECT user_id FROM user_infos WHERE user_id = $1', [user.user_id])).toEqual([]);
      expect((await api('POST', `/v2/user/undo_delete?user_id=${user.user_id}`)).status).toBe(404);
    });
  });
});
