import { Logger } from '@nestjs/common';
import { OrderWorkflows } from '../../src/orders/order-workflows';
import { OrdersRepository } from '../../src/orders/orders.repository';
import { orderWorkflowId } from '../../workflows/contract';
import { createUser, eventually, ORDER_TEST_ENV, orderBody, orderReaches } from '../helpers/orders';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * No order is stranded: the worker's reconciler finds orders that have not ended whose workflow
 * closed, vanished or stalls, starts a new run where that is safe (at most RECONCILER_MAX_HEALS
 * per order, here 1) and raises the rest: an error log line, the management API's
 * stranded_orders listing and the labflow_stranded_orders gauge on /metrics.
 */
describe('order reconciler: stranded orders are found and healed', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  beforeAll(async () => {
    stack = await startStack({
      management: true,
      env: {
        ...ORDER_TEST_ENV,
        RECONCILER_INTERVAL: '300ms',
        RECONCILER_GRACE: '500ms',
        RECONCILER_STALL_HORIZON: '1s',
        RECONCILER_MAX_HEALS: '1',
        // The test database holds every test file's orders: one pass examines them all.
        RECONCILER_BATCH: '2000',
      },
    });
    tenant = await createTenant(stack.db);
    userId = await createUser(stack, tenant);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const createOrder = async (): Promise<string> => {
    const response = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(response.status).toBe(200);
    return response.body.order.id as string;
  };

  /** An order whose row says its workflow started, with no workflow in Temporal (yet). */
  const createOrderWithoutWorkflow = async (): Promise<string> => {
    // The API process "dies" between the order's commit and its workflow start.
    const spy = jest.spyOn(stack.api.get(OrderWorkflows), 'startAfterCommit').mockResolvedValueOnce();
    try {
      return await createOrder();
    } finally {
      spy.mockRestore();
    }
  };

  const listStranded = async (options: { includeResolved?: boolean; as?: Tenant; org?: string } = {}) => {
    const as = options.as ?? tenant;
    const query = options.includeResolved ? '?include_resolved=true' : '';
    return call(stack.managementUrl, 'GET', `/v1/org/${options.org ?? as.orgId}/team/${tenant.teamId}/stranded_orders${query}`, {
      headers: { 'X-Management-Key': as.managementKey },
    });
  };

  const strandedRow = async (orderId: string, includeResolved = true) => {
    const response = await listStranded({ includeResolved });
    expect(response.status).toBe(200);
    return (response.body.stranded_orders as Array<Record<string, any>>).find((row) => row.order_id === orderId);
  };

  const handleOf = (orderId: string) => stack.temporal.workflow.getHandle(orderWorkflowId(orderId));

  /** Waits for a run of the order's workflow other than `runId` to be running. */
  const newRunAfter = (orderId: string, runId: string) =>
    eventually(
      async () => {
        const description = await handleOf(orderId).describe();
        return description.runId !== runId && description.status.name === 'RUNNING' ? description : undefined;
      },
      `a new run of order ${orderId}'s workflow`,
      60_000,
    );

  it('starts a new run for an order whose workflow was terminated, and the order goes on to completion', async () => {
    const orderId = await createOrder();
    const handle = handleOf(orderId);
    const first = await handle.describe();
    await handle.terminate('test: a bug killed the workflow');

    const healed = await newRunAfter(orderId, first.runId);
    expect(healed.workflowId).toBe(orderWorkflowId(orderId));
    const row = await eventually(async () => {
      const found = await strandedRow(orderId);
      return found?.healed_at ? found : undefined;
    }, 'the heal to be recorded');
    expect(row).toMatchObject({ team_id: tenant.teamId, environment: 'sandbox', kind: 'closed', heal_attempts: 1 });
    expect(row.detail).toContain('TERMINATED');

    // The new run carries on from where the order stood: the sandbox simulation completes it.
    expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} })).status).toBe(200);
    const order = await orderReaches(stack, tenant, orderId, 'completed');
    const seqs: Array<{ seq: number }> = await stack.db.query('SELECT seq FROM order_events WHERE order_id = $1 ORDER BY seq', [orderId]);
    expect(seqs.map((event) => event.seq)).toEqual(order.events.map((_: unknown, index: number) => index + 1));

    // Fine again: the row is resolved and leaves the default listing; the record stays.
    await eventually(async () => ((await strandedRow(orderId, false)) ? undefined : true), 'the row to leave the unresolved listing');
    expect(await strandedRow(orderId)).toMatchObject({ state: 'resolved', heal_attempts: 1, kind: 'closed' });
  });

  it('starts the workflow of an order whose start was recorded but which Temporal does not have', async () => {
    const orderId = await createOrderWithoutWorkflow();
    await stack.db.query('UPDATE orders SET workflow_started_at = clock_timestamp() WHERE id = $1', [orderId]);

    const running = await eventually(
      async () => {
        const description = await handleOf(orderId)
          .describe()
          .catch(() => undefined);
        return description?.status.name === 'RUNNING' ? description : undefined;
      },
      'the reconciler to start the missing workflow',
      60_000,
    );
    expect(running.workflowId).toBe(orderWorkflowId(orderId));
    const row = await eventually(async () => {
      const found = await strandedRow(orderId);
      return found?.healed_at ? found : undefined;
    }, 'the heal to be recorded');
    expect(row).toMatchObject({ kind: 'missing', heal_attempts: 1 });
  });

  it('records the start of an order whose workflow started but whose mark the API could not write (logged)', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    // The API's mark fails (the worker's reconciler has a repository of its own).
    const marks = jest.spyOn(stack.api.get(OrdersRepository), 'markWorkflowsStarted').mockRejectedValue(new Error('test: connection lost'));
    let orderId = '';
    try {
      orderId = await createOrder();
      await eventually(
        () => (warnings.mock.calls.some(([line]) => String(line).includes(orderId) && String(line).includes('not recorded')) ? true : undefined),
        'the failed mark to be logged',
      );
    } finally {
      marks.mockRestore();
      warnings.mockRestore();
    }
    const { runId } = await handleOf(orderId).describe();
    const [{ workflow_started_at: markedByApi }] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [orderId]);
    expect(markedByApi).toBeNull();

    // After RECONCILER_GRACE the reconciler starts it again, which finds the running workflow, and records the start.
    await eventually(
      async () => {
        const [row] = await stack.db.query('SELECT workflow_started_at FROM orders WHERE id = $1', [orderId]);
        return row.workflow_started_at === null ? undefined : true;
      },
      'the reconciler to record the start',
      60_000,
    );
    const description = await handleOf(orderId).describe();
    expect(description.runId).toBe(runId);
    expect(description.status.name).toBe('RUNNING');
  });

  it('raises an order past the heal limit: error log, management listing (its org only), gauge; resolved once it ends', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const orderId = await createOrder();
      const handle = handleOf(orderId);
      const first = await handle.describe();
      await handle.terminate('test: a bug killed the workflow');
      const second = await newRunAfter(orderId, first.runId);
      // The new run dies too: RECONCILER_MAX_HEALS=1 is reached.
      await handle.terminate('test: the bug kills every run');

      const raised = await eventually(
        async () => {
          const found = await strandedRow(orderId, false);
          return found?.state === 'raised' && String(found.detail).includes('heal limit') ? found : undefined;
        },
        'the order to be raised',
        60_000,
      );
      expect(raised).toMatchObject({ kind: 'closed', heal_attempts: 1, resolved_at: null });
      expect((await handle.describe()).runId).toBe(second.runId);

      const logged = errors.mock.calls.map((args) => String(args[0]));
      expect(logged.some((line) => line.includes(orderId) && line.includes(tenant.teamId) && line.includes('closed') && line.includes('heal limit'))).toBe(
        true,
      );

      const metrics = await call(stack.managementUrl, 'GET', '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      const gauge = /^labflow_stranded_orders\{kind="closed",state="raised"\} (\d+)$/m.exec(String(metrics.body));
      expect(Number(gauge?.[1])).toBeGreaterThanOrEqual(1);

      // Another org sees nothing of it: its key gets 404 for this org, and this team is not in its org.
      const other = await createTenant(stack.db);
      expect((await listStranded({ as: other, org: tenant.orgId })).status).toBe(404);
      expect((await listStranded({ as: other })).status).toBe(404);

      // An operator ends the order: the next pass resolves the row.
      await stack.db.query(`UPDATE orders SET status = 'cancelled', low_level_status = 'cancelled' WHERE id = $1`, [orderId]);
      await eventually(async () => ((await strandedRow(orderId, false)) ? undefined : true), 'the row to leave the unresolved listing');
      expect(await strandedRow(orderId)).toMatchObject({ state: 'resolved' });
    } finally {
      errors.mockRestore();
    }
  });

  it('raises a running workflow whose workflow task keeps failing (a bug), without restarting it', async () => {
    const orderId = await createOrderWithoutWorkflow();
    // A workflow that cannot run its code: every workflow task fails, attempt after attempt.
    const broken = await stack.temporal.workflow.start('orderWorkflow', {
      workflowId: orderWorkflowId(orderId),
      taskQueue: stack.taskQueue,
      args: [{ orderId, teamId: tenant.teamId, environment: 'sandbox', flow: 'no_such_flow', seq: 1, low: 'ordered', activateBy: null, timers: {} }],
    });
    await stack.db.query('UPDATE orders SET workflow_started_at = clock_timestamp() WHERE id = $1', [orderId]);
    try {
      const raised = await eventually(
        async () => {
          const found = await strandedRow(orderId, false);
          return found?.kind === 'stalled' && found.state === 'raised' ? found : undefined;
        },
        'the stalled order to be raised',
        90_000,
      );
      expect(raised.detail).toContain('workflow task failing');
      expect(raised.heal_attempts).toBe(0);
      const description = await handleOf(orderId).describe();
      expect(description.runId).toBe(broken.firstExecutionRunId);
      expect(description.status.name).toBe('RUNNING');
    } finally {
      await stack.db.query(`UPDATE orders SET status = 'cancelled', low_level_status = 'cancelled' WHERE id = $1`, [orderId]);
      await broken.terminate('test over').catch(() => undefined);
    }
  }, 120_000);
});
