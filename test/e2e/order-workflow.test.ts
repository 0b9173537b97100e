import { temporal } from '@temporalio/proto';
import { writeFileSync } from 'node:fs';
import { orderState, orderWorkflowId, SEARCH_ATTRIBUTES } from '../../workflows/contract';
import { type OrderFlow, type OrderLowLevelStatus, parseEventStatus } from '../../workflows/order/order-statuses';
import { canTransition } from '../../workflows/order/order-lifecycle';
import { createUser, eventually, ON_SITE_CMP, ORDER_TEST_ENV, orderBody, orderReaches, outboxEvents, partnerWebhook, testkitBody } from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const EventType = temporal.api.enums.v1.EventType;

/** Workflow ids worth keeping as replay fixtures (scripts/export-history.ts), when asked for. */
const fixtures: Record<string, string> = {};
afterAll(() => {
  if (process.env.ORDER_FIXTURE_IDS) writeFileSync(process.env.ORDER_FIXTURE_IDS, JSON.stringify(fixtures, null, 2));
});

interface HistorySummary {
  names: string[];
  /** Activity types in the order they were scheduled. */
  activities: string[];
  signals: string[];
  updatesAccepted: string[];
  /** The workflow type the run started as. */
  type: string;
}

async function history(stack: TestStack, orderId: string): Promise<HistorySummary> {
  const events = (await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory()).events ?? [];
  return {
    names: events.map((event) => EventType[event.eventType ?? 0].replace(/^EVENT_TYPE_/, '')),
    activities: events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : [],
    ),
    signals: events.flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName ?? ''] : [],
    ),
    updatesAccepted: events.flatMap((event) =>
      event.workflowExecutionUpdateAcceptedEventAttributes ? [event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name ?? ''] : [],
    ),
    type: events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
  };
}

/** The low-level statuses of an order's events, checked against the lifecycle table. */
function lows(flow: OrderFlow, order: { events: Array<{ status: string }> }): OrderLowLevelStatus[] {
  const statuses = order.events.map((event) => parseEventStatus(event.status)?.low as OrderLowLevelStatus);
  const initial = flow === 'registrable_testkit' ? 2 : 1;
  for (let i = initial; i < statuses.length; i += 1) {
    expect({ from: statuses[i - 1], to: statuses[i], allowed: canTransition(flow, statuses[i - 1], statuses[i]) }).toEqual({
      from: statuses[i - 1],
      to: statuses[i],
      allowed: true,
    });
  }
  return statuses;
}

const count = (items: string[], item: string) => items.filter((candidate) => candidate === item).length;

/**
 * Every event after the API's first ones was recorded by exactly one recordOrderTransition
 * activity and put exactly one labtest.order.updated in the outbox, in order (but partial_results,
 * whose webhook is a team's opt-in, off for these teams).
 */
async function expectRecordedOnce(stack: TestStack, teamId: string, order: { id: string; events: Array<{ status: string }> }, initial = 1) {
  const outbox = await outboxEvents(stack, teamId, order.id);
  expect(outbox.filter((event) => event.event_type !== 'labtest.result.critical').map((event) => `${event.event_type} ${event.status}`)).toEqual([
    `labtest.order.created ${order.events[initial - 1].status}`,
    ...order.events
      .slice(initial)
      .filter((event) => !event.status.endsWith('.partial_results'))
      .map((event) => `labtest.order.updated ${event.status}`),
  ]);
  const summary = await history(stack, order.id);
  expect(count(summary.activities, 'recordOrderTransition')).toBe(order.events.length - initial);
  return summary;
}

