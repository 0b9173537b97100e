import { randomUUID } from 'node:crypto';
import { SIGNATURE_HEADER, signPartnerPayload, signPartnerWebhook, TIMESTAMP_HEADER } from '../../src/adapters/partner-signature';
import { createUser, eventually, orderBody, PARTNER_SECRET, startOrderStack } from '../helpers/orders';
import { RawHttpClient } from '../helpers/raw-http';
import { call, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Clients as they are: `content-type: application/json` with an empty body on routes that take
 * none (the reference API accepts it), and partners whose JSON is not byte-for-byte what
 * JSON.stringify would write (their signature covers the bytes they sent).
 */
describe('sloppy but honest clients', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let userId: string;
  let orderId: string;
  let http: RawHttpClient;

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack());
    http = new RawHttpClient(stack.apiUrl);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
  });

  afterAll(async () => {
    http?.close();
    await stack?.close();
  });

  const json = (extra: Record<string, string> = {}) => ({ 'x-service-api-key': tenant.apiKey, 'content-type': 'application/json', ...extra });

  describe('an empty JSON body where none is taken', () => {
    it.each([
      ['with content-length: 0', ''],
      ['with no body at all', undefined],
    ])('GET answers 200 %s', async (_case, body) => {
      const user = await http.send({ method: 'GET', path: `/v2/user/${userId}`, headers: json(), body });
      expect(user.status).toBe(200);
      expect(user.json).toMatchObject({ user_id: userId });
      const order = await http.send({ method: 'GET', path: `/v3/order/${orderId}`, headers: json(), body });
      expect(order.status).toBe(200);
      expect(order.json).toMatchObject({ id: orderId });
    });

    it('a bodiless POST (cancel) answers 200 and acts', async () => {
      const cancelled = await http.send({ method: 'POST', path: `/v3/order/${orderId}/cancel`, headers: json(), body: '' });
      expect(cancelled.status).toBe(200);
      expect(JSON.stringify(cancelled.json)).toContain('cancelled');
    });

    it('DELETE answers 200 and acts', async () => {
      const doomed = await createUser(stack, tenant);
      const deleted = await http.send({ method: 'DELETE', path: `/v2/user/${doomed}`, headers: json(), body: '' });
      expect(deleted.status).toBe(200);
      expect(deleted.json).toMatchObject({ success: true });
    });

    it('a route that needs a body still refuses an empty one: 422 {detail}, nothing written', async () => {
      const [{ count: before }] = await stack.db.query(`SELECT count(*)::int AS count FROM users WHERE team_id = $1`, [tenant.teamId]);
      const refused = await http.send({ method: 'POST', path: '/v2/user', headers: json(), body: '' });
      expect(refused.status).toBe(422);
      // The reference API's validation error for a missing body.
      expect(refused.json).toEqual({ detail: [expect.objectContaining({ loc: ['body'], msg: 'Field required' })] });
      const [{ count: after }] = await stack.db.query(`SELECT count(*)::int AS count FROM users WHERE team_id = $1`, [tenant.teamId]);
      expect(after).toBe(before);
    });

    it('malformed JSON is still a 400 {detail}', async () => {
      const broken = await http.send({ method: 'POST', path: `/v3/order/${orderId}/cancel`, headers: json(), body: '{"a":' });
      expect(broken.status).toBe(400);
      expect(broken.json).toEqual({ detail: expect.stringMatching(/JSON/) });
    });
  });

  describe('partner webhooks are verified over the bytes sent', () => {
    // Keys in another order than JSON.stringify of the parse would give, with spaces and a newline.
    const bytesFor = (id: string) => `{ "status" : "partial_results",\n  "order_id": "${id}" }`;
    const signedHeaders = (signature: string, timestamp: number) => ({
      'content-type': 'application/json',
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signature,
    });

    const sendLabEvent = (body: string) => {
      const timestamp = Math.floor(Date.now() / 1000);
      return http.send({
        method: 'POST',
        path: '/v3/webhooks/lab/sandbox',
        headers: signedHeaders(signPartnerPayload(PARTNER_SECRET, timestamp, body), timestamp),
        body,
      });
    };

    it('a signature over the exact bytes is accepted', async () => {
      const live = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
      const response = await sendLabEvent(bytesFor(live.body.order.id));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ status: 'accepted', order_id: live.body.order.id });
    });

    it('an event for an order whose workflow has closed is acknowledged as ignored, not a 5xx', async () => {
      const closed = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
      const closedId: string = closed.body.order.id;
      expect((await call(stack.apiUrl, 'POST', `/v3/order/${closedId}/cancel`, { key: tenant.apiKey })).status).toBe(200);
      // The cancelled order's workflow ends a moment after the answer.
      const response = await eventually(async () => {
        const answer = await sendLabEvent(bytesFor(closedId));
        expect(answer.status).toBe(200);
        return (answer.json as { status: string }).status === 'ignored' ? answer : undefined;
      }, 'the cancelled order to ignore lab events');
      expect(response.json).toEqual({ status: 'ignored', order_id: closedId });
    });

    it('a signature over the re-serialised parse is refused: 401 {detail}', async () => {
      const body = bytesFor(orderId);
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await http.send({
        method: 'POST',
        path: '/v3/webhooks/lab/sandbox',
        headers: signedHeaders(signPartnerWebhook(PARTNER_SECRET, timestamp, JSON.parse(body)), timestamp),
        body,
      });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ detail: 'Invalid webhook signature.' });
    });

    it('a body changed after signing is refused, even by one space', async () => {
      const body = bytesFor(randomUUID());
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = signPartnerPayload(PARTNER_SECRET, timestamp, body);
      for (const tampered of [body.replace(' :', ':'), body.replace('partial_results', 'completed')]) {
        const response = await http.send({ method: 'POST', path: '/v3/webhooks/lab/sandbox', headers: signedHeaders(signature, timestamp), body: tampered });
        expect(response.status).toBe(401);
      }
    });

    it('the appointment providers’ callbacks verify the same way', async () => {
      const body = `{"appointment_id" : "${randomUUID()}"}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const good = await http.send({
        method: 'POST',
        path: '/v3/webhooks/appointments/sandbox',
        headers: signedHeaders(signPartnerPayload(PARTNER_SECRET, timestamp, body), timestamp),
        body,
      });
      // Past the guard: now the body's content decides (it is not a complete callback).
      expect(good.status).toBe(422);
      const bad = await http.send({
        method: 'POST',
        path: '/v3/webhooks/appointments/sandbox',
        headers: signedHeaders(signPartnerPayload(PARTNER_SECRET, timestamp, `${body} `), timestamp),
        body,
      });
      expect(bad.status).toBe(401);
    });
  });
});
