import { randomUUID } from 'node:crypto';
import { orderState, orderWorkflowId, SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { OrdersRepository } from '../../src/orders/orders.repository';
import {
  createUser,
  eventually,
  LIPID_PANEL_KIT,
  ORDER_TEST_ENV,
  orderBody,
  orderReaches,
  outboxEvents,
  patientDetails,
  testkitBody,
  WALK_IN_CMP,
} from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

describe('orders API (test kits)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}, key = tenant.apiKey) =>
    call(stack.apiUrl, 'POST', path, { key, body, headers });
  const get = (path: string, key = tenant.apiKey) => call(stack.apiUrl, 'GET', path, { key });

  beforeAll(async () => {
    stack = await startStack({ env: ORDER_TEST_ENV });
    tenant = await createTenant(stack.db);
    userId = await createUser(stack, tenant);
  });
  afterAll(() => stack.close());

  it('creates a registered kit order: received, one event, outbox event, workflow started', async () => {
    // activate_by holds the requisition (sandbox or not), so the order stays as created.
    const activateBy = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const response = await post('/v3/order', orderBody(userId, { clinical_notes: 'Fasting 12h', passthrough: 'ref-1', activate_by: activateBy }));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'success', message: expect.any(String) });
    const order = response.body.order;
    expect(order).toMatchObject({
      user_id: userId,
      team_id: tenant.teamId,
      status: 'received',
      origin: 'initial',
      clinical_notes: 'Fasting 12h',
      passthrough: 'ref-1',
      has_abn: false,
      sample_id: expect.stringMatching(/^LF[0-9A-Z]{10}$/),
      details: { type: 'testkit', data: { id: order.id, shipment: null } },
      lab_test: {
        id: LIPID_PANEL_KIT,
        method: 'testkit',
        name: 'Lipid Panel (test kit)',
        description: 'At-home finger-prick lipid panel on a dried blood spot card.',
      },
      patient_details: { first_name: 'Marguerite', dob: '1986-04-12' },
      shipping_details: { receiver_name: 'Marguerite Okonkwo', zip: '94105' },
      order_transaction: { status: 'active', orders: [{ id: order.id, low_level_status: 'ordered', origin: 'initial' }] },
    });
    expect(order.events).toEqual([{ id: expect.any(Number), created_at: expect.any(String), status: 'received.testkit.ordered', status_detail: null }]);
    expect(order.last_event).toEqual(order.events[0]);

    expect(await outboxEvents(stack, tenant.teamId, order.id)).toEqual([{ event_type: 'labtest.order.created', status: 'received.testkit.ordered' }]);

    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(order.id));
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.teamId)).toBe(tenant.teamId);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.collectionMethod)).toBe('testkit');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.lab)).toBe('us_biotek');
    expect(await handle.query(orderState)).toMatchObject({ low: 'ordered', stage: 'awaiting_activation', seq: 1 });
    // The start's mark is written just after the answer (OrderWorkflows: group commit).
    const row = await eventually(async () => {
      const [found] = await stack.db.query('SELECT workflow_started_at, patient_details_enc FROM orders WHERE id = $1', [order.id]);
      return found.workflow_started_at === null ? undefined : found;
    }, 'the workflow start to be recorded');
    expect(row.patient_details_enc).toMatch(/^v1\./);

    const again = await get(`/v3/order/${order.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(order);
    expect((await post('/v3/order/create', orderBody(userId))).status).toBe(200);
  });

  it('records the workflow start of every order of a burst of concurrent creations (group commit)', async () => {
    const marks = jest.spyOn(stack.api.get(OrdersRepository), 'markWorkflowsStarted');
    try {
      const responses = await Promise.all(Array.from({ length: 20 }, () => post('/v3/order', orderBody(userId))));
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
      const ids: string[] = responses.map((response) => response.body.order.id);
      await eventually(async () => {
        const [{ unmarked }] = await stack.db.query('SELECT count(*)::int AS unmarked FROM orders WHERE id = ANY($1) AND workflow_started_at IS NULL', [ids]);
        return unmarked === 0 ? true : undefined;
      }, 'every order of the burst to have its workflow start recorded');
      // Each order was marked once, by the API's group commit (the reconciler's own marks go one by one, elsewhere).
      const marked = marks.mock.calls.flatMap(([orderIds]) => orderIds).filter((id) => ids.includes(id));
      expect(marked.sort()).toEqual([...ids].sort());
      for (const id of ids) expect((await stack.temporal.workflow.getHandle(orderWorkflowId(id)).describe()).status.name).toBe('RUNNING');
    } finally {
      marks.mockRestore();
    }
  });

  it('creates an unregistered kit with ordered then awaiting_registration (spec rule 1)', async () => {
    const response = await post('/v3/order/testkit', testkitBody(userId));
    expect(response.status).toBe(200);
    const order = response.body.order;
    expect(order.status).toBe('received');
    expect(order.events.map((event: { status: string }) => event.status)).toEqual(['received.testkit.ordered', 'received.testkit.awaiting_registration']);
    expect(order.events[1].id).toBeGreaterThan(order.events[0].id);
    expect(order.last_event.status).toBe('received.testkit.awaiting_registration');
    expect(order.patient_details).toBeNull();
    expect(order.order_transaction.orders[0].low_level_status).toBe('awaiting_registration');
  });

  it('validates: unknown user 404, lab test of another collection method 422, long clinical notes 422, access_notes 422', async () => {
    expect((await post('/v3/order', orderBody(randomUUID()))).status).toBe(404);
    // A walk-in test named as a test kit: the collection method must be the lab test's.
    const walkIn = await post('/v3/order', orderBody(userId, { lab_test_id: WALK_IN_CMP, collection_method: 'testkit' }));
    expect(walkIn.status).toBe(422);
    expect(walkIn.body.detail[0].loc).toEqual(['body', 'collection_method']);
    const notes = await post('/v3/order', orderBody(userId, { clinical_notes: 'x'.repeat(1001) }));
    expect(notes.status).toBe(422);
    expect(notes.body.detail[0].loc).toEqual(['body', 'clinical_notes']);
    const access = await post('/v3/order', orderBody(userId, { patient_address: { ...orderBody(userId).patient_address, access_notes: 'y'.repeat(1001) } }));
    expect(access.status).toBe(422);
    expect(access.body.detail[0].loc).toEqual(['body', 'patient_address', 'access_notes']);
    const missing = await post('/v3/order', { user_id: userId, lab_test_id: LIPID_PANEL_KIT });
    expect(missing.status).toBe(422);
    // A lab account of another lab cannot order this lab's tests (creation rule 1).
    const foreign = await post('/v3/order', orderBody(userId, { lab_account_id: '1ab0acc0-0000-4000-8000-000000000001' }));
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(['body', 'lab_account_id']);
    // lab_test_id beside an order set: they must agree, and add-ons are refused, not left out.
    const agreeing = await post('/v3/order', orderBody(userId, { order_set: { lab_test_ids: [LIPID_PANEL_KIT] } }));
    expect(agreeing.status).toBe(200);
    const otherTest = await post('/v3/order', orderBody(userId, { order_set: { lab_test_ids: [WALK_IN_CMP] } }));
    expect(otherTest.status).toBe(422);
    expect(otherTest.body.detail[0].loc).toEqual(['body', 'order_set', 'lab_test_ids']);
    const addOn = await post('/v3/order', orderBody(userId, { order_set: { add_on: { marker_ids: [1] } } }));
    expect(addOn.status).toBe(422);
    expect(addOn.body.detail[0].loc).toEqual(['body', 'order_set', 'add_on']);
    const twoAccounts = await post(
      '/v3/order',
      orderBody(userId, { lab_account_id: agreeing.body.order.lab_account_id, order_set: { lab_account_id: '1ab0acc0-0000-4000-8000-000000000001' } }),
    );
    expect(twoAccounts.status).toBe(422);
    expect(twoAccounts.body.detail[0].loc).toEqual(['body', 'order_set', 'lab_account_id']);
  });

  it('keeps orders to their team: another team gets 404, exactly as for an id that is no order', async () => {
    const order = (await post('/v3/order', orderBody(userId))).body.order;
    const other = await createTenant(stack.db);
    expect((await get(`/v3/order/${order.id}`, other.apiKey)).status).toBe(404);
    expect((await post(`/v3/order/${order.id}/cancel`, undefined, {}, other.apiKey)).status).toBe(404);
    // No existence oracle: every answer to another team's real id is the answer to a random id.
    const answer = async (method: string, id: string, path: string, body?: unknown) => {
      const response = await call(stack.apiUrl, method, path.replace(':id', id), { key: other.apiKey, body });
      return { status: response.status, body: response.body };
    };
    const random = randomUUID();
    for (const [method, path, body] of [
      ['GET', '/v3/order/:id', undefined],
      ['POST', '/v3/order/:id/cancel', undefined],
      ['POST', '/v3/order/:id/test', {}],
      ['PATCH', '/v3/order/:id', { activate_by: '2031-06-30' }],
      ['GET', '/v3/order/:id/requisition/pdf', undefined],
      ['GET', '/v3/order/:id/result', undefined],
    ] as const) {
      expect(await answer(method, order.id, path, body)).toEqual(await answer(method, random, path, body));
    }
    const orderFor = async (id: string) => {
      const response = await post('/v3/order', orderBody(id), {}, other.apiKey);
      return { status: response.status, body: response.body };
    };
    expect(await orderFor(userId)).toEqual(await orderFor(random));
    const listed = await call(stack.apiUrl, 'GET', '/v3/orders', { key: other.apiKey });
    expect(listed.body).toEqual({ orders: [], total: 0, page: 1, size: 50 });
    const otherUser = await createUser(stack, other);
    expect((await post('/v3/order', orderBody(userId), {}, other.apiKey)).status).toBe(404);
    expect((await post('/v3/order', orderBody(otherUser), {}, other.apiKey)).status).toBe(200);
  });

  it('audits every read of an order before answering it: one phi_access_log row per 200, none for a 404', async () => {
    const order = (await post('/v3/order', orderBody(userId))).body.order;
    const reads = () =>
      stack.db.query(`SELECT team_id, api_key_id, action, resource FROM phi_access_log WHERE resource_id = $1 AND action = 'read' ORDER BY id`, [order.id]);
    expect(await reads()).toEqual([]);
    expect((await get(`/v3/order/${order.id}`)).status).toBe(200);
    // The row is there when the answer is (the read waits for its commit), not eventually.
    expect(await reads()).toEqual([{ team_id: tenant.teamId, api_key_id: tenant.apiKeyId, action: 'read', resource: 'order' }]);
    // Concurrent reads share INSERTs (PhiReadAudit's group commit); each still has its row.
    const answers = await Promise.all(Array.from({ length: 40 }, () => get(`/v3/order/${order.id}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
    expect(await reads()).toHaveLength(41);
    const other = await createTenant(stack.db);
    expect((await get(`/v3/order/${order.id}`, other.apiKey)).status).toBe(404);
    expect((await get(`/v3/order/${randomUUID()}`)).status).toBe(404);
    expect(await reads()).toHaveLength(41);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM phi_access_log WHERE team_id = $1`, [other.teamId]))[0].n).toBe(0);
  });

  it('lists with filters and pages', async () => {
    const team = await createTenant(stack.db);
    const user = await createUser(stack, team);
    const second = await createUser(stack, team);
    const created: string[] = [];
    // Two kits held in ordered by activate_by; the unregistered kit ships at its workflow's pace:
    // filter by status only once it rests in transit_customer.
    for (const body of [orderBody(user, { activate_by: '2030-01-01' }), orderBody(user, { activate_by: '2030-01-01' }), testkitBody(second)]) {
      created.push((await post(body.lab_test_id === LIPID_PANEL_KIT ? '/v3/order' : '/v3/order/testkit', body, {}, team.apiKey)).body.order.id);
    }
    await orderReaches(stack, team, created[2], 'transit_customer');
    const list = (query: string) => call(stack.apiUrl, 'GET', `/v3/orders${query}`, { key: team.apiKey });
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.orders.map((order: { id: string }) => order.id)).toEqual([...created].reverse());
    expect((await list('?status=transit_customer')).body.orders.map((order: { id: string }) => order.id)).toEqual([created[2]]);
    expect((await list('?status=ordered&status=transit_customer')).body.total).toBe(3);
    expect((await list('?status=requisition_created')).body.total).toBe(0);
    expect((await list(`?user_id=${second}`)).body.total).toBe(1);
    expect((await list(`?order_ids=${created[0]}&order_ids=${created[1]}`)).body.total).toBe(2);
    expect((await list('?interpretation=normal')).body.total).toBe(0);
    expect((await list('?order_type=testkit')).body.total).toBe(3);
    const paged = await list('?page=2&size=2&order_direction=asc');
    expect(paged.body).toMatchObject({ total: 3, page: 2, size: 2 });
    expect(paged.body.orders.map((order: { id: string }) => order.id)).toEqual([created[2]]);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await list(`?start_date=${tomorrow}`)).body.total).toBe(0);
    expect((await list('?patient_name=okonkwo')).body.total).toBe(2);
    expect((await list('?status=nonsense')).status).toBe(422);
  });

  it('lists each order as GET /v3/order/{id} shows it, audits each order listed, and pages by patient name', async () => {
    const team = await createTenant(stack.db);
    const user = await createUser(stack, team);
    const created: string[] = [];
    for (const firstName of ['Zora', 'Ada', 'Mila']) {
      // Held in ordered by activate_by: the list and the single reads below see the same orders.
      const body = orderBody(user, { activate_by: '2030-01-01', patient_details: { ...patientDetails(), first_name: firstName } });
      created.push((await post('/v3/order', body, {}, team.apiKey)).body.order.id);
    }
    const list = (query: string) => call(stack.apiUrl, 'GET', `/v3/orders${query}`, { key: team.apiKey });
    const audited = async () =>
      (
        await stack.db.query(`SELECT resource_id FROM phi_access_log WHERE team_id = $1 AND action = 'read' AND resource = 'order' ORDER BY resource_id`, [
          team.teamId,
        ])
      ).map((row: { resource_id: string }) => row.resource_id);

    const listed = await list('');
    expect(listed.status).toBe(200);
    // Every order listed has its audit row by the time the list is answered.
    expect(await audited()).toEqual([...created].sort());
    const single = await Promise.all([...created].reverse().map((id) => get(`/v3/order/${id}`, team.apiKey)));
    expect(listed.body).toEqual({ orders: single.map((response) => response.body), total: 3, page: 1, size: 50 });

    // Past the last page: no orders, and still the total.
    expect((await list('?page=3&size=2')).body).toEqual({ orders: [], total: 3, page: 3, size: 2 });
    const byName = await list('?order_key=patient_name&order_direction=asc&size=2&page=1');
    expect(byName.body.total).toBe(3);
    expect(byName.body.orders.map((order: { patient_details: { first_name: string } }) => order.patient_details.first_name)).toEqual(['Ada', 'Mila']);
    expect(byName.body.orders[0]).toEqual(single.find((response) => response.body.id === created[1])?.body);
    expect((await list('?order_key=patient_name&order_direction=desc&size=2&page=2')).body.orders.map((order: { id: string }) => order.id)).toEqual([
      created[1],
    ]);
    expect((await list('?patient_name=zor')).body).toMatchObject({ total: 1, orders: [{ id: created[0] }] });
    expect((await list(`?search_input=${created[2].slice(0, 8)}`)).body).toMatchObject({ total: 1, orders: [{ id: created[2] }] });
    // search_input as the SDK documents it: order, sample or user id (prefix), patient or
    // recipient name (part), or the patient's date of birth.
    const search = async (input: string) => (await list(`?search_input=${encodeURIComponent(input)}`)).body.orders.map((order: { id: string }) => order.id);
    expect(await search('zor')).toEqual([created[0]]);
    expect(await search('ADA OKONKWO')).toEqual([created[1]]);
    expect(await search('1986-04-12')).toEqual([...created].reverse());
    expect(await search('marguerite')).toEqual([...created].reverse());
    expect(await search(single[0].body.sample_id.toLowerCase().slice(0, 6))).toEqual([single[0].body.id]);
    expect(await search(user.slice(0, 8))).toHaveLength(3);
    expect(await search('1986-04-13')).toEqual([]);
  });

  it('filters by activation type (scheduled: activate_by still ahead) and by shipping recipient name', async () => {
    const team = await createTenant(stack.db);
    const user = await createUser(stack, team);
    const scheduled = (await post('/v3/order', orderBody(user, { activate_by: '2030-01-01' }), {}, team.apiKey)).body.order.id;
    const kit = testkitBody(user);
    const current = (await post('/v3/order/testkit', { ...kit, shipping_details: { ...kit.shipping_details, receiver_name: 'Jonas Brandt' } }, {}, team.apiKey))
      .body.order.id;
    const list = (query: string) => call(stack.apiUrl, 'GET', `/v3/orders${query}`, { key: team.apiKey });
    const ids = async (query: string) => (await list(query)).body.orders.map((order: { id: string }) => order.id);
    expect(await ids('?order_activation_types=scheduled')).toEqual([scheduled]);
    expect(await ids('?order_activation_types[]=current')).toEqual([current]);
    expect(await ids('?order_activation_types=current&order_activation_types=scheduled')).toEqual([current, scheduled]);
    expect(await ids('?shipping_recipient_name=brandt')).toEqual([current]);
    expect(await ids('?shipping_recipient_name=OKONKWO&order_activation_types=scheduled')).toEqual([scheduled]);
    expect(await ids('?shipping_recipient_name=okonkwo&order_activation_types=current')).toEqual([]);
    const refused = await list('?order_activation_types=later');
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['query', 'order_activation_types', 0]);
  });

  it('cancels an order in a cancellable status; refuses again with 400 {detail}', async () => {
    // Held in ordered by activate_by, so no requisition races the cancellation.
    const order = (await post('/v3/order', orderBody(userId, { activate_by: '2030-01-01' }))).body.order;
    const cancelled = await post(`/v3/order/${order.id}/cancel`, undefined);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.order.status).toBe('cancelled');
    expect(cancelled.body.order.last_event.status).toBe('cancelled.testkit.cancelled');
    expect(cancelled.body.order.order_transaction.status).toBe('cancelled');
    const again = await post(`/v3/order/${order.id}/cancel`, undefined);
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/cannot be cancelled/);
    expect(await outboxEvents(stack, tenant.teamId, order.id)).toEqual([
      { event_type: 'labtest.order.created', status: 'received.testkit.ordered' },
      { event_type: 'labtest.order.updated', status: 'cancelled.testkit.cancelled' },
    ]);
    expect(await stack.temporal.workflow.getHandle(orderWorkflowId(order.id)).result()).toEqual({ status: 'cancelled.testkit.cancelled' });

    // The workflow has completed: a simulation of the ended order is a 400 {detail}, with or without a final status.
    const simulated = await post(`/v3/order/${order.id}/test`, {});
    expect(simulated.status).toBe(400);
    expect(simulated.body).toEqual({ detail: 'The order is cancelled.testkit.cancelled. A simulation cannot move an order that has ended.' });
    const toCompleted = await post(`/v3/order/${order.id}/test?final_status=completed`, {});
    expect(toCompleted.status).toBe(400);
    expect(toCompleted.body).toEqual({ detail: expect.stringMatching(/cannot reach/) });
    const activateBy = await call(stack.apiUrl, 'PATCH', `/v3/order/${order.id}`, { key: tenant.apiKey, body: { activate_by: '2031-06-30' } });
    expect(activateBy.status).toBe(400);
  });

  it('changes activate_by while ordered', async () => {
    const order = (await post('/v3/order', orderBody(userId, { activate_by: '2030-01-01' }))).body.order;
    expect(order.activate_by).toBe('2030-01-01');
    const patched = await call(stack.apiUrl, 'PATCH', `/v3/order/${order.id}`, { key: tenant.apiKey, body: { activate_by: '2031-06-30' } });
    expect(patched.status).toBe(200);
    expect(patched.body.order.activate_by).toBe('2031-06-30');
    const state = await stack.temporal.workflow.getHandle(orderWorkflowId(order.id)).query(orderState);
    expect(state.activateBy).toBe('2031-06-30');
    expect((await call(stack.apiUrl, 'PATCH', `/v3/order/${order.id}`, { key: tenant.apiKey, body: { activate_by: 'soon' } })).status).toBe(422);
  });

  describe('X-Idempotency-Key', () => {
    it('replays the first answer and refuses another body under the same key', async () => {
      const key = `idem-${randomUUID()}`;
      const first = await post('/v3/order', orderBody(userId), { 'x-idempotency-key': key });
      const second = await post('/v3/order', orderBody(userId), { 'x-idempotency-key': key });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      const other = await post('/v3/order', orderBody(userId, { passthrough: 'different' }), { 'x-idempotency-key': key });
      expect(other.status).toBe(400);
      expect(typeof other.body.detail).toBe('string');
      const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM orders WHERE id = $1`, [first.body.order.id]);
      expect(count).toBe(1);
    });

    it('stores nothing on a validation failure', async () => {
      const key = `idem-${randomUUID()}`;
      expect((await post('/v3/order', orderBody(userId, { clinical_notes: 'z'.repeat(1001) }), { 'x-idempotency-key': key })).status).toBe(422);
      expect((await post('/v3/order', orderBody(userId), { 'x-idempotency-key': key })).status).toBe(200);
    });

    it('makes one order out of 50 concurrent identical requests', async () => {
      const team = await createTenant(stack.db);
      const user = await createUser(stack, team);
      const key = `idem-${randomUUID()}`;
      const responses = await Promise.all(Array.from({ length: 50 }, () => post('/v3/order', orderBody(user), { 'x-idempotency-key': key }, team.apiKey)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      expect(statuses).toContain(200);
      const ids = new Set(responses.filter((response) => response.status === 200).map((response) => response.body.order.id));
      expect(ids.size).toBe(1);
      const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM orders WHERE team_id = $1`, [team.teamId]);
      expect(count).toBe(1);
      const conflict = responses.find((response) => response.status === 409);
      if (conflict) expect(typeof conflict.body.detail).toBe('string');
      // Once the first finished, every retry replays it.
      const retry = await post('/v3/order', orderBody(user), { 'x-idempotency-key': key }, team.apiKey);
      expect(retry.status).toBe(200);
      expect(retry.body.order.id).toEqual([...ids][0]);
    });
  });
});

describe('POST /v3/order/import', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;
  let pendingAccount: string;

  const importBody = (overrides: Record<string, unknown> = {}) => ({
    user_id: userId,
    billing_type: 'client_bill',
    order_set: { lab_test_ids: [LIPID_PANEL_KIT] },
    collection_method: 'testkit',
    patient_details: orderBody(userId).patient_details,
    patient_address: orderBody(userId).patient_address,
    sample_id: `IMP-${randomUUID().slice(0, 8)}`,
    ...overrides,
  });

  beforeAll(async () => {
    stack = await startStack({ env: ORDER_TEST_ENV });
    tenant = await createTenant(stack.db);
    userId = await createUser(stack, tenant);
    pendingAccount = randomUUID();
    // The team's own account at the test-kit lab, still pending activation.
    await stack.db.query(
      `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, allowed_billing, team_id_allowlist)
       VALUES ($1, $2, 'sandbox', 5, 'pending', 'not_delegated', 'LF-OWN-PENDING', 'Own pending account', '{client_bill}', '{}')`,
      [pendingAccount, tenant.teamId],
    );
  });
  afterAll(() => stack.close());

  it('imports a collected sample on a PENDING lab account; it goes to the lab without shipping', async () => {
    const body = importBody({ lab_account_id: pendingAccount });
    const imported = await call(stack.apiUrl, 'POST', '/v3/order/import', { key: tenant.apiKey, body });
    expect(imported.status).toBe(200);
    const order = imported.body.order;
    expect(order).toMatchObject({ sample_id: body.sample_id, lab_account_id: pendingAccount, status: 'received', shipping_details: null });
    expect(order.events.map((event: { status: string }) => event.status)).toEqual(['received.testkit.ordered']);

    await call(stack.apiUrl, 'POST', `/v3/order/${order.id}/test`, { key: tenant.apiKey, body: {} });
    const done = await orderReaches(stack, tenant, order.id, 'completed');
    expect(done.events.map((event: { status: string }) => event.status.split('.')[2])).toEqual([
      'ordered',
      'requisition_created',
      'transit_lab',
      'delivered_to_lab',
      'completed',
    ]);
    expect(done.details.data.shipment).toBeNull();

    const duplicate = await call(stack.apiUrl, 'POST', '/v3/order/import', { key: tenant.apiKey, body: { ...importBody(), sample_id: body.sample_id } });
    expect(duplicate.status).toBe(400);
  });

  it('refuses a PENDING account for ordinary orders, and a foreign lab test', async () => {
    const ordinary = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId, { lab_account_id: pendingAccount }) });
    expect(ordinary.status).toBe(422);
    const walkIn = await call(stack.apiUrl, 'POST', '/v3/order/import', {
      key: tenant.apiKey,
      body: importBody({ order_set: { lab_test_ids: [WALK_IN_CMP] }, collection_method: 'walk_in_test' }),
    });
    expect(walkIn.status).toBe(422);
    const missing = await call(stack.apiUrl, 'POST', '/v3/order/import', { key: tenant.apiKey, body: importBody({ sample_id: undefined }) });
    expect(missing.status).toBe(422);
  });
});
