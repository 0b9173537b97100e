import { randomUUID } from 'node:crypto';
import { call, createTenant, type Tenant, type TestStack } from '../helpers/stack';
import { eventually, orderBody, orderReaches, outboxEvents, startOrderStack } from '../helpers/orders';

/** `POST /v3/order/{order_id}/recreate` (order creation rule 2: INCORRECT_LAB resolves a fresh lab account). */
const LABCORP_KIT = '1ab7e570-0000-4000-8000-00000000000b';
const ACCOUNT = {
  labcorpPlatform: '1ab0acc0-0000-4000-8000-000000000002',
  labcorpFullyDelegated: '1ab0acc0-0000-4000-8000-000000000102',
  usBiotekPlatform: '1ab0acc0-0000-4000-8000-000000000005',
};
const PHYSICIAN = { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' };

describe('POST /v3/order/{order_id}/recreate', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack());
  });
  afterAll(() => stack.close());

  const place = async (overrides: Record<string, unknown> = {}) => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId, overrides) });
    expect(created.status).toBe(200);
    return created.body.order;
  };
  const recreate = (orderId: string, body: unknown) => call(stack.apiUrl, 'POST', `/v3/order/${orderId}/recreate`, { key: tenant.apiKey, body });
  const get = (orderId: string) => call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey });

  it('INCORRECT_LAB: a new order in the same transaction on another lab account; the original is cancelled', async () => {
    const original = await place({
      lab_test_id: LABCORP_KIT,
      lab_account_id: ACCOUNT.labcorpFullyDelegated,
      physician: PHYSICIAN,
      clinical_notes: 'Fasting sample.',
    });

    const recreated = await recreate(original.id, { update_reason: 'INCORRECT_LAB' });
    expect(recreated.status).toBe(200);
    const order = recreated.body.order;
    expect(order.id).not.toBe(original.id);
    expect(order).toMatchObject({
      origin: 'recreation',
      status: 'received',
      user_id: userId,
      lab_test: { id: LABCORP_KIT },
      lab_account_id: ACCOUNT.labcorpPlatform,
      patient_details: original.patient_details,
      physician: { first_name: 'Imani', last_name: 'Castellanos', npi: '1234567893' },
      clinical_notes: 'Fasting sample.',
    });
    expect(order.lab_account_id).not.toBe(original.lab_account_id);
    expect(order.sample_id).not.toBe(original.sample_id);
    expect(order.events.map((event: { status: string }) => event.status)).toEqual(['received.testkit.ordered']);

    // One order transaction, both orders with their origins; still active (the new order is).
    expect(order.order_transaction.id).toBe(original.order_transaction.id);
    expect(order.order_transaction.status).toBe('active');
    expect(order.order_transaction.orders.map((entry: { id: string; origin: string }) => [entry.id, entry.origin])).toEqual([
      [original.id, 'initial'],
      [order.id, 'recreation'],
    ]);
    const listed = await call(stack.apiUrl, 'GET', `/v3/orders?user_id=${userId}`, { key: tenant.apiKey });
    expect(listed.status).toBe(200);

    const old = await get(original.id);
    expect(old.body.status).toBe('cancelled');
    expect(old.body.last_event.status).toBe('cancelled.testkit.cancelled');
    expect(old.body.order_transaction.orders.map((entry: { origin: string }) => entry.origin)).toEqual(['initial', 'recreation']);

    // Webhook events: labtest.order.created for the new order, labtest.order.updated (cancelled) for the old.
    expect(await outboxEvents(stack, tenant.teamId, order.id)).toEqual([{ event_type: 'labtest.order.created', status: 'received.testkit.ordered' }]);
    expect(await outboxEvents(stack, tenant.teamId, original.id)).toEqual([
      { event_type: 'labtest.order.created', status: 'received.testkit.ordered' },
      { event_type: 'labtest.order.updated', status: 'cancelled.testkit.cancelled' },
    ]);

    // The new order has a lifecycle of its own.
    await call(stack.apiUrl, 'POST', `/v3/order/${order.id}/test`, { key: tenant.apiKey, body: {} });
    // Generous: a whole sandbox play, in a batch that took 585 s beside the fault runs once.
    const done = await orderReaches(stack, tenant, order.id, 'completed', 150_000);
    expect(done.order_transaction.status).toBe('completed');

    // Only the latest order of a transaction can be recreated.
    const again = await recreate(original.id, { update_reason: 'INCORRECT_LAB' });
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/already recreated/);
  }, 240_000);

  it('INCORRECT_LAB with no other lab account at the lab: 400 {detail}, the original untouched', async () => {
    // The US BioTek kit: one platform account, no delegated ones.
    const original = await place();
    expect(original.lab_account_id).toBe(ACCOUNT.usBiotekPlatform);
    const refused = await recreate(original.id, { update_reason: 'INCORRECT_LAB' });
    expect(refused.status).toBe(400);
    expect(typeof refused.body.detail).toBe('string');
    expect(refused.body.detail).toMatch(/No other lab account/);
    const unchanged = await get(original.id);
    expect(unchanged.body.status).toBe('received');
    expect(unchanged.body.order_transaction.orders).toHaveLength(1);
  });

  it('refuses the same account for INCORRECT_LAB (422 at lab_account_id), bad bodies, unknown orders', async () => {
    const original = await place({ lab_test_id: LABCORP_KIT });
    const same = await recreate(original.id, { update_reason: 'INCORRECT_LAB', lab_account_id: original.lab_account_id });
    expect(same.status).toBe(422);
    expect(same.body.detail[0].loc).toEqual(['body', 'lab_account_id']);
    const badReason = await recreate(original.id, { update_reason: 'BORED' });
    expect(badReason.status).toBe(422);
    expect(badReason.body.detail[0].loc).toEqual(['body', 'update_reason']);
    const missing = await recreate(original.id, {});
    expect(missing.status).toBe(422);
    const unknown = await recreate(randomUUID(), { update_reason: 'OTHER' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBeTruthy();
    const other = await createTenant(stack.db);
    const foreign = await call(stack.apiUrl, 'POST', `/v3/order/${original.id}/recreate`, { key: other.apiKey, body: { update_reason: 'OTHER' } });
    expect(foreign.status).toBe(404);
    expect((await get(original.id)).body.status).toBe('received');
  });

  it('other reasons keep the lab account; a kit already shipping is not cancelled', async () => {
    const original = await place({ lab_test_id: LABCORP_KIT, lab_account_id: ACCOUNT.labcorpPlatform });
    await call(stack.apiUrl, 'POST', `/v3/order/${original.id}/test?final_status=transit_customer`, { key: tenant.apiKey, body: {} });
    await orderReaches(stack, tenant, original.id, 'transit_customer');

    const recreated = await recreate(original.id, { update_reason: 'PATIENT_DETAILS_CHANGED' });
    expect(recreated.status).toBe(200);
    expect(recreated.body.order).toMatchObject({ origin: 'recreation', lab_account_id: ACCOUNT.labcorpPlatform });
    const old = await eventually(async () => (await get(original.id)).body, 'the original order');
    expect(old.last_event.status).toBe('collecting_sample.testkit.transit_customer');
    expect(old.order_transaction.orders.map((entry: { origin: string }) => entry.origin)).toEqual(['initial', 'recreation']);
  });
});