describe('order workflow on the real dev server', () => {
  let stack: TestStack;
  let sandbox: Tenant;
  let production: Tenant;
  let sandboxUser: string;
  let productionUser: string;
  let receiver: WebhookReceiver;

  const post = (tenant: Tenant, path: string, body?: unknown) => call(stack.apiUrl, 'POST', path, { key: tenant.apiKey, body });
  const getOrder = async (tenant: Tenant, id: string) => (await call(stack.apiUrl, 'GET', `/v3/order/${id}`, { key: tenant.apiKey })).body;
  const courier = (trackingNumber: string, status: string, statusDetail?: string) =>
    partnerWebhook(stack, 'courier', { tracking_number: trackingNumber, status, ...(statusDetail ? { status_detail: statusDetail } : {}) });
  const lab = (orderId: string, status: string, extra: Record<string, unknown> = {}) => partnerWebhook(stack, 'lab', { order_id: orderId, status, ...extra });

  /** A production order: it goes straight to requisition and shipping; returns it in transit. */
  const productionOrderInTransit = async () => {
    const created = (await post(production, '/v3/order', orderBody(productionUser))).body.order;
    const order = await orderReaches(stack, production, created.id, 'transit_customer');
    return {
      id: created.id as string,
      outbound: order.details.data.shipment.outbound_tracking_number,
      inbound: order.details.data.shipment.inbound_tracking_number,
    };
  };

  beforeAll(async () => {
    stack = await startStack({ env: { ...ORDER_TEST_ENV, EVENTS_RELAY_POLL_INTERVAL: '200ms' }, events: true, management: true });
    sandbox = await createTenant(stack.db);
    production = await createTenant(stack.db, { environment: 'production' });
    sandboxUser = await createUser(stack, sandbox);
    productionUser = await createUser(stack, production);
    receiver = await WebhookReceiver.start();
    const endpoint = await call(stack.managementUrl, 'POST', `/v1/org/${sandbox.orgId}/team/${sandbox.teamId}/sandbox/webhook`, {
      headers: { 'X-Management-Key': sandbox.managementKey },
      body: { url: receiver.url('/orders') },
    });
    expect(endpoint.status).toBe(200);
    const secret = await call(stack.managementUrl, 'GET', `/v1/org/${sandbox.orgId}/team/${sandbox.teamId}/sandbox/webhook/${endpoint.body.id}/secret`, {
      headers: { 'X-Management-Key': sandbox.managementKey },
    });
    receiver.secret('/orders', secret.body.key);
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it('kit, sandbox: requisition and shipment at once, as in production; /test has the sandbox courier and lab report the rest, and every webhook fires', async () => {
    const created = (await post(sandbox, '/v3/order', orderBody(sandboxUser))).body.order;
    fixtures['order--happy'] = orderWorkflowId(created.id);
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(created.id));
    // labflow's own steps happen without /test; then the order waits for the courier.
    await orderReaches(stack, sandbox, created.id, 'transit_customer');
    // The DB shows the transition once its activity committed; the workflow once the activity's
    // completion is recorded, a moment later.
    const state = await eventually(async () => {
      const current = await handle.query(orderState);
      return current.low === 'transit_customer' ? current : undefined;
    }, 'the workflow to record transit_customer');
    expect(state).toMatchObject({ stage: 'kit_to_customer', low: 'transit_customer', simulation: null });

    const simulated = await post(sandbox, `/v3/order/${created.id}/test`, { interpretation: 'normal' });
    expect(simulated.status).toBe(200);
    const order = await orderReaches(stack, sandbox, created.id, 'completed');
    expect(lows('testkit', order)).toEqual([
      'ordered',
      'requisition_created',
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'transit_lab',
      'delivered_to_lab',
      'completed',
    ]);
    expect(order).toMatchObject({
      status: 'completed',
      interpretation: 'normal',
      has_missing_results: false,
      requisition_form_url: expect.stringContaining(`/v3/order/${created.id}/requisition/pdf`),
      order_transaction: { status: 'completed' },
      details: { data: { shipment: { outbound_courier: 'sandbox', outbound_tracking_number: expect.stringMatching(/^LFO/) } } },
    });
    expect(order.last_event).toEqual(order.events.at(-1));
    expect(new Set(order.events.map((event: { id: number }) => event.id)).size).toBe(8);

    const outbox = await outboxEvents(stack, sandbox.teamId, created.id);
    expect(outbox.map((event) => `${event.event_type} ${event.status}`)).toEqual([
      'labtest.order.created received.testkit.ordered',
      ...order.events.slice(1).map((event: { status: string }) => `labtest.order.updated ${event.status}`),
    ]);

    // Delivered and signed (svix + standardwebhooks verify them), each event once.
    const delivered = await eventually(async () => {
      const mine = receiver.requests.filter((request) => request.path === '/orders' && (request.json?.data?.id ?? request.json?.data?.order_id) === created.id);
      return mine.length >= 8 ? mine : undefined;
    }, 'webhooks for the order');
    expect(delivered.every((request) => request.verified)).toBe(true);
    expect(new Set(delivered.map((request) => request.webhookId)).size).toBe(8);
    expect(delivered.map((request) => request.json.data.last_event.status).sort()).toEqual(
      order.events.map((event: { status: string }) => event.status).sort(),
    );
    expect(delivered[0].json).toMatchObject({ team_id: sandbox.teamId, user_id: sandboxUser, client_user_id: expect.any(String) });

    expect(await handle.result()).toEqual({ status: 'completed.testkit.completed' });
    const summary = await history(stack, created.id);
    expect(count(summary.activities, 'recordOrderTransition')).toBe(7);
    expect(summary.activities.filter((name) => name !== 'recordOrderTransition')).toEqual(['createRequisition', 'shipKit', 'collectResults']);
    // The partners' reports, as real partners' webhooks arrive; no simulation inside.
    expect(summary.signals).toEqual(['courierUpdate', 'courierUpdate', 'courierUpdate', 'courierUpdate', 'labUpdate']);
    expect(summary.type).toBe('orderWorkflowV2');
    expect(summary.names.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.orderStatus)).toBe('completed');
  });

  it('registrable kit: ships unregistered, waits for registerKit, then goes to the lab', async () => {
    const created = (await post(sandbox, '/v3/order/testkit', testkitBody(sandboxUser))).body.order;
    fixtures['order--registrable'] = orderWorkflowId(created.id);
    const early = await post(sandbox, '/v3/order/testkit/register', {
      sample_id: created.sample_id,
      patient_details: orderBody(sandboxUser).patient_details,
      patient_address: orderBody(sandboxUser).patient_address,
    });
    expect(early.status).toBe(400);
    expect(early.body.detail).toMatch(/not shipped/);

    await post(sandbox, `/v3/order/${created.id}/test`, {});
    await orderReaches(stack, sandbox, created.id, 'with_customer');
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(created.id));
    await eventually(async () => ((await handle.query(orderState)).stage === 'awaiting_registration' ? true : undefined), 'awaiting registration');

    const registered = await post(sandbox, '/v3/order/testkit/register', {
      sample_id: created.sample_id,
      patient_details: orderBody(sandboxUser).patient_details,
      patient_address: orderBody(sandboxUser).patient_address,
      physician: { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' },
    });
    expect(registered.status).toBe(200);
    expect(registered.body.order.last_event.status).toBe('received.testkit.registered');
    expect(registered.body.order.patient_details).toMatchObject({ first_name: 'Marguerite' });
    expect(registered.body.order.physician).toMatchObject({ npi: '1234567893' });

    const again = await post(sandbox, '/v3/order/testkit/register', {
      sample_id: created.sample_id,
      patient_details: orderBody(sandboxUser).patient_details,
      patient_address: orderBody(sandboxUser).patient_address,
    });
    expect(again.status).toBe(400);

    const order = await orderReaches(stack, sandbox, created.id, 'completed');
    expect(lows('registrable_testkit', order)).toEqual([
      'ordered',
      'awaiting_registration',
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'registered',
      'requisition_created',
      'transit_lab',
      'delivered_to_lab',
      'completed',
    ]);
    const summary = await history(stack, created.id);
    expect(summary.updatesAccepted).toEqual(['registerKit']);
    expect(count(summary.activities, 'recordOrderTransition')).toBe(8);
    expect((await outboxEvents(stack, sandbox.teamId, created.id)).length).toBe(9);
  });

  it('cancels through the cancelOrder update: one transition, no requisition, workflow ends', async () => {
    // Waiting for its activate_by, the kit has not shipped (one that has can no longer be cancelled).
    const created = (await post(sandbox, '/v3/order', orderBody(sandboxUser, { activate_by: '2099-01-01' }))).body.order;
    fixtures['order--cancel'] = orderWorkflowId(created.id);
    const cancelled = await post(sandbox, `/v3/order/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(lows('testkit', cancelled.body.order)).toEqual(['ordered', 'cancelled']);
    expect(await stack.temporal.workflow.getHandle(orderWorkflowId(created.id)).result()).toEqual({ status: 'cancelled.testkit.cancelled' });
    const summary = await history(stack, created.id);
    expect(summary.updatesAccepted).toEqual(['cancelOrder']);
    expect(summary.activities).toEqual(['recordOrderTransition']);
    expect(summary.names).toContain('WORKFLOW_EXECUTION_UPDATE_COMPLETED');
  });

  it('refuses to cancel once the kit has shipped, writing nothing', async () => {
    const created = (await post(sandbox, '/v3/order', orderBody(sandboxUser))).body.order;
    await post(sandbox, `/v3/order/${created.id}/test?final_status=collecting_sample.testkit.with_customer`);
    const before = await orderReaches(stack, sandbox, created.id, 'with_customer');
    const refused = await post(sandbox, `/v3/order/${created.id}/cancel`);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/cannot be cancelled/);
    const after = await getOrder(sandbox, created.id);
    expect(after.events).toEqual(before.events);
    // A simulation stopped at with_customer leaves the order there; courier facts still apply.
    expect((await courier(after.details.data.shipment.inbound_tracking_number, 'transit_lab')).status).toBe(200);
    await orderReaches(stack, sandbox, created.id, 'transit_lab');
    expect((await post(sandbox, `/v3/order/${created.id}/test?final_status=failed.testkit.failure_to_deliver_to_customer`)).status).toBe(400);
    await post(sandbox, `/v3/order/${created.id}/test?final_status=failed.testkit.failure_to_deliver_to_lab`);
    const failed = await orderReaches(stack, sandbox, created.id, 'failure_to_deliver_to_lab');
    expect(failed.status).toBe('failed');
  });

  describe('on-site collection: the team reports the draw, the lab reports results', () => {
    const patchDraw = (tenant: Tenant, id: string) => call(stack.apiUrl, 'PATCH', `/v3/order/${id}/draw_completed`, { key: tenant.apiKey });

    it('production: requisition at once; PATCH draw_completed records the draw once; lab webhooks complete it', async () => {
      const created = await post(production, '/v3/order', orderBody(productionUser, { lab_test_id: ON_SITE_CMP, collection_method: 'on_site_collection' }));
      expect(created.status).toBe(200);
      expect(created.body.order).toMatchObject({
        status: 'received',
        details: { type: 'on_site_collection', data: { id: created.body.order.id } },
        lab_test: { id: ON_SITE_CMP, method: 'on_site_collection' },
        last_event: { status: 'received.on_site_collection.ordered' },
      });
      expect(created.body.order.details.data).not.toHaveProperty('appointment_id');
      const id = created.body.order.id as string;
      fixtures['order--on-site'] = orderWorkflowId(id);
      await orderReaches(stack, production, id, 'requisition_created');
      const handle = stack.temporal.workflow.getHandle(orderWorkflowId(id));
      await eventually(async () => ((await handle.query(orderState)).stage === 'awaiting_draw' ? true : undefined), 'awaiting the draw');

      // No appointment for an on-site order.
      const booking = await post(production, `/v3/order/${id}/psc/appointment/book`, { booking_key: 'x' });
      expect(booking.status).toBeGreaterThanOrEqual(400);
      expect(booking.status).toBeLessThan(500);

      const drawn = await patchDraw(production, id);
      expect(drawn.status).toBe(200);
      expect(drawn.body).toMatchObject({
        status: 'success',
        message: 'Draw completed.',
        order: { status: 'sample_with_lab', last_event: { status: 'sample_with_lab.on_site_collection.draw_completed' } },
      });
      const again = await patchDraw(production, id);
      expect(again.status).toBe(400);
      expect(again.body.detail).toBe('The sample has already been drawn: the order is sample_with_lab.on_site_collection.draw_completed.');
      const cancel = await post(production, `/v3/order/${id}/cancel`);
      expect(cancel.status).toBe(400);
      expect(cancel.body.detail).toMatch(/cannot be cancelled/);

      expect((await lab(id, 'partial_results')).status).toBe(200);
      await orderReaches(stack, production, id, 'partial_results');
      expect((await lab(id, 'completed')).status).toBe(200);
      const order = await orderReaches(stack, production, id, 'completed');
      expect(lows('on_site_collection', order)).toEqual(['ordered', 'requisition_created', 'draw_completed', 'partial_results', 'completed']);
      expect(order.events.map((event: { status: string }) => event.status.split('.')[0])).toEqual([
        'received',
        'received',
        'sample_with_lab',
        'sample_with_lab',
        'completed',
      ]);
      const results = await call(stack.apiUrl, 'GET', `/v3/order/${id}/result`, { key: production.apiKey });
      expect(results.status).toBe(200);
      expect(results.body.results.length).toBeGreaterThan(0);
      expect(await handle.result()).toEqual({ status: 'completed.on_site_collection.completed' });
      const summary = await expectRecordedOnce(stack, production.teamId, order);
      // The refused second report never reached the history.
      expect(summary.updatesAccepted).toEqual(['recordOnSiteDraw']);
    });

    it('refuses a draw report before the requisition, and for orders of other methods', async () => {
      const created = (
        await post(
          production,
          '/v3/order',
          orderBody(productionUser, { lab_test_id: ON_SITE_CMP, collection_method: 'on_site_collection', activate_by: '2099-01-01' }),
        )
      ).body.order;
      const early = await patchDraw(production, created.id);
      expect(early.status).toBe(400);
      expect(early.body.detail).toBe('The draw cannot be reported yet: the order has no requisition (it is received.on_site_collection.ordered).');
      const cancelled = await post(production, `/v3/order/${created.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(lows('on_site_collection', cancelled.body.order)).toEqual(['ordered', 'cancelled']);
      const late = await patchDraw(production, created.id);
      expect(late.status).toBe(400);
      expect(late.body.detail).toBe('The order is cancelled.on_site_collection.cancelled.');

      const kit = (await post(production, '/v3/order', orderBody(productionUser))).body.order;
      const notOnSite = await patchDraw(production, kit.id);
      expect(notOnSite.status).toBe(400);
      expect(notOnSite.body.detail).toMatch(/is a testkit order, not a/);
      expect(await getOrder(production, kit.id)).not.toMatchObject({ last_event: { status: expect.stringContaining('draw_completed') } });
    });

    it('sandbox: a simulation draws in the staff’s place and walks to completed; one heading for cancelled cancels before the draw', async () => {
      const created = (await post(sandbox, '/v3/order', orderBody(sandboxUser, { lab_test_id: ON_SITE_CMP, collection_method: 'on_site_collection' }))).body
        .order;
      fixtures['order--on-site-simulated'] = orderWorkflowId(created.id);
      await orderReaches(stack, sandbox, created.id, 'requisition_created');
      expect((await post(sandbox, `/v3/order/${created.id}/test`, {})).status).toBe(200);
      const order = await orderReaches(stack, sandbox, created.id, 'completed');
      expect(lows('on_site_collection', order)).toEqual(['ordered', 'requisition_created', 'draw_completed', 'partial_results', 'completed']);
      // The sandbox's staff report the draw as the team would (the recordOnSiteDraw update), the lab its results.
      const summary = await expectRecordedOnce(stack, sandbox.teamId, order);
      expect(summary.updatesAccepted).toEqual(['recordOnSiteDraw']);
      expect(summary.signals).toEqual(['labUpdate', 'labUpdate']);

      const other = (await post(sandbox, '/v3/order', orderBody(sandboxUser, { lab_test_id: ON_SITE_CMP, collection_method: 'on_site_collection' }))).body
        .order;
      await orderReaches(stack, sandbox, other.id, 'requisition_created');
      expect((await post(sandbox, `/v3/order/${other.id}/test?final_status=cancelled.on_site_collection.cancelled`, {})).status).toBe(200);
      const cancelled = await orderReaches(stack, sandbox, other.id, 'cancelled');
      expect(lows('on_site_collection', cancelled)).toEqual(['ordered', 'requisition_created', 'cancelled']);
    });
  });

  describe('failure paths driven by courier and lab webhooks (production orders)', () => {
    it('failure_to_deliver_to_customer after out_for_delivery', async () => {
      const { id, outbound } = await productionOrderInTransit();
      fixtures['order--failure-to-deliver-to-customer'] = orderWorkflowId(id);
      expect((await courier(outbound, 'out_for_delivery')).status).toBe(200);
      expect((await courier(outbound, 'failure_to_deliver_to_customer')).status).toBe(200);
      const order = await orderReaches(stack, production, id, 'failure_to_deliver_to_customer');
      expect(order.status).toBe('failed');
      expect(lows('testkit', order)).toEqual(['ordered', 'requisition_created', 'transit_customer', 'out_for_delivery', 'failure_to_deliver_to_customer']);
      expect(await stack.temporal.workflow.getHandle(orderWorkflowId(id)).result()).toEqual({ status: 'failed.testkit.failure_to_deliver_to_customer' });
      const summary = await expectRecordedOnce(stack, production.teamId, order);
      expect(summary.signals).toEqual(['courierUpdate', 'courierUpdate']);
      expect(summary.names.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');
    });

    it('problem_in_transit both ways, then failure_to_deliver_to_lab', async () => {
      const { id, outbound, inbound } = await productionOrderInTransit();
      fixtures['order--problem-in-transit'] = orderWorkflowId(id);
      for (const [number, status, detail] of [
        [outbound, 'problem_in_transit_customer', 'Address not found; held at the depot'],
        [outbound, 'with_customer', undefined],
        [inbound, 'transit_lab', undefined],
        [inbound, 'problem_in_transit_lab', 'Weather delay'],
      ] as const) {
        expect((await courier(number, status, detail)).status).toBe(200);
        const reached = await orderReaches(stack, production, id, status);
        // The courier's latest words are the shipment's notes.
        if (status === 'problem_in_transit_customer') expect(reached.details.data.shipment.notes).toBe('Address not found; held at the depot');
        if (status === 'with_customer') expect(reached.details.data.shipment.notes).toBe('Address not found; held at the depot');
        if (status === 'problem_in_transit_lab') expect(reached.details.data.shipment.notes).toBe('Weather delay');
      }
      await courier(inbound, 'failure_to_deliver_to_lab');
      const order = await orderReaches(stack, production, id, 'failure_to_deliver_to_lab');
      expect(lows('testkit', order).slice(2)).toEqual([
        'transit_customer',
        'problem_in_transit_customer',
        'with_customer',
        'transit_lab',
        'problem_in_transit_lab',
        'failure_to_deliver_to_lab',
      ]);
      expect((await expectRecordedOnce(stack, production.teamId, order)).signals).toHaveLength(5);
    });

    it('lost in transit', async () => {
      const { id, outbound } = await productionOrderInTransit();
      fixtures['order--lost'] = orderWorkflowId(id);
      await courier(outbound, 'lost');
      const order = await orderReaches(stack, production, id, 'lost');
      expect(order.status).toBe('failed');
      expect(await stack.temporal.workflow.getHandle(orderWorkflowId(id)).result()).toEqual({ status: 'failed.testkit.lost' });
      await expectRecordedOnce(stack, production.teamId, order);
    });

    it('sample_error from the lab, with its status_detail', async () => {
      const { id, outbound, inbound } = await productionOrderInTransit();
      fixtures['order--sample-error'] = orderWorkflowId(id);
      await courier(outbound, 'with_customer');
      await orderReaches(stack, production, id, 'with_customer');
      await courier(inbound, 'delivered_to_lab');
      await orderReaches(stack, production, id, 'delivered_to_lab');
      expect((await getOrder(production, id)).notes).toBeNull();
      await lab(id, 'sample_error', { status_detail: 'sample_hemolyzed', notes: 'Specimen hemolyzed on arrival; please redraw.' });
      const order = await orderReaches(stack, production, id, 'sample_error');
      expect(order.last_event).toMatchObject({ status: 'failed.testkit.sample_error', status_detail: 'sample_hemolyzed' });
      // The lab's note is the order's, encrypted at rest.
      expect(order.notes).toBe('Specimen hemolyzed on arrival; please redraw.');
      const [row] = await stack.db.query('SELECT notes_enc FROM orders WHERE id = $1', [id]);
      expect(row.notes_enc).not.toContain('hemolyzed');
      const tooLong = await lab(id, 'sample_error', { notes: 'x'.repeat(2001) });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.detail[0].loc).toEqual(['body', 'notes']);
      expect(order.last_event).toEqual(order.events.at(-1));
      expect((await expectRecordedOnce(stack, production.teamId, order)).signals).toEqual(['courierUpdate', 'courierUpdate', 'labUpdate']);
    });

    it('do_not_process from the lab', async () => {
      const { id, outbound, inbound } = await productionOrderInTransit();
      fixtures['order--do-not-process'] = orderWorkflowId(id);
      await courier(outbound, 'with_customer');
      await orderReaches(stack, production, id, 'with_customer');
      await courier(inbound, 'delivered_to_lab');
      await orderReaches(stack, production, id, 'delivered_to_lab');
      await lab(id, 'do_not_process');
      const order = await orderReaches(stack, production, id, 'do_not_process');
      expect(order.status).toBe('cancelled');
      expect(order.last_event.status).toBe('cancelled.testkit.do_not_process');
      await expectRecordedOnce(stack, production.teamId, order);
    });

    it('critical results from the lab emit labtest.result.critical', async () => {
      const { id, outbound, inbound } = await productionOrderInTransit();
      await courier(outbound, 'with_customer');
      await orderReaches(stack, production, id, 'with_customer');
      await courier(inbound, 'delivered_to_lab');
      await orderReaches(stack, production, id, 'delivered_to_lab');
      await lab(id, 'completed', { interpretation: 'critical' });
      const order = await orderReaches(stack, production, id, 'completed');
      expect(order.interpretation).toBe('critical');
      const outbox = await outboxEvents(stack, production.teamId, id);
      expect(outbox.map((event) => event.event_type)).toContain('labtest.result.critical');
      expect(
        count(
          outbox.map((event) => event.event_type),
          'labtest.result.critical',
        ),
      ).toBe(1);
      await expectRecordedOnce(stack, production.teamId, order);
      expect((await post(production, `/v3/order/${id}/test`)).status).toBe(400);
    });

    it('ignores facts the lifecycle does not allow from the current status', async () => {
      const { id, outbound, inbound } = await productionOrderInTransit();
      await courier(inbound, 'delivered_to_lab');
      await lab(id, 'completed');
      await courier(outbound, 'out_for_delivery');
      const order = await orderReaches(stack, production, id, 'out_for_delivery');
      expect(lows('testkit', order)).toEqual(['ordered', 'requisition_created', 'transit_customer', 'out_for_delivery']);
    });

    it('refuses unsigned, stale or misdirected partner webhooks', async () => {
      const { outbound } = await productionOrderInTransit();
      expect((await partnerWebhook(stack, 'courier', { tracking_number: outbound, status: 'lost' }, 'wrong-secret-wrong-secret')).status).toBe(401);
      expect((await call(stack.apiUrl, 'POST', '/v3/webhooks/courier/sandbox', { body: { tracking_number: outbound, status: 'lost' } })).status).toBe(401);
      expect((await courier('LFO-unknown', 'lost')).status).toBe(404);
      // A lab's status from a courier: refused by validation, with the documented 422 list.
      const notCourierStatus = await courier(outbound, 'completed');
      expect(notCourierStatus.status).toBe(422);
      expect(notCourierStatus.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'status'], type: 'enum', input: 'completed' })]);
      expect((await partnerWebhook(stack, 'courier', { tracking_number: outbound, status: 'lost' }, undefined, 'fedex')).status).toBe(404);
    });
  });
});

