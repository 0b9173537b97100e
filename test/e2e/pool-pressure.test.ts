import { call, type Tenant, type TestStack } from '../helpers/stack';
import { createUser, orderBody, orderReaches, startOrderStack } from '../helpers/orders';

/**
 * Many order transitions at once on a small connection pool (DATABASE_POOL_MAX=3, shared here by
 * the API and the worker): each transition reads what its event needs inside its own
 * transaction, never on a second connection of the pool, so transactions cannot all hold one
 * connection while waiting for another. Before that fix, a burst of transitions larger than
 * the pool hung every one of them for good (the fault run's replicas saw no order complete).
 */
let stack: TestStack;
let tenant: Tenant;
const ORDERS = 12;

beforeAll(async () => {
  ({ stack, tenant } = await startOrderStack({ env: { DATABASE_POOL_MAX: '3' } }));
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

test(`${ORDERS} test-kit orders simulated at once all complete`, async () => {
  const orderIds = await Promise.all(
    Array.from({ length: ORDERS }, async () => {
      const userId = await createUser(stack, tenant);
      const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
      expect(created.status).toBe(200);
      return created.body.order.id as string;
    }),
  );
  const simulations = await Promise.all(orderIds.map((id) => call(stack.apiUrl, 'POST', `/v3/order/${id}/test`, { key: tenant.apiKey })));
  expect(simulations.map((reply) => reply.status)).toEqual(orderIds.map(() => 200));
  const completed = await Promise.all(orderIds.map((id) => orderReaches(stack, tenant, id, 'completed', 180_000)));
  expect(completed.map((order) => order.status)).toEqual(orderIds.map(() => 'completed'));
}, 300_000);
