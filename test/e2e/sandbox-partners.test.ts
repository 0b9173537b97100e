import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';
import { createUser, eventually, ORDER_TEST_ENV, orderBody, orderPassed, orderReaches, outboxEvents } from '../helpers/orders';

/**
 * Production-environment kit orders with the sandbox partners: the sandbox courier reports its
 * tracking through labflow's signed courier webhook, the sandbox lab reports completion through
 * the lab webhook, all as durable callbacks (BullMQ delayed jobs) and without any manual call.
 */
const SANDBOX_PARTNER_ENV = { ...ORDER_TEST_ENV, SANDBOX_COURIER_STEP_DELAY: '300ms', SANDBOX_LAB_RESULT_DELAY: '300ms' };

const KIT_PATH = ['ordered', 'requisition_created', 'transit_customer', 'out_for_delivery', 'with_customer', 'transit_lab', 'delivered_to_lab', 'completed'];
const lows = (order: { events: Array<{ status: string }> }) => order.events.map((event) => event.status.split('.')[2]);

describe('sandbox partners report back (production-environment orders)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;

  beforeAll(async () => {
    stack = await startStack({ env: SANDBOX_PARTNER_ENV, sandboxCallbacks: true });
    tenant = await createTenant(stack.db, { environment: 'production' });
    userId = await createUser(stack, tenant);
  });
  afterAll(() => stack.close());

  it('walks a kit order from POST /v3/order to completed with every courier step, no manual call', async () => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;

    const done = await orderReaches(stack, tenant, orderId, 'completed');
    expect(done.status).toBe('completed');
    expect(done.last_event.status).toBe('completed.testkit.completed');
    expect(lows(done)).toEqual(KIT_PATH);
    expect(done.details.data.shipment.outbound_courier).toBe('sandbox');

    const results = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(results.status).toBe(200);
    expect(results.body.results.length).toBeGreaterThan(0);
    expect(results.body.metadata).toMatchObject({ status: 'final' });

    // Every step was also a labtest.order.updated webhook event.
    const events = await eventually(async () => {
      const found = await outboxEvents(stack, tenant.teamId, orderId);
      return found.some((event) => event.status === 'completed.testkit.completed') ? found : undefined;
    }, 'the completed event in the outbox');
    const updated = events.filter((event) => event.event_type === 'labtest.order.updated').map((event) => event.status.split('.')[2]);
    expect(updated).toEqual(KIT_PATH.slice(1));
  });

  it('keeps its callbacks across a restart of the callback sender', async () => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;

    // Passed, not reached: with_customer's callback follows 300 ms later, so a slow poll can miss it.
    await orderPassed(stack, tenant, orderId, 'out_for_delivery');
    // The sender dies (as a crash would) with the rest of the callbacks still waiting in Redis...
    await stack.sandboxCallbacks!.stop(true);
    // ...and a new one, started later, sends them.
    stack.startSandboxCallbacks();

    const done = await orderReaches(stack, tenant, orderId, 'completed');
    expect(done.last_event.status).toBe('completed.testkit.completed');
    expect(lows(done)).toContain('delivered_to_lab');
    const results = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/result`, { key: tenant.apiKey });
    expect(results.status).toBe(200);
  });

  it('gives a callback up at once when labflow refuses it with a 4xx (no retry)', async () => {
    const { SANDBOX_CALLBACKS } = await import('../../src/adapters/sandbox-callbacks/sandbox-callbacks');
    const callbacks = stack.api.get<import('../../src/adapters/sandbox-callbacks/sandbox-callbacks').SandboxCallbacks>(SANDBOX_CALLBACKS);
    const id = `refused-${Date.now()}`;
    const callback = { id, path: '/v3/webhooks/courier/sandbox', body: { tracking_number: 'LFO-UNKNOWN', status: 'with_customer' }, delayMs: 0 };
    await callbacks.schedule([callback]);
    // Scheduling the same id again schedules nothing new.
    await callbacks.schedule([callback]);
    const { Queue } = await import('bullmq');
    const queue = new Queue(stack.config.sandboxCallbacks.queueName, { connection: { url: stack.config.redisUrl } });
    try {
      // Read the job only once its state is failed: a job fetched earlier (while active) is a
      // stale copy whose attemptsMade and failedReason predate the failure.
      const failed = await eventually(async () => {
        if ((await queue.getJobState(id)) !== 'failed') return undefined;
        return queue.getJob(id);
      }, 'the refused callback to fail');
      expect(failed.attemptsMade).toBe(1);
      expect(failed.failedReason).toMatch(/404/);
      expect((await queue.getJobs(['delayed', 'waiting', 'active', 'completed', 'failed'])).filter((job) => job?.id === id)).toHaveLength(1);
    } finally {
      await queue.close();
    }
  });

  it('leaves sandbox-environment orders to POST /v3/order/{id}/test', async () => {
    const sandboxTenant = await createTenant(stack.db);
    const sandboxUser = await createUser(stack, sandboxTenant);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: sandboxTenant.apiKey, body: orderBody(sandboxUser) });
    expect(created.status).toBe(200);
    const orderId: string = created.body.order.id;
    // Simulated up to the shipment only: nothing but the simulation moves a sandbox order.
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=transit_customer`, { key: sandboxTenant.apiKey, body: {} });
    const shipped = await orderReaches(stack, sandboxTenant, orderId, 'transit_customer');
    const jobs = await callbacksOf(stack, orderId);
    expect(jobs).toEqual([]);
    expect(lows(shipped)).toEqual(['ordered', 'requisition_created', 'transit_customer']);
  });
});

/** The sandbox callbacks scheduled for an order on the stack's queue (any state). */
async function callbacksOf(stack: TestStack, orderId: string): Promise<string[]> {
  const { Queue } = await import('bullmq');
  const queue = new Queue(stack.config.sandboxCallbacks.queueName, { connection: { url: stack.config.redisUrl } });
  try {
    const jobs = await queue.getJobs(['delayed', 'waiting', 'active', 'completed', 'failed']);
    return jobs.filter((job) => job?.id?.includes(orderId)).map((job) => job.id as string);
  } finally {
    await queue.close();
  }
}
