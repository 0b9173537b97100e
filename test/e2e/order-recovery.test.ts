import { SESSION_LOCKS } from '../../src/common/session-lock';
import { OrderTransitionsService } from '../../src/orders/order-transitions.service';
import { OrderReconciler } from '../../src/orders/order-reconciler';
import { OrderWorkflows } from '../../src/orders/order-workflows';
import { OrdersRepository } from '../../src/orders/orders.repository';
import { orderWorkflowId } from '../../workflows/contract';
import { createUser, eventually, ORDER_TEST_ENV, orderBody, orderPassed, orderReaches, outboxEvents, startReplaceableWorker } from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Crashes: a worker dying mid-lifecycle, an activity retried after it committed, and an API
 * process dying between the order's commit and its workflow start.
 */
describe('order lifecycle survives crashes', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;
  let worker: { stop(): Promise<void> } | null = null;

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      env: { ...ORDER_TEST_ENV, SANDBOX_STEP_DELAY: '1s', RECONCILER_INTERVAL: '300ms', RECONCILER_GRACE: '500ms' },
    });
    tenant = await createTenant(stack.db);
    userId = await createUser(stack, tenant);
    worker = await startReplaceableWorker(stack);
  });
  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
  });

  it('completes on a new worker after the first one stops mid-lifecycle, with no transition twice', async () => {
    const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) })).body.order;
    await call(stack.apiUrl, 'POST', `/v3/order/${created.id}/test`, { key: tenant.apiKey, body: {} });
    // Passed, not reached: the simulation moves on a second later, and a slow poll can miss the status.
    await orderPassed(stack, tenant, created.id, 'out_for_delivery');

    await worker!.stop();
    // While no worker runs, the simulation's timer fires and the workflow task waits on the server.
    const frozen = await call(stack.apiUrl, 'GET', `/v3/order/${created.id}`, { key: tenant.apiKey });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    worker = await startReplaceableWorker(stack);

    const order = await orderReaches(stack, tenant, created.id, 'completed');
    expect(order.events.slice(0, frozen.body.events.length)).toEqual(frozen.body.events);
    expect(order.events.map((event: { status: string }) => event.status.split('.')[2])).toEqual([
      'ordered',
      'requisition_created',
      'transit_customer',
      'out_for_delivery',
      'with_customer',
      'transit_lab',
      'delivered_to_lab',
      'completed',
    ]);
    const rows: Array<{ seq: number }> = await stack.db.query('SELECT seq FROM order_events WHERE order_id = $1 ORDER BY seq', [created.id]);
    expect(rows.map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const outbox = await outboxEvents(stack, tenant.teamId, created.id);
    expect(outbox).toHaveLength(8);
    expect(new Set(outbox.map((event) => event.status)).size).toBe(8);
    expect(await stack.temporal.workflow.getHandle(orderWorkflowId(created.id)).result()).toEqual({ status: 'completed.testkit.completed' });
  });

  it('writes nothing when the transition activity is retried after it committed', async () => {
    const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) })).body.order;
    await call(stack.apiUrl, 'POST', `/v3/order/${created.id}/cancel`, { key: tenant.apiKey });
    const lifecycle = stack.api.get(OrderTransitionsService);
    const input = { orderId: created.id, seq: 2, status: 'cancelled.testkit.cancelled', emit: true };
    const retried = await lifecycle.recordTransition(input);
    expect(retried.recorded).toBe(false);
    const order = (await call(stack.apiUrl, 'GET', `/v3/order/${created.id}`, { key: tenant.apiKey })).body;
    expect(retried.eventId).toBe(order.last_event.id);
    expect(order.events).toHaveLength(2);
    expect(await outboxEvents(stack, tenant.teamId, created.id)).toHaveLength(2);
  });

  it('starts the workflow of an order whose start was lost (reconciler)', async () => {
    const workflows = stack.api.get(OrderWorkflows);
    // The API process "dies" between the order's commit and its workflow start.
    const spy = jest.spyOn(workflows, 'startAfterCommit').mockResolvedValueOnce();
    const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) })).body.order;
    spy.mockRestore();
    const [before] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [created.id]);
    expect(before.workflow_started_at).toBeNull();

    await eventually(async () => {
      const [row] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [created.id]);
      return row.workflow_started_at ?? undefined;
    }, 'the reconciler to start the workflow');
    const handle = stack.temporal.workflow.getHandle(orderWorkflowId(created.id));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    // Starting again (a second reconciler, a retried request) is harmless.
    const order = await stack.api.get(OrdersRepository).findById(created.id);
    await workflows.start({ ...order!, workflowStartedAt: null });
    await stack.api.get(OrderReconciler).reconcile();
    const runs = await eventually(async () => {
      const found = [];
      for await (const run of stack.temporal.workflow.list({ query: `WorkflowId = '${orderWorkflowId(created.id)}'` })) found.push(run.runId);
      return found.length > 0 ? found : undefined;
    }, 'the run to be visible');
    expect(runs).toHaveLength(1);
    // The started run does the order's own first step (the sandbox may have moved it on already).
    await orderPassed(stack, tenant, created.id, 'requisition_created');
  });

  it('reconciles in one worker at a time: a pass finds the lock taken by another and does nothing', async () => {
    // Another worker's reconciler, mid-pass: it holds the reconciler's session lock.
    const other = stack.db.createQueryRunner();
    await other.connect();
    let held = false;
    try {
      await other.query('SELECT pg_advisory_lock($1)', [SESSION_LOCKS.orderReconciler]);
      held = true;
      const workflows = stack.api.get(OrderWorkflows);
      const spy = jest.spyOn(workflows, 'startAfterCommit').mockResolvedValueOnce();
      const created = (await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) })).body.order;
      spy.mockRestore();
      // Past its grace, the order is due to be started; this pass (and the worker's) must leave it.
      await new Promise((resolve) => setTimeout(resolve, 800));
      const pass = await stack.api.get(OrderReconciler).reconcile();
      expect(pass).toEqual({ started: 0, healed: 0, raised: 0, resolved: 0, skipped: true });
      const [row] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [created.id]);
      expect(row.workflow_started_at).toBeNull();

      // The other one is done: the next pass (the worker's) starts it.
      await other.query('SELECT pg_advisory_unlock($1)', [SESSION_LOCKS.orderReconciler]);
      held = false;
      await eventually(async () => {
        const [started] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [created.id]);
        return started.workflow_started_at ?? undefined;
      }, 'a reconciler pass to start the workflow once the lock is free');
      await orderPassed(stack, tenant, created.id, 'requisition_created');
    } finally {
      if (held) await other.query('SELECT pg_advisory_unlock($1)', [SESSION_LOCKS.orderReconciler]).catch(() => undefined);
      await other.release();
    }
  });
});
