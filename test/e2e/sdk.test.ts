import { randomUUID } from 'node:crypto';
import { serialization, Vital, VitalClient, VitalError } from '@tryvital/vital-node';
import { createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Users and insurance driven through the official Junction Node SDK (@tryvital/vital-node
 * 3.1.551) against a real labflow stack.
 *
 * Response validation is ON and cannot be turned off in this SDK version: every generated method
 * (api/resources/user/client/Client.js) passes a 2xx body through
 * `serializers.<Type>.parseOrThrow(body, { unrecognizedObjectKeys: 'passthrough', ... })`, and a
 * 422 body through `serializers.HttpValidationError.parseOrThrow`. BaseClientOptions has no
 * `skipValidation` switch; `parseOrThrow` is called without it, so the object schemas run with
 * their default `skipValidation = false`. A missing required key, a wrong type, a non ISO-8601
 * date or an unknown enum... makes the SDK call throw, so each `await` below is a shape check of
 * its own. Unknown keys pass through (that is how the SDK treats newer servers).
 */
describe('Junction SDK (@tryvital/vital-node) against labflow', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let client: VitalClient;

  const clientFor = (key: string) =>
    new VitalClient({
      baseUrl: stack.apiUrl,
      // The SDK refuses to send a request without `apiKey` (HeaderAuthProvider throws); it puts
      // it in `x-vital-api-key`. labflow authenticates with `x-service-api-key`, passed here as
      // an extra header, which the SDK merges into every request.
      apiKey: key,
      headers: { 'x-service-api-key': key },
      // No retries: a 5xx must surface as such, not be retried away.
      maxRetries: 0,
      timeoutInSeconds: 20,
    });

  const address = () => ({
    firstLine: '123 Main St',
    secondLine: 'Apt 4',
    country: 'US',
    zip: '94107',
    city: 'San Francisco',
    state: 'CA',
  });
  const insured = (): Vital.VitalCoreSchemasDbSchemasLabTestInsurancePersonDetails => ({
    firstName: 'Zelda',
    lastName: 'Quartermaine',
    gender: 'female',
    address: address(),
    dob: '1987-03-14',
    email: 'zelda@example.com',
    phoneNumber: '+14155552671',
  });
  const guarantor = (): Vital.GuarantorDetails => ({
    firstName: 'Bartholomew',
    lastName: 'Quartermaine',
    address: address(),
    phoneNumber: '(415) 555-2671',
    householdIncome: 85000,
    householdSize: 3,
    email: 'bart@example.com',
  });

  /** Runs `call`, expects it to throw, and returns the error. */
  const rejection = async (call: () => Promise<unknown>): Promise<unknown> => {
    try {
      await call();
    } catch (error) {
      return error;
    }
    throw new Error('expected the SDK call to throw');
  };

  beforeAll(async () => {
    stack = await startStack({ env: { USER_DELETION_GRACE: '60s' } });
    tenant = await createTenant(stack.db);
    client = clientFor(tenant.apiKey);
  });
  afterAll(() => stack?.close());

  it('validates responses: a body of the wrong shape makes the SDK call throw', async () => {
    // The same client options as below, but a fetch that answers 200 with a user missing
    // team_id and with a created_on that is no date: proof that the checks above have teeth.
    const wrongShape = new VitalClient({
      baseUrl: 'http://sdk-validation.invalid',
      apiKey: 'k',
      headers: { 'x-service-api-key': 'k' },
      maxRetries: 0,
      fetch: async () =>
        new Response(JSON.stringify({ user_id: randomUUID(), client_user_id: 'x', created_on: 'yesterday', connected_sources: [] }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    });
    await expect(wrongShape.user.get(randomUUID())).rejects.toThrow(/team_id|created_on/);
  });

  it("works with the SDK's own apiKey option (x-vital-api-key) and refuses a wrong key", async () => {
    const sdkDefaults = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, maxRetries: 0 });
    expect(await sdkDefaults.user.getAll({ limit: 1 })).toMatchObject({ offset: 0, limit: 1 });

    const wrongKey = new VitalClient({ baseUrl: stack.apiUrl, apiKey: 'sk_us_wrong', maxRetries: 0 });
    const error = await rejection(() => wrongKey.user.getAll());
    expect(error).toBeInstanceOf(VitalError);
    expect((error as VitalError).statusCode).toBe(401);
    expect((error as VitalError).body).toEqual({ detail: expect.any(String) });

    const page = await client.user.getAll({ limit: 1 });
    expect(page).toMatchObject({ offset: 0, limit: 1 });
  });

  it('creates a user and reads it back by id, by client_user_id and in the list', async () => {
    const tenantForList = await createTenant(stack.db);
    const sdk = clientFor(tenantForList.apiKey);
    const clientUserId = `sdk-${randomUUID()}`;

    const created = await sdk.user.create({
      clientUserId,
      fallbackTimeZone: 'Europe/London',
      fallbackBirthDate: '1990-05-17',
      ingestionStart: '2024-01-01',
      ingestionEnd: '2024-12-31',
    });
    expect(created.clientUserId).toBe(clientUserId);
    expect(created.userId).toMatch(/^[0-9a-f-]{36}$/);

    const byId = await sdk.user.get(created.userId);
    expect(byId).toMatchObject({
      userId: created.userId,
      teamId: tenantForList.teamId,
      clientUserId,
      connectedSources: [],
      fallbackTimeZone: { id: 'Europe/London', sourceSlug: 'manual' },
      fallbackBirthDate: { value: '1990-05-17', sourceSlug: 'manual' },
      ingestionStart: '2024-01-01',
      ingestionEnd: '2024-12-31',
    });
    // Dates were parsed by the SDK's ISO-8601 date schema into Date objects.
    expect(byId.createdOn).toBeInstanceOf(Date);
    expect(Date.now() - byId.createdOn.getTime()).toBeLessThan(5 * 60_000);
    expect(byId.fallbackTimeZone?.updatedAt).toBeInstanceOf(Date);
    expect(byId.fallbackBirthDate?.updatedAt).toBeInstanceOf(Date);

    const resolved = await sdk.user.getByClientUserId(clientUserId);
    expect(resolved).toEqual(byId);

    const second = await sdk.user.create({ clientUserId: `sdk-${randomUUID()}` });
    const bare = await sdk.user.get(second.userId);
    // Nulls from the server parse as absent optional fields.
    expect(bare.fallbackTimeZone).toBeUndefined();
    expect(bare.fallbackBirthDate).toBeUndefined();
    expect(bare.ingestionStart).toBeUndefined();
    expect(bare.ingestionEnd).toBeUndefined();

    const page = await sdk.user.getAll({ offset: 1, limit: 1 });
    expect(page).toMatchObject({ total: 2, offset: 1, limit: 1 });
    expect(page.users.map((user) => user.userId)).toEqual([second.userId]);
    const all = await sdk.user.getAll();
    expect(all).toMatchObject({ total: 2, offset: 0, limit: 100 });
    expect(all.users.map((user) => user.userId)).toEqual([created.userId, second.userId]);
    expect(all.users[0]).toEqual(byId);
  });

  it('throws BadRequestError with the existing user_id on a duplicate client_user_id', async () => {
    const clientUserId = `sdk-dup-${randomUUID()}`;
    const first = await client.user.create({ clientUserId });
    const error = await rejection(() => client.user.create({ clientUserId }));
    expect(error).toBeInstanceOf(Vital.BadRequestError);
    expect(error).toBeInstanceOf(VitalError);
    const badRequest = error as Vital.BadRequestError;
    expect(badRequest.statusCode).toBe(400);
    expect(badRequest.body).toMatchObject({
      detail: {
        error_type: 'INVALID_REQUEST',
        error_message: expect.any(String),
        user_id: first.userId,
        created_on: expect.any(String),
      },
    });
  });

  it('throws UnprocessableEntityError whose body is an HttpValidationError of {loc, msg, type}', async () => {
    const error = await rejection(() => client.user.create({ clientUserId: 'jane@example.com' }));
    expect(error).toBeInstanceOf(Vital.UnprocessableEntityError);
    const unprocessable = error as Vital.UnprocessableEntityError;
    expect(unprocessable.statusCode).toBe(422);
    // The SDK already parsed the body with HttpValidationError; its `detail` is `unknown`, so
    // check each entry against the SDK's own ValidationError schema too.
    const parsed = serialization.HttpValidationError.parseOrThrow(unprocessable.body);
    expect(Array.isArray(parsed.detail)).toBe(true);
    const issues = (parsed.detail as unknown[]).map((issue) => serialization.ValidationError.parseOrThrow(issue, { unrecognizedObjectKeys: 'passthrough' }));
    expect(issues[0]).toMatchObject({ loc: ['body', 'client_user_id'], msg: expect.any(String), type: expect.any(String) });

    const patchError = await rejection(async () => {
      const user = await client.user.create({ clientUserId: `sdk-${randomUUID()}` });
      await client.user.patch(user.userId, { fallbackTimeZone: 'Mars/Olympus_Mons' });
    });
    expect(patchError).toBeInstanceOf(Vital.UnprocessableEntityError);
    const patchIssues = (patchError as Vital.UnprocessableEntityError).body as { detail: Array<{ loc: unknown }> };
    expect(patchIssues.detail[0].loc).toEqual(['body', 'fallback_time_zone']);

    const listError = await rejection(() => client.user.getAll({ limit: 0 }));
    expect(listError).toBeInstanceOf(Vital.UnprocessableEntityError);
  });

  it('patches a user (204) and the change reads back', async () => {
    const user = await client.user.create({ clientUserId: `sdk-${randomUUID()}` });
    const renamed = `sdk-renamed-${randomUUID()}`;
    const result = await client.user.patch(user.userId, {
      fallbackTimeZone: 'America/New_York',
      fallbackBirthDate: '1985-11-02',
      ingestionStart: '2023-01-01',
      ingestionEnd: '2023-06-30',
      clientUserId: renamed,
    });
    expect(result).toBeUndefined();
    const read = await client.user.get(user.userId);
    expect(read).toMatchObject({
      clientUserId: renamed,
      fallbackTimeZone: { id: 'America/New_York', sourceSlug: 'manual' },
      fallbackBirthDate: { value: '1985-11-02', sourceSlug: 'manual' },
      ingestionStart: '2023-01-01',
      ingestionEnd: '2023-06-30',
    });
    expect((await client.user.getByClientUserId(renamed)).userId).toBe(user.userId);
  });

  it('deletes a user, answers 404 for it, and undoes the deletion by user_id and by client_user_id', async () => {
    const user = await client.user.create({ clientUserId: `sdk-${randomUUID()}` });
    expect(await client.user.delete(user.userId)).toEqual({ success: true });

    const gone = await rejection(() => client.user.get(user.userId));
    expect(gone).toBeInstanceOf(VitalError);
    expect((gone as VitalError).statusCode).toBe(404);
    expect((gone as VitalError).body).toEqual({ detail: expect.any(String) });

    expect(await client.user.undoDelete({ userId: user.userId })).toEqual({ success: true });
    expect((await client.user.get(user.userId)).clientUserId).toBe(user.clientUserId);

    expect(await client.user.delete(user.userId)).toEqual({ success: true });
    expect(await client.user.undoDelete({ clientUserId: user.clientUserId })).toEqual({ success: true });
    expect((await client.user.getByClientUserId(user.clientUserId)).userId).toBe(user.userId);

    const neither = await rejection(() => client.user.undoDelete({}));
    expect(neither).toBeInstanceOf(Vital.UnprocessableEntityError);
  });

  it('creates insurances and reads the latest back, filtered by is_primary', async () => {
    const user = await client.user.create({ clientUserId: `sdk-${randomUUID()}` });

    const primary = await client.user.createInsurance(user.userId, {
      payorCode: '60054',
      memberId: 'MEMBER-XK42-9931',
      groupId: 'GRP-77',
      relationship: 'Self',
      insured: insured(),
      guarantor: guarantor(),
      isPrimary: true,
    });
    expect(primary).toEqual({
      memberId: 'MEMBER-XK42-9931',
      payorCode: '60054',
      relationship: 'Self',
      insured: insured(),
      company: {
        name: 'Aetna',
        address: { firstLine: 'PO Box 981106', secondLine: '', city: 'El Paso', state: 'TX', zip: '79998', country: 'US' },
      },
      groupId: 'GRP-77',
      guarantor: guarantor(),
      isPrimary: true,
    });

    const secondary = await client.user.createInsurance(user.userId, {
      payorCode: '62308',
      memberId: 'SECONDARY-1',
      relationship: 'Spouse',
      insured: insured(),
      isPrimary: false,
    });
    expect(secondary).toMatchObject({ memberId: 'SECONDARY-1', relationship: 'Spouse', isPrimary: false, company: { name: expect.any(String) } });
    // group_id and guarantor come back null and parse as absent.
    expect(secondary.groupId).toBeUndefined();
    expect(secondary.guarantor).toBeUndefined();

    expect(await client.user.getLatestInsurance(user.userId, { isPrimary: true })).toEqual(primary);
    expect(await client.user.getLatestInsurance(user.userId, { isPrimary: false })).toEqual(secondary);
    expect(await client.user.getLatestInsurance(user.userId)).toEqual(secondary);
  });

  it('maps insurance errors to the SDK error classes', async () => {
    const user = await client.user.create({ clientUserId: `sdk-${randomUUID()}` });
    const none = await rejection(() => client.user.getLatestInsurance(user.userId, { isPrimary: true }));
    expect(none).toBeInstanceOf(VitalError);
    expect((none as VitalError).statusCode).toBe(404);

    const unknownPayor = await rejection(() =>
      client.user.createInsurance(user.userId, { payorCode: '00000-NOPE', memberId: 'M-1', relationship: 'Self', insured: insured() }),
    );
    expect(unknownPayor).toBeInstanceOf(Vital.UnprocessableEntityError);
    const body = serialization.HttpValidationError.parseOrThrow((unknownPayor as Vital.UnprocessableEntityError).body);
    expect((body.detail as Array<{ loc: unknown }>)[0].loc).toEqual(['body', 'payor_code']);

    const unknownUser = await rejection(() =>
      client.user.createInsurance(randomUUID(), { payorCode: '60054', memberId: 'M-1', relationship: 'Self', insured: insured() }),
    );
    expect(unknownUser).toBeInstanceOf(VitalError);
    expect((unknownUser as VitalError).statusCode).toBe(404);
  });
});
