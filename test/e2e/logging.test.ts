import { randomUUID } from 'node:crypto';
import { installTemporalRuntime } from '../../src/temporal/runtime';
import { ORDER_TEST_ENV, createUser, orderBody, orderReaches, patientDetails } from '../helpers/orders';
import { capturedLogs } from '../helpers/captured-logs';
import { fetchBytes } from '../helpers/pdf';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * The logs of a whole order flow, at the most verbose level, captured from every part that logs
 * (API and management API request lines, Nest, the Temporal runtime with workflow and activity
 * lines, the relay and the webhook delivery worker): they name the request ids that caused what
 * they describe, and never the patient, the keys, the requisition link's signature or the
 * webhook secret.
 */
const { logger, lines } = capturedLogs();
const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** A patient nobody else is called. */
const PLANTED = { first_name: 'Zebulonia', last_name: 'Quarterfieldsworth' };

let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // The runtime of this test process: Temporal's worker, workflow and activity logs go to `logger`.
  await installTemporalRuntime({ logger });
  stack = await startStack({
    logger,
    management: true,
    events: true,
    env: { ...ORDER_TEST_ENV, LOG_LEVEL: 'trace', LOG_REQUESTS: 'true', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

test('an order flow logs its request ids everywhere and no patient, key, link signature or webhook secret', async () => {
  const api = teamManagementApi(stack, tenant, 'sandbox');
  const endpoint = await api('POST', '/webhook', { url: receiver.url('/hook') });
  expect(endpoint.status).toBe(200);
  const webhookSecret = (await api('GET', `/webhook/${endpoint.body.id}/secret`)).body.key as string;
  expect(webhookSecret).toBeTruthy();
  receiver.secret('/hook', webhookSecret);

  const userId = await createUser(stack, tenant);
  const createRequestId = `create-${randomUUID()}`;
  const created = await call(stack.apiUrl, 'POST', '/v3/order', {
    key: tenant.apiKey,
    headers: { 'x-request-id': createRequestId },
    body: orderBody(userId, { patient_details: { ...patientDetails(), ...PLANTED } }),
  });
  expect(created.status).toBe(200);
  expect(created.headers.get('x-request-id')).toBe(createRequestId);
  const orderId = created.body.order.id as string;

  // A later request moves the order on (the sandbox courier reports, as /test asks it): what
  // follows from it carries its id, not the first one.
  await orderReaches(stack, tenant, orderId, 'transit_customer');
  const simulateRequestId = `simulate-${randomUUID()}`;
  const simulated = await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=out_for_delivery`, {
    key: tenant.apiKey,
    headers: { 'x-request-id': simulateRequestId },
    body: {},
  });
  expect(simulated.status).toBeLessThan(300);
  const order = await orderReaches(stack, tenant, orderId, 'out_for_delivery');
  const link = new URL(order.requisition_form_url);
  const signature = link.searchParams.get('signature')!;
  expect(signature.length).toBeGreaterThan(10);
  const pdf = await fetchBytes(`${stack.apiUrl}${link.pathname}${link.search}`);
  expect(pdf.status).toBe(200);

  // An unusable incoming id is replaced, and the replacement is what the response names.
  const replaced = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey, headers: { 'x-request-id': 'no spaces allowed' } });
  expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

  const statusOf = (request: { json: any }) => request.json?.data?.last_event?.status ?? request.json?.data?.status;
  await waitFor(
    () => {
      const events = receiver.accepted('/hook').filter((request) => request.json?.data?.id === orderId);
      return (
        events.some((request) => request.json.event_type === 'labtest.order.created') &&
        events.some((request) => String(statusOf(request)).endsWith('requisition_created'))
      );
    },
    { timeoutMs: 30_000, describe: () => receiver.forPath('/hook').map((request) => [request.json?.event_type, statusOf(request)]) },
  );
  const deliveryLogged = (requestId: string) =>
    parsed().some((line) => line.requestId === requestId && line.deliveryId !== undefined && line.outcome === 'succeeded');
  // Temporal's runtime holds forwarded log lines about 100 ms to sort them: they may come last.
  const activityLogged = (requestId: string) =>
    parsed().some((line) => line.requestId === requestId && line.component === 'temporal' && line.activityType !== undefined);
  await waitFor(() => [createRequestId, simulateRequestId].every((requestId) => deliveryLogged(requestId) && activityLogged(requestId)), { timeoutMs: 10_000 });

  const logs = parsed();
  expect(logs.length).toBeGreaterThan(20);
  const withId = (requestId: string) => logs.filter((line) => line.requestId === requestId);
  // The API's request lines, with the path only (the signature redacted).
  expect(withId(createRequestId)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ msg: 'request completed', req: expect.objectContaining({ url: '/v3/order' }), res: { statusCode: 200 } }),
    ]),
  );
  expect(logs.some((line) => (line.req as { url?: string } | undefined)?.url?.includes('signature=[redacted]'))).toBe(true);
  // Temporal's activity and workflow lines caused by each request.
  for (const requestId of [createRequestId, simulateRequestId]) {
    expect(withId(requestId).some((line) => line.component === 'temporal' && line.activityType !== undefined)).toBe(true);
  }
  expect(withId(createRequestId).some((line) => line.component === 'temporal' && line.workflowType === 'orderWorkflowV2')).toBe(true);
  // The webhook deliveries of the events each request caused.
  expect(withId(createRequestId).some((line) => line.eventType === 'labtest.order.created' && line.target === 'webhook')).toBe(true);

  const text = lines.join('\n');
  for (const secret of [
    PLANTED.first_name,
    PLANTED.last_name,
    patientDetails().email,
    patientDetails().phone_number,
    tenant.apiKey,
    tenant.managementKey,
    signature,
    webhookSecret,
    webhookSecret.replace(/^whsec_/, ''),
  ]) {
    expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
  }
});