describe('order workflow timers', () => {
  let stack: TestStack;
  let production: Tenant;
  let user: string;

  beforeAll(async () => {
    stack = await startStack({ env: { ...ORDER_TEST_ENV, ORDER_REGISTRATION_WINDOW: '2s', ORDER_SAMPLE_TO_LAB_WINDOW: '2s' } });
    production = await createTenant(stack.db, { environment: 'production' });
    user = await createUser(stack, production);
  });
  afterAll(() => stack?.close());

  it('a kit that never reaches the lab within the window is lost', async () => {
    const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: production.apiKey, body: orderBody(user) })).body.order;
    fixtures['order--sample-to-lab-window'] = orderWorkflowId(created.id);
    const shipped = await orderReaches(stack, production, created.id, 'transit_customer');
    await partnerWebhook(stack, 'courier', { tracking_number: shipped.details.data.shipment.outbound_tracking_number, status: 'with_customer' });
    const order = await orderReaches(stack, production, created.id, 'lost');
    expect(order.events.map((event: { status: string }) => event.status).slice(-2)).toEqual(['collecting_sample.testkit.with_customer', 'failed.testkit.lost']);
    expect((await expectRecordedOnce(stack, production.teamId, order)).names).toContain('TIMER_FIRED');
  });

  it('an unregistered kit is cancelled when the registration window closes', async () => {
    const created = (await call(stack.apiUrl, 'POST', '/v3/order/testkit', { key: production.apiKey, body: testkitBody(user) })).body.order;
    fixtures['order--registration-window'] = orderWorkflowId(created.id);
    const shipped = await orderReaches(stack, production, created.id, 'transit_customer');
    await partnerWebhook(stack, 'courier', { tracking_number: shipped.details.data.shipment.outbound_tracking_number, status: 'with_customer' });
    const order = await orderReaches(stack, production, created.id, 'cancelled');
    expect(order.events.map((event: { status: string }) => event.status).slice(-2)).toEqual([
      'collecting_sample.testkit.with_customer',
      'cancelled.testkit.cancelled',
    ]);
    expect((await expectRecordedOnce(stack, production.teamId, order, 2)).names).toContain('TIMER_FIRED');
  });

  it('holds the requisition until activate_by; moving the date releases it', async () => {
    const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: production.apiKey, body: orderBody(user, { activate_by: '2099-01-01' }) })).body
      .order;
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(created.id));
    await eventually(async () => ((await handle.query(orderState)).stage === 'awaiting_activation' ? true : undefined), 'awaiting activation');
    const today = new Date().toISOString().slice(0, 10);
    const patched = await call(stack.apiUrl, 'PATCH', `/v3/order/${created.id}`, { key: production.apiKey, body: { activate_by: today } });
    expect(patched.status).toBe(200);
    await orderReaches(stack, production, created.id, 'transit_customer');
    const late = await call(stack.apiUrl, 'PATCH', `/v3/order/${created.id}`, { key: production.apiKey, body: { activate_by: today } });
    expect(late.status).toBe(400);
  });
});
