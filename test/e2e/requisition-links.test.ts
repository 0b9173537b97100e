import { randomUUID } from 'node:crypto';
import { requisitionLinkSecret, signRequisitionLink } from '../../src/requisitions/requisition-links';
import { call, type Tenant, type TestStack } from '../helpers/stack';
import { orderBody, orderPassed, startOrderStack } from '../helpers/orders';
import { fetchBytes, pdfText } from '../helpers/pdf';

/** `requisition_form_url`: a signed, expiring link to the requisition PDF that needs no API key. */
describe('requisition_form_url (signed link)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let orderId: string;
  let link: URL;

  /** The link as issued, aimed at this stack's API (PUBLIC_API_URL is not the test port). */
  const local = (url: URL) => `${stack.apiUrl}${url.pathname}${url.search}`;
  const withParams = (params: Record<string, string>) => {
    const url = new URL(link);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return local(url);
  };

  beforeAll(async () => {
    let userId: string;
    ({ stack, tenant, userId } = await startOrderStack());
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
    expect(created.body.order.requisition_form_url).toBeNull();
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=requisition_created`, { key: tenant.apiKey, body: {} });
    const order = await orderPassed(stack, tenant, orderId, 'requisition_created');
    link = new URL(order.requisition_form_url);
  });
  afterAll(() => stack.close());

  it('serves the PDF without an API key', async () => {
    expect(link.pathname).toBe(`/v3/order/${orderId}/requisition/pdf/signed`);
    expect(link.searchParams.get('expires')).toMatch(/^\d+$/);
    expect(link.searchParams.get('signature')).toBeTruthy();
    const pdf = await fetchBytes(local(link));
    expect(pdf.status).toBe(200);
    expect(pdf.contentType).toMatch(/application\/pdf/);
    expect(pdfText(pdf.body)).toContain('Okonkwo');
    // The team-key route still serves it too.
    const keyed = await fetchBytes(`${stack.apiUrl}/v3/order/${orderId}/requisition/pdf`, { 'x-service-api-key': tenant.apiKey });
    expect(keyed.status).toBe(200);
    const unkeyed = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/requisition/pdf`);
    expect(unkeyed.status).toBe(401);
  });

  it('refuses tampered links with 403 {detail}', async () => {
    const signature = link.searchParams.get('signature')!;
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const cases = [
      withParams({ signature: flipped }),
      withParams({ expires: String(Number(link.searchParams.get('expires')) + 3600) }),
      withParams({ expires: 'soon' }),
      // Another order's path with this order's signature.
      local(new URL(link.href.replace(orderId, randomUUID()))),
    ];
    for (const url of cases) {
      const refused = await call(url, 'GET', '');
      expect(refused.status).toBe(403);
      expect(typeof refused.body.detail).toBe('string');
    }
    const missing = await call(stack.apiUrl, 'GET', `/v3/order/${orderId}/requisition/pdf/signed`);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toBeTruthy();
  });

  it('refuses an expired link with 410 {detail}', async () => {
    const expires = Math.floor(Date.now() / 1000) - 60;
    const signature = signRequisitionLink(requisitionLinkSecret(stack.config.phiEncryptionKey), orderId, expires);
    const expired = await call(withParams({ expires: String(expires), signature }), 'GET', '');
    expect(expired.status).toBe(410);
    expect(expired.body.detail).toMatch(/expired/);
  });

  it('a link signed with another key is refused', async () => {
    const expires = Math.floor(Date.now() / 1000) + 600;
    const signature = signRequisitionLink(requisitionLinkSecret(Buffer.alloc(32, 7)), orderId, expires);
    const refused = await call(withParams({ expires: String(expires), signature }), 'GET', '');
    expect(refused.status).toBe(403);
  });
});
