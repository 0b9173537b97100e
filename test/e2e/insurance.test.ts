import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { PhiCipher } from '../../src/common/crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

describe('insurance API (/v2/user/{user_id}/insurance)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(stack.apiUrl, method, path, { key: tenant.apiKey, ...options });

  const createUser = async (key = tenant.apiKey) => {
    const response = await call(stack.apiUrl, 'POST', '/v2/user', { key, body: { client_user_id: `client-${randomUUID()}` } });
    expect(response.status).toBe(200);
    return response.body.user_id as string;
  };

  const address = () => ({
    first_line: '123 Main St',
    second_line: 'Apt 4',
    country: 'US',
    zip: '94107',
    city: 'San Francisco',
    state: 'CA',
    access_notes: 'Ring twice',
  });
  const insured = () => ({
    first_name: 'Zelda',
    last_name: 'Quartermaine',
    gender: 'female',
    address: address(),
    dob: '1987-03-14',
    email: 'zelda@example.com',
    phone_number: '+14155552671',
  });
  const guarantor = () => ({
    first_name: 'Bartholomew',
    last_name: 'Quartermaine',
    address: address(),
    phone_number: '(415) 555-2671',
    household_income: 85000,
    household_size: 3,
    email: 'bart@example.com',
  });
  const request = (overrides: Record<string, unknown> = {}) => ({
    payor_code: '60054',
    member_id: 'MEMBER-XK42-9931',
    group_id: 'GRP-77',
    relationship: 'Self',
    insured: insured(),
    guarantor: guarantor(),
    is_primary: true,
    ...overrides,
  });
  const createInsurance = (userId: string, body: unknown, key = tenant.apiKey) => call(stack.apiUrl, 'POST', `/v2/user/${userId}/insurance`, { key, body });

  /** Deep-sets `path` (dot separated) in a fresh valid request; `undefined` deletes the key. */
  const requestWith = (path: string, value: unknown) => {
    const body = request() as Record<string, any>;
    const parts = path.split('.');
    let node = body;
    for (const part of parts.slice(0, -1)) node = node[part];
    const last = parts[parts.length - 1];
    if (value === undefined) delete node[last];
    else node[last] = value;
    return body;
  };

  let userId: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    userId = await createUser();
  });
  afterAll(() => stack?.close());

  describe('create', () => {
    it('stores an insurance and resolves company from the payor registry', async () => {
      const response = await createInsurance(userId, request());
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        member_id: 'MEMBER-XK42-9931',
        payor_code: '60054',
        relationship: 'Self',
        insured: insured(),
        company: {
          name: 'Aetna',
          address: { first_line: 'PO Box 981106', second_line: '', city: 'El Paso', state: 'TX', zip: '79998', country: 'US' },
        },
        group_id: 'GRP-77',
        guarantor: guarantor(),
        is_primary: true,
      });
    });

    it('applies defaults, trims strings and ignores unknown fields', async () => {
      const person = insured() as Record<string, any>;
      person.first_name = '  Zelda  ';
      delete person.address.second_line;
      delete person.address.access_notes;
      const response = await createInsurance(userId, {
        payor_code: ' 87726 ',
        member_id: 'M-1',
        relationship: 'Spouse',
        insured: person,
        favourite_colour: 'teal',
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        payor_code: '87726',
        relationship: 'Spouse',
        company: { name: 'UnitedHealthcare' },
        group_id: null,
        guarantor: null,
        is_primary: true,
      });
      expect(response.body.insured.first_name).toBe('Zelda');
      expect(response.body.insured.address.second_line).toBe('');
      expect(response.body).not.toHaveProperty('favourite_colour');
    });

    it('accepts nullable fields as null', async () => {
      const body = request({ group_id: null, guarantor: null });
      body.insured.address.second_line = null as never;
      body.insured.address.access_notes = null as never;
      const response = await createInsurance(userId, body);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ group_id: null, guarantor: null });

      const withNullGuarantorFields = request();
      Object.assign(withNullGuarantorFields.guarantor, { household_income: null, household_size: null, email: null });
      const second = await createInsurance(userId, withNullGuarantorFields);
      expect(second.status).toBe(200);
      expect(second.body.guarantor).toMatchObject({ household_income: null, household_size: null, email: null });

      const blankGroup = await createInsurance(userId, request({ group_id: '   ' }));
      expect(blankGroup.status).toBe(200);
      expect(blankGroup.body.group_id).toBeNull();
    });

    it('accepts access_notes of exactly 1000 characters and refuses 1001', async () => {
      const ok = await createInsurance(userId, requestWith('insured.address.access_notes', 'n'.repeat(1000)));
      expect(ok.status).toBe(200);
      expect(ok.body.insured.address.access_notes).toHaveLength(1000);

      const tooLong = await createInsurance(userId, requestWith('insured.address.access_notes', 'n'.repeat(1001)));
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.detail[0]).toMatchObject({
        loc: ['body', 'insured', 'address', 'access_notes'],
        type: 'string_too_long',
        ctx: { max_length: 1000 },
      });

      const guarantorTooLong = await createInsurance(userId, requestWith('guarantor.address.access_notes', 'n'.repeat(1001)));
      expect(guarantorTooLong.status).toBe(422);
      expect(guarantorTooLong.body.detail[0].loc).toEqual(['body', 'guarantor', 'address', 'access_notes']);
    });

    it('refuses an unknown payor_code with a clear message', async () => {
      const response = await createInsurance(userId, request({ payor_code: '00000-NOPE' }));
      expect(response.status).toBe(422);
      expect(response.body.detail).toHaveLength(1);
      expect(response.body.detail[0]).toMatchObject({ loc: ['body', 'payor_code'], input: '00000-NOPE' });
      expect(response.body.detail[0].msg).toMatch(/payor/i);
    });

    const invalid: Array<[string, string, unknown]> = [
      // required fields
      ['missing payor_code', 'payor_code', undefined],
      ['empty payor_code', 'payor_code', '   '],
      ['missing member_id', 'member_id', undefined],
      ['blank member_id', 'member_id', ' '],
      ['missing relationship', 'relationship', undefined],
      ['missing insured', 'insured', undefined],
      ['null insured', 'insured', null],
      // enums
      ['unknown relationship', 'relationship', 'Child'],
      ['relationship in lower case', 'relationship', 'self'],
      ['unknown gender', 'insured.gender', 'f'],
      // types
      ['is_primary not boolean', 'is_primary', 'yes'],
      ['group_id not string', 'group_id', 42],
      ['member_id not string', 'member_id', 12345],
      // person details
      ['missing first_name', 'insured.first_name', undefined],
      ['empty last_name', 'insured.last_name', ''],
      ['digits in first_name', 'insured.first_name', 'Z3lda'],
      ['missing dob', 'insured.dob', undefined],
      ['dob not a date', 'insured.dob', '14/03/1987'],
      ['dob not a real date', 'insured.dob', '1987-02-30'],
      ['dob in the future', 'insured.dob', '2999-01-01'],
      ['missing email', 'insured.email', undefined],
      ['invalid email', 'insured.email', 'zelda-at-example.com'],
      ['missing phone_number', 'insured.phone_number', undefined],
      ['invalid phone_number', 'insured.phone_number', 'call me maybe'],
      ['too short phone_number', 'insured.phone_number', '555-1234'],
      ['missing address', 'insured.address', undefined],
      // address
      ['missing first_line', 'insured.address.first_line', undefined],
      ['empty first_line', 'insured.address.first_line', '  '],
      ['missing country', 'insured.address.country', undefined],
      ['missing zip', 'insured.address.zip', undefined],
      ['empty city', 'insured.address.city', ''],
      ['missing state', 'insured.address.state', undefined],
      ['second_line not string', 'insured.address.second_line', 7],
      // guarantor
      ['guarantor without first_name', 'guarantor.first_name', undefined],
      ['guarantor without last_name', 'guarantor.last_name', undefined],
      ['guarantor without address', 'guarantor.address', undefined],
      ['guarantor without phone_number', 'guarantor.phone_number', undefined],
      ['guarantor with invalid phone_number', 'guarantor.phone_number', '12'],
      ['guarantor address without zip', 'guarantor.address.zip', undefined],
      ['negative household_income', 'guarantor.household_income', -1],
      ['fractional household_size', 'guarantor.household_size', 2.5],
      ['household_size as string', 'guarantor.household_size', '3'],
      ['invalid guarantor email', 'guarantor.email', 'nope'],
    ];
    it.each(invalid)('refuses %s (422 at that field)', async (_name, path, value) => {
      const response = await createInsurance(userId, requestWith(path, value));
      expect(response.status).toBe(422);
      expect(response.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(['body', ...path.split('.')]);
      for (const issue of response.body.detail) expect(typeof issue.msg).toBe('string');
    });

    it('refuses a body that is not an object', async () => {
      const response = await createInsurance(userId, ['not', 'an', 'object']);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('body');
    });

    it('accepts US formatted and E.164 phone numbers and household figures of 0', async () => {
      for (const phone of ['+447911123456', '415-555-2671', '415.555.2671', '(415) 555-2671', '+1 415 555 2671', '4155552671']) {
        const body = requestWith('insured.phone_number', phone);
        body.guarantor.household_income = 0;
        body.guarantor.household_size = 0;
        const response = await createInsurance(userId, body);
        expect({ phone, status: response.status }).toEqual({ phone, status: 200 });
      }
    });

    it('needs a UUID user_id in the path', async () => {
      const response = await createInsurance('not-a-uuid', request());
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['path', 'user_id']);
    });

    it('answers 404 for an unknown user', async () => {
      const response = await createInsurance(randomUUID(), request());
      expect(response.status).toBe(404);
      expect(typeof response.body.detail).toBe('string');
    });

    it("answers 404 for another team's user, and for the same team's other environment", async () => {
      const otherUser = await createUser(other.apiKey);
      const response = await createInsurance(otherUser, request());
      expect(response.status).toBe(404);
      expect(response.body).toHaveProperty('detail');

      const production = await new ApiKeysService(stack.db).issueTeamKey({ id: tenant.teamId, region: 'us' }, 'production', 'prod key');
      const crossEnvironment = await createInsurance(userId, request(), production.value);
      expect(crossEnvironment.status).toBe(404);

      const latest = await call(stack.apiUrl, 'GET', `/v2/user/${otherUser}/insurance/latest`, { key: tenant.apiKey });
      expect(latest.status).toBe(404);
    });

    it('needs an API key', async () => {
      const response = await call(stack.apiUrl, 'POST', `/v2/user/${userId}/insurance`, { body: request() });
      expect(response.status).toBe(401);
    });
  });

  describe('latest', () => {
    it('returns the most recent insurance, filtered by is_primary when given', async () => {
      const user = await createUser();
      const none = await api('GET', `/v2/user/${user}/insurance/latest`);
      expect(none.status).toBe(404);
      expect(typeof none.body.detail).toBe('string');

      expect((await createInsurance(user, request({ member_id: 'PRIMARY-1', is_primary: true }))).status).toBe(200);
      const noSecondary = await api('GET', `/v2/user/${user}/insurance/latest?is_primary=false`);
      expect(noSecondary.status).toBe(404);

      expect((await createInsurance(user, request({ member_id: 'SECONDARY-1', is_primary: false, payor_code: '62308' }))).status).toBe(200);
      expect((await createInsurance(user, request({ member_id: 'PRIMARY-2', is_primary: true }))).status).toBe(200);
      expect((await createInsurance(user, request({ member_id: 'SECONDARY-2', is_primary: false, payor_code: '61101' }))).status).toBe(200);

      const primary = await api('GET', `/v2/user/${user}/insurance/latest?is_primary=true`);
      expect(primary.status).toBe(200);
      expect(primary.body).toMatchObject({ member_id: 'PRIMARY-2', is_primary: true, company: { name: 'Aetna' } });
      expect(primary.body.insured).toEqual(insured());

      const secondary = await api('GET', `/v2/user/${user}/insurance/latest?is_primary=false`);
      expect(secondary.status).toBe(200);
      expect(secondary.body).toMatchObject({ member_id: 'SECONDARY-2', is_primary: false, company: { name: 'Humana' } });

      const any = await api('GET', `/v2/user/${user}/insurance/latest`);
      expect(any.status).toBe(200);
      expect(any.body.member_id).toBe('SECONDARY-2');
    });

    it('refuses a malformed is_primary and user_id', async () => {
      const bad = await api('GET', `/v2/user/${userId}/insurance/latest?is_primary=maybe`);
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['query', 'is_primary']);

      const badUser = await api('GET', '/v2/user/123/insurance/latest');
      expect(badUser.status).toBe(422);
      expect(badUser.body.detail[0].loc).toEqual(['path', 'user_id']);

      const unknownUser = await api('GET', `/v2/user/${randomUUID()}/insurance/latest`);
      expect(unknownUser.status).toBe(404);
    });
  });

  describe('PHI at rest', () => {
    it('stores person details only as ciphertext that the configured key decrypts', async () => {
      const user = await createUser();
      const created = await createInsurance(user, request());
      expect(created.status).toBe(200);

      const rows: Array<Record<string, unknown>> = await stack.db.query('SELECT * FROM insurances WHERE user_id = $1', [user]);
      expect(rows).toHaveLength(1);
      const raw = JSON.stringify(rows[0]);
      for (const plaintext of ['Zelda', 'Quartermaine', 'Bartholomew', '1987-03-14', 'MEMBER-XK42-9931', 'zelda@example.com', '4155552671', '123 Main St']) {
        expect(raw).not.toContain(plaintext);
      }
      // The non-PHI columns stay queryable in clear.
      expect(rows[0]).toMatchObject({ payor_code: '60054', relationship: 'Self', is_primary: true, group_id: 'GRP-77' });

      const cipher = new PhiCipher(stack.config.phiEncryptionKey);
      expect(cipher.decryptJson(rows[0].member_id_enc as string)).toBe('MEMBER-XK42-9931');
      expect(cipher.decryptJson(rows[0].insured_enc as string)).toMatchObject({
        first_name: 'Zelda',
        last_name: 'Quartermaine',
        dob: '1987-03-14',
      });
      expect(cipher.decryptJson(rows[0].guarantor_enc as string)).toMatchObject({ first_name: 'Bartholomew' });
    });

    it('logs one phi_access_log row per write and per read', async () => {
      const user = await createUser();
      const created = await createInsurance(user, request());
      expect(created.status).toBe(200);
      const [row] = await stack.db.query('SELECT id FROM insurances WHERE user_id = $1', [user]);
      const log = () =>
        stack.db.query('SELECT team_id, api_key_id, action, resource FROM phi_access_log WHERE resource_id = $1 ORDER BY id', [row.id]) as Promise<
          Array<Record<string, unknown>>
        >;
      const entry = { team_id: tenant.teamId, api_key_id: tenant.apiKeyId, resource: 'insurance' };
      expect(await log()).toEqual([{ ...entry, action: 'write' }]);

      expect((await api('GET', `/v2/user/${user}/insurance/latest`)).status).toBe(200);
      expect(await log()).toEqual([
        { ...entry, action: 'write' },
        { ...entry, action: 'read' },
      ]);
    });
  });

  describe("payors: search and a team's own", () => {
    it('searches the platform registry by name, alias or code, any case, through the SDK', async () => {
      const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
      const byName = await client.insurance.searchGetPayorInfo({ insuranceName: 'aetna' });
      expect(byName).toEqual([
        {
          payorCode: '60054',
          name: 'Aetna',
          aliases: ['Aetna Health', 'Aetna Inc'],
          orgAddress: { firstLine: 'PO Box 981106', country: 'US', zip: '79998', city: 'El Paso', state: 'TX' },
          source: 'platform',
        },
      ]);
      expect((await client.insurance.searchGetPayorInfo({ insuranceName: 'UHC' })).map((payor) => payor.payorCode)).toEqual(['87726']);
      expect((await client.insurance.searchGetPayorInfo({ insuranceName: 'oscar' })).map((payor) => payor.payorCode)).toEqual(['OSCAR']);
      expect((await client.insurance.searchGetPayorInfo({ insuranceName: 'blue' })).map((payor) => payor.name)).toEqual([
        'Anthem Blue Cross of California',
        'Blue Cross and Blue Shield of Illinois',
        'Blue Cross and Blue Shield of Texas',
        'Florida Blue',
        'Highmark Blue Cross Blue Shield',
      ]);
      // LIKE's own characters are taken literally.
      expect(await client.insurance.searchGetPayorInfo({ insuranceName: '%' })).toEqual([]);
      expect((await client.insurance.searchGetPayorInfo()).length).toBeGreaterThanOrEqual(14);
      const deprecated = await client.insurance.searchPayorInfo({ insuranceName: 'cigna' });
      expect(deprecated).toEqual([expect.objectContaining({ code: '62308', name: 'Cigna', source: 'platform' })]);
    });

    it("adds a payor of the team's own that only it sees and bills, found by its clearinghouse id", async () => {
      const client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
      const created = await client.payor.createPayor({
        name: 'Sunrise Regional Health Plan',
        address: { firstLine: '9 Harbor Way', city: 'Portland', state: 'OR', zip: '97201', country: 'US' },
        provider: 'availity',
        providerPayorId: 'SRHP1',
      });
      expect(created).toMatchObject({ name: 'Sunrise Regional Health Plan', aliases: [], source: 'team', orgAddress: { firstLine: '9 Harbor Way' } });
      expect(created.payorCode).toMatch(/^T[0-9A-Z]{9}$/);
      expect((await client.insurance.searchGetPayorInfo({ provider: 'availity', providerPayorId: 'SRHP1' })).map((payor) => payor.payorCode)).toEqual([
        created.payorCode,
      ]);
      expect((await client.insurance.searchGetPayorInfo({ insuranceName: 'sunrise' })).map((payor) => payor.payorCode)).toEqual([created.payorCode]);

      const again = await api('POST', '/v3/payor', { body: { name: 'Sunrise again', address: address(), provider: 'availity', provider_payor_id: 'SRHP1' } });
      expect(again.status).toBe(409);
      expect(again.body.detail).toBe(`The team already has payor ${created.payorCode} with provider_payor_id SRHP1 at availity.`);
      const half = await api('POST', '/v3/payor', { body: { name: 'Half', address: address(), provider: 'stedi' } });
      expect(half.status).toBe(422);
      expect(half.body.detail[0].loc).toEqual(['body', 'provider_payor_id']);

      // The team bills it; another team neither sees nor bills it.
      const userId = await createUser();
      const insured = await createInsurance(userId, request({ payor_code: created.payorCode }));
      expect(insured.status).toBe(200);
      expect(insured.body.company).toMatchObject({ name: 'Sunrise Regional Health Plan', address: { first_line: '9 Harbor Way' } });
      const search = await call(stack.apiUrl, 'GET', '/v3/insurance/search/payor?insurance_name=sunrise', { key: other.apiKey });
      expect(search.body).toEqual([]);
      const otherUser = await createUser(other.apiKey);
      const refused = await createInsurance(otherUser, request({ payor_code: created.payorCode }), other.apiKey);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'payor_code']);
    });

    it('refuses a lone UTF-16 surrogate or a NUL with 422 naming the field, whether it would land in a json or a text column, and writes nothing', async () => {
      const before = await stack.db.query('SELECT count(*)::int AS n FROM payors');
      // address is stored as json, name as text: the same answer for both.
      for (const [body, loc] of [
        [
          { name: 'Lone', address: { ...address(), first_line: 'a\ud800' }, provider: 'availity', provider_payor_id: 'LONE1' },
          ['body', 'address', 'first_line'],
        ],
        [{ name: 'Lone\udfff', address: address(), provider: 'availity', provider_payor_id: 'LONE2' }, ['body', 'name']],
        [{ name: 'Nul', address: { ...address(), city: 'x\u0000y' }, provider: 'availity', provider_payor_id: 'NUL1' }, ['body', 'address', 'city']],
        [{ name: 'Nul\u0000', address: address(), provider: 'availity', provider_payor_id: 'NUL2' }, ['body', 'name']],
      ] as const) {
        const response = await api('POST', '/v3/payor', { body });
        expect(response.status).toBe(422);
        expect(response.body.detail).toEqual([
          { loc, msg: expect.stringMatching(/NUL|surrogate/), type: expect.stringMatching(/^string_(nul|unpaired_surrogate)$/), input: expect.any(String) },
        ]);
      }
      expect(await stack.db.query('SELECT count(*)::int AS n FROM payors')).toEqual(before);
      // A surrogate pair (an emoji) is fine and stored as sent.
      const emoji = await api('POST', '/v3/payor', {
        body: { name: 'Smile 😀 Health', address: { ...address(), first_line: '1 😀 Way' }, provider: 'availity', provider_payor_id: 'EMOJI1' },
      });
      expect(emoji.status).toBe(200);
      expect(emoji.body).toMatchObject({ name: 'Smile 😀 Health', org_address: { first_line: '1 😀 Way' } });
      // Query strings and path parameters: NUL arrives percent-encoded (a lone surrogate cannot: it is no UTF-8).
      const query = await api('GET', '/v3/insurance/search/payor?insurance_name=a%00b');
      expect(query.status).toBe(422);
      expect(query.body.detail[0]).toMatchObject({ loc: ['query', 'insurance_name'], type: 'string_nul' });
      const path = await api('GET', '/v2/user/resolve/a%00b');
      expect(path.status).toBe(422);
      expect(path.body.detail[0]).toMatchObject({ loc: ['path', 'client_user_id'], type: 'string_nul' });
      expect((await api('GET', '/v2/user/resolve/%ED%A0%80')).status).toBe(400);
    });
  });
});
