import { call, type Tenant, type TestStack } from '../helpers/stack';
import { orderBody, orderPassed, startOrderStack } from '../helpers/orders';
import { fetchBytes, pdfText } from '../helpers/pdf';

/**
 * Order creation rule 3 end to end: an order on an order- or fully-delegated account at a lab that
 * supports delegated accounts must name a physician (from PHYSICIAN_ENFORCEMENT_DATE on); the
 * platform's not-delegated accounts never need one. Labcorp's kit and its order-delegated sandbox
 * account come from migration 1763790006000; its fully-delegated account from the seed.
 */
const LABCORP_KIT = '1ab7e570-0000-4000-8000-00000000000b';
const US_BIOTEK_KIT = '1ab7e570-0000-4000-8000-000000000001';
const ACCOUNT = {
  labcorpPlatform: '1ab0acc0-0000-4000-8000-000000000002',
  labcorpFullyDelegated: '1ab0acc0-0000-4000-8000-000000000102',
  labcorpOrderDelegated: '1ab0acc0-0000-4000-8000-000000000108',
};
const PHYSICIAN = { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893', email: 'dr.castellanos@example.com', licensed_states: ['CA'] };

describe('physician rule (delegated lab accounts), enforced', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack());
  });
  afterAll(() => stack.close());

  const order = (overrides: Record<string, unknown>) => call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId, overrides) });

  it.each([
    ['order_delegated', LABCORP_KIT, ACCOUNT.labcorpOrderDelegated],
    ['fully_delegated', LABCORP_KIT, ACCOUNT.labcorpFullyDelegated],
  ])('refuses an order on an %s account without a physician: 422 naming physician, nothing stored', async (_flow, labTestId, labAccountId) => {
    const refused = await order({ lab_test_id: labTestId, lab_account_id: labAccountId });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'physician']);
    expect(refused.body.detail[0].msg).toMatch(/physician/);
    const listed = await call(stack.apiUrl, 'GET', `/v3/orders?user_id=${userId}`, { key: tenant.apiKey });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(labAccountId);

    const nullPhysician = await order({ lab_test_id: labTestId, lab_account_id: labAccountId, physician: null });
    expect(nullPhysician.status).toBe(422);
    expect(nullPhysician.body.detail[0].loc).toEqual(['body', 'physician']);
  });

  it("lists the physicians the team's orders named, each once, for its own team only", async () => {
    const before = await call(stack.apiUrl, 'GET', `/v2/team/${tenant.teamId}/physicians`, { key: tenant.apiKey });
    expect(before).toMatchObject({ status: 200, body: [] });
    const other = { first_name: 'Ada', last_name: 'Baker', npi: '1245319599' };
    for (const physician of [PHYSICIAN, other, PHYSICIAN]) {
      expect((await order({ lab_test_id: LABCORP_KIT, lab_account_id: ACCOUNT.labcorpOrderDelegated, physician })).status).toBe(200);
    }
    // An order without one (a platform account) adds nobody.
    expect((await order({ lab_test_id: LABCORP_KIT, lab_account_id: ACCOUNT.labcorpPlatform })).status).toBe(200);
    const listed = await call(stack.apiUrl, 'GET', `/v2/team/${tenant.teamId}/physicians`, { key: tenant.apiKey });
    expect(listed).toMatchObject({ status: 200, body: [other, { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' }] });
    expect(listed.body[1]).not.toHaveProperty('email');
    const foreign = await call(stack.apiUrl, 'GET', `/v2/team/${crypto.randomUUID()}/physicians`, { key: tenant.apiKey });
    expect(foreign).toMatchObject({ status: 404, body: { detail: 'Team not found.' } });
  });

  it('accepts it with a physician, who is on the order and on the requisition PDF', async () => {
    const created = await order({ lab_test_id: LABCORP_KIT, lab_account_id: ACCOUNT.labcorpOrderDelegated, physician: PHYSICIAN });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;
    expect(created.body.order).toMatchObject({
      lab_account_id: ACCOUNT.labcorpOrderDelegated,
      physician: { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' },
    });
    const fetched = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });
    expect(fetched.body.physician).toMatchObject({ npi: '1234567893' });

    // Sandbox: simulate as far as the requisition, then read the form.
    const simulated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=requisition_created`, { key: tenant.apiKey, body: {} });
    expect(simulated.status).toBe(200);
    await orderPassed(stack, tenant, orderId, 'requisition_created');
    const pdf = await fetchBytes(`${stack.apiUrl}/v3/order/${orderId}/requisition/pdf`, { 'x-service-api-key': tenant.apiKey });
    expect(pdf.status).toBe(200);
    expect(pdf.contentType).toMatch(/application\/pdf/);
    const text = pdfText(pdf.body);
    expect(text).toContain('Imani Castellanos');
    expect(text).toContain('1234567893');
    expect(text).toContain('Sandbox Labcorp account (order delegated)');
  });

  it('never requires one on a platform (not-delegated) account, nor at a lab without delegated accounts', async () => {
    // No lab_account_id: the platform account at the lab is resolved.
    const resolved = await order({ lab_test_id: LABCORP_KIT });
    expect(resolved.status).toBe(200);
    expect(resolved.body.order).toMatchObject({ lab_account_id: ACCOUNT.labcorpPlatform, physician: null });

    const named = await order({ lab_test_id: LABCORP_KIT, lab_account_id: ACCOUNT.labcorpPlatform });
    expect(named.status).toBe(200);
    expect(named.body.order.physician).toBeNull();

    const usBiotek = await order({ lab_test_id: US_BIOTEK_KIT });
    expect(usBiotek.status).toBe(200);
  });

  it("lists Labcorp's kit among the test kits", async () => {
    const kits = await call(stack.apiUrl, 'GET', '/v3/lab_tests?collection_method=testkit', { key: tenant.apiKey });
    expect(kits.status).toBe(200);
    const bySlug = new Map(kits.body.map((test: { id: string; lab: { slug: string } }) => [test.id, test.lab.slug]));
    expect(bySlug.get(LABCORP_KIT)).toBe('labcorp');
  });
});

describe('physician rule before PHYSICIAN_ENFORCEMENT_DATE', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack({ env: { PHYSICIAN_ENFORCEMENT_DATE: '2099-01-01' } }));
  });
  afterAll(() => stack.close());

  it.each([
    ['order_delegated', LABCORP_KIT, ACCOUNT.labcorpOrderDelegated],
    ['fully_delegated', LABCORP_KIT, ACCOUNT.labcorpFullyDelegated],
  ])('accepts an order on an %s account without a physician during the grace period', async (_flow, labTestId, labAccountId) => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: orderBody(userId, { lab_test_id: labTestId, lab_account_id: labAccountId }),
    });
    expect(created.status).toBe(200);
    expect(created.body.order).toMatchObject({ lab_account_id: labAccountId, physician: null });
  });
});
