import { call, teamManagementApi, type Tenant, type TestStack } from '../helpers/stack';
import { orderBody, orderReaches, startOrderStack } from '../helpers/orders';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Tracing end to end: with OTEL_EXPORTER_OTLP_ENDPOINT set, an order created by POST /v3/order
 * is one trace from the HTTP request through the workflow start, the workflow run and its
 * activities to the delivery of its webhooks — that last hop crossing the outbox row, the relay
 * and a BullMQ job.
 */
let otlp: OtlpReceiver;
let webhooks: WebhookReceiver;
let stack: TestStack;
let tenant: Tenant;
let userId: string;

beforeAll(async () => {
  otlp = await OtlpReceiver.start();
  webhooks = await WebhookReceiver.start();
  ({ stack, tenant, userId } = await startOrderStack({
    management: true,
    events: true,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  }));
});
afterAll(async () => {
  await stack?.close();
  await webhooks?.close();
  await otlp?.close();
});

const SERVER = 2;

test('one trace covers POST /v3/order, the workflow start and run, its activities and the webhook deliveries', async () => {
  expect(stack.tracing).not.toBeNull();
  const api = teamManagementApi(stack, tenant, 'sandbox');
  const endpoint = await api('POST', '/webhook', { url: webhooks.url('/orders') });
  expect(endpoint.status).toBe(200);
  webhooks.secret('/orders', (await api('GET', `/webhook/${endpoint.body.id}/secret`)).body.key as string);

  const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
  expect(created.status).toBe(200);
  const orderId = created.body.order.id as string;
  const [first] = await waitFor(() => webhooks.accepted('/orders').length >= 1 && webhooks.accepted('/orders'));
  expect(first.verified).toBe(true);
  expect(first.json).toMatchObject({ event_type: 'labtest.order.created', data: { id: orderId } });

  // The workflow's own span ends with the workflow: let the sandbox partners finish the order
  // (their reports are traces of their own, under the /test request).
  expect((await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} })).status).toBe(200);
  await orderReaches(stack, tenant, orderId, 'completed');

  let request: ReceivedSpan | undefined;
  let trace: ReceivedSpan[] = [];
  const named = (prefix: string) => trace.filter((span) => span.name.startsWith(prefix));
  await waitFor(
    async () => {
      await stack.tracing!.flush();
      request = otlp.spans.find((span) => span.kind === SERVER && span.name === 'POST /v3/order');
      trace = request ? otlp.inTrace(request.traceId) : [];
      return ['StartWorkflow:', 'RunWorkflow:', 'StartActivity:', 'RunActivity:', 'event delivery'].every((prefix) => named(prefix).length > 0);
    },
    { timeoutMs: 30_000, intervalMs: 500, describe: () => trace.map((span) => span.name) },
  );

  expect(request).toMatchObject({ attributes: { 'http.route': '/v3/order', 'http.request.method': 'POST', 'http.response.status_code': 200 } });
  // Each hop is the child of the one before it, not merely in the same trace.
  const byId = new Map(trace.map((span) => [span.spanId, span]));
  const parentOf = (span: ReceivedSpan) => (span.parentSpanId ? byId.get(span.parentSpanId)?.name : undefined);
  const [start] = named('StartWorkflow:orderWorkflowV2');
  expect(parentOf(start)).toBe('POST /v3/order');
  expect(named('RunWorkflow:').map(parentOf)).toEqual(['StartWorkflow:orderWorkflowV2']);
  expect(new Set(named('StartActivity:').map(parentOf))).toEqual(new Set(['RunWorkflow:orderWorkflowV2']));
  for (const run of named('RunActivity:')) expect(parentOf(run)).toBe(run.name.replace('RunActivity:', 'StartActivity:'));

  // The first webhook (labtest.order.created, written by the request) is delivered in a span
  // under the request; the later ones (written by activities) under the activity that wrote them.
  const deliveries = named('event delivery');
  expect(deliveries.map(parentOf)).toContain('POST /v3/order');
  expect(deliveries.filter((span) => parentOf(span)?.startsWith('RunActivity:')).length).toBeGreaterThan(0);

  // Routes, not URLs; nothing of the patient reaches the trace.
  expect(JSON.stringify(trace)).not.toContain('Okonkwo');
});
