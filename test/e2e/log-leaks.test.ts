import { VitalClient } from '@tryvital/vital-node';
import { randomInt, randomUUID } from 'node:crypto';
import { installTemporalRuntime } from '../../src/temporal/runtime';
import { ORDER_TEST_ENV, orderBody, orderPassed } from '../helpers/orders';
import { OtlpReceiver } from '../helpers/otlp-receiver';
import { capturedLogs } from '../helpers/captured-logs';
import { fetchBytes } from '../helpers/pdf';
import { uniquePatient, uniqueSuffix } from '../helpers/unique-patient';
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * The logs and traces of a whole run through every route family that carries a credential or a
 * person in its URL — users resolved by client_user_id, orders listed by patient name and search
 * input, requisition links, portal launch links and communications links with their codes, Link
 * tokens and an OAuth callback with its state and code — and through errors on those routes:
 * every line every part wrote (API and management request lines, error lines, Nest, Temporal's
 * worker, workflow and activity lines, the relay and webhook delivery) and every span exported
 * hold none of the secrets and none of the patient's values the run sent or received.
 */
const { logger, lines } = capturedLogs();

const suffix = uniqueSuffix();
const PATIENT = uniquePatient('Zebulonia', 'Quarterfield', '415', suffix);
const ADDRESS = { first_line: `${randomInt(100, 999)} Quillfeather Lane`, city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
/** The team knows this user by a handle made of their name (not an e-mail: the API refuses those). */
const CLIENT_USER_ID = `zebulonia.quarterfield.${suffix}`;

let otlp: OtlpReceiver;
let smtp: SmtpReceiver;
let receiver: WebhookReceiver;
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;

beforeAll(async () => {
  await installTemporalRuntime({ logger });
  otlp = await OtlpReceiver.start();
  smtp = await startSmtpReceiver();
  receiver = await WebhookReceiver.start();
  stack = await startStack({
    logger,
    management: true,
    events: true,
    env: {
      ...ORDER_TEST_ENV,
      LOG_LEVEL: 'trace',
      LOG_REQUESTS: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      SMTP_URL: smtp.url,
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
    },
  });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  await subscribeWebhooks(stack, tenant, 'sandbox', receiver, '/hook', ['labtest.order.created', 'provider.connection.created']);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await smtp?.close();
  await otlp?.close();
});

/** A GET or form POST the way a browser makes it: no key, redirects not followed. */
async function browser(method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text(), cookies: response.headers.getSetCookie() };
}

const pathAndQuery = (url: string) => {
  const parsed = new URL(url, stack.apiUrl);
  return `${parsed.pathname}${parsed.search}`;
};

test('a run through every sensitive route family leaves no credential and no patient value in the logs or the traces', async () => {
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string | null | undefined) => {
    expect({ what, value: typeof value === 'string' && value.length >= 6 }).toEqual({ what, value: true });
    secrets.set(what, value as string);
  };
  keep('team API key', tenant.apiKey);
  keep('management key', tenant.managementKey);
  for (const [field, value] of Object.entries({ ...PATIENT, ...ADDRESS }))
    if (!['gender', 'city', 'state', 'zip', 'country'].includes(field)) keep(`patient ${field}`, value);
  keep('client_user_id', CLIENT_USER_ID);

  // A user known by a handle made of their name, with the patient's demographics; found by it.
  const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: CLIENT_USER_ID, fallback_birth_date: PATIENT.dob } });
  expect(user.status).toBe(200);
  const userId = user.body.user_id as string;
  const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${userId}/info`, { key: tenant.apiKey, body: { ...PATIENT, address: ADDRESS } });
  expect(info.status).toBe(200);
  expect((await call(stack.apiUrl, 'GET', `/v2/user/resolve/${encodeURIComponent(CLIENT_USER_ID)}`, { key: tenant.apiKey })).body.user_id).toBe(userId);
  const search = await call(stack.apiUrl, 'GET', `/v2/team/users/search?query_id=${encodeURIComponent(CLIENT_USER_ID)}`, { key: tenant.apiKey });
  expect(search.status).toBe(200);
  expect(JSON.stringify(search.body)).toContain(userId);
  // An unknown one: the 404 line must not name them either.
  expect((await call(stack.apiUrl, 'GET', `/v2/user/resolve/${encodeURIComponent(`x${CLIENT_USER_ID}`)}`, { key: tenant.apiKey })).status).toBe(404);

  // An order with the patient's details, sent twice with one idempotency key (the second answer is the stored one).
  const body = orderBody(userId, {
    patient_details: PATIENT,
    patient_address: { ...ADDRESS, receiver_name: `${PATIENT.first_name} ${PATIENT.last_name}`, phone_number: PATIENT.phone_number },
  });
  const idempotencyKey = `order-${randomUUID()}`;
  const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body, headers: { 'X-Idempotency-Key': idempotencyKey } });
  expect(created.status).toBe(200);
  const orderId = created.body.order.id as string;
  const replayed = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body, headers: { 'X-Idempotency-Key': idempotencyKey } });
  expect(replayed.body.order.id).toBe(orderId);

  // Listed by the patient's names, in the query string.
  const byName = await call(
    stack.apiUrl,
    'GET',
    `/v3/orders?patient_name=${PATIENT.first_name}&search_input=${PATIENT.last_name}&shipping_recipient_name=${PATIENT.first_name}`,
    { key: tenant.apiKey },
  );
  expect(byName.status).toBe(200);
  const bySearch = await call(stack.apiUrl, 'GET', `/v3/orders?search_input=${encodeURIComponent(PATIENT.email)}`, { key: tenant.apiKey });
  expect(bySearch.status).toBe(200);
  const listed = await call(stack.apiUrl, 'GET', `/v3/orders?patient_name=${PATIENT.first_name}`, { key: tenant.apiKey });
  expect(listed.body.orders.map((order: { id: string }) => order.id)).toContain(orderId);

  // The requisition link, signed, and the PDF behind it.
  expect(
    (await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test?final_status=requisition_created`, { key: tenant.apiKey, body: {} })).status,
  ).toBeLessThan(300);
  const order = await orderPassed(stack, tenant, orderId, 'requisition_created');
  const requisition = new URL(order.requisition_form_url);
  keep('requisition signature', requisition.searchParams.get('signature'));
  expect((await fetchBytes(`${stack.apiUrl}${requisition.pathname}${requisition.search}`)).status).toBe(200);
  // A tampered signature is refused; its line hides the value sent as well.
  const forged = `${requisition.pathname}?expires=${requisition.searchParams.get('expires')}&signature=forged${suffix}`;
  keep('forged signature', `forged${suffix}`);
  expect((await fetchBytes(`${stack.apiUrl}${forged}`)).status).toBeGreaterThanOrEqual(400);

  // Portal: a launch link (once; reused, 410; with a path of its own after it, 404).
  const launch = await client.user.createPortalUrl(userId, { context: 'launch', orderId });
  const launchToken = new URL(launch.url).pathname.split('/').pop()!;
  keep('portal launch token', launchToken);
  const launched = await browser('GET', pathAndQuery(launch.url));
  expect(launched.status).toBe(303);
  const session = launched.cookies.map((cookie) => cookie.split(';')[0]).find((cookie) => cookie.startsWith('lf_portal_session='));
  keep('portal session', session?.split('=')[1]);
  expect((await browser('GET', pathAndQuery(launch.url))).status).toBe(410);
  expect((await browser('GET', `${pathAndQuery(launch.url)}/more`)).status).toBe(404);

  // Portal: a communications link, its code by e-mail, verified; then revoked through the API.
  const communications = await client.user.createPortalUrl(userId, { context: 'communications', orderId });
  const code = new URL(communications.url).pathname.slice(3);
  keep('portal communications code', code);
  expect((await browser('GET', `/p/${code}`)).status).toBe(200);
  const before = smtp.messages.length;
  expect((await browser('POST', `/p/${code}/send`, { channel: 'email' })).status).toBe(200);
  const otp = codeIn((await smtp.nextTo(PATIENT.email, before)).text);
  expect((await browser('POST', `/p/${code}/verify`, { otp: otp === '000000' ? '111111' : '000000' })).status).toBe(422);
  const verified = await browser('POST', `/p/${code}/verify`, { otp });
  expect(verified.status).toBe(303);
  keep(
    'portal device cookie',
    verified.cookies
      .map((cookie) => cookie.split(';')[0])
      .find((cookie) => cookie.startsWith('lf_portal_device='))
      ?.split('=')[1],
  );
  expect((await call(stack.apiUrl, 'DELETE', `/v2/user/${userId}/portal_url/${code}`, { key: tenant.apiKey })).status).toBe(200);
  expect((await browser('GET', `/p/${code}`)).status).toBe(410);

  // Link: a token, the hosted page, an OAuth sign-in through the sandbox's consent page and
  // labflow's callback with its state and code; the callback again is refused.
  const { linkToken, linkWebUrl } = await client.link.token({ userId, redirectUrl: 'https://app.example.com/done' });
  keep('link token', linkToken);
  expect((await browser('GET', pathAndQuery(linkWebUrl))).status).toBe(200);
  expect(await client.link.isTokenValid({ token: linkToken })).toMatchObject({ success: true });
  const source = await client.link.generateOauthLink('oura', { vitalLinkToken: linkToken });
  const state = new URL(source.oauthUrl as string).searchParams.get('state');
  keep('OAuth state', state);
  const consent = await browser('GET', pathAndQuery(source.oauthUrl as string));
  expect(consent.status).toBe(200);
  const allow = /href="([^"]+)">Allow<\/a>/.exec(consent.text)?.[1].replace(/&amp;/g, '&') as string;
  keep('OAuth code', new URL(allow, stack.apiUrl).searchParams.get('code'));
  const back = await browser('GET', allow);
  expect(back.status).toBe(303);
  expect(new URL(back.location as string).searchParams.get('state')).toBe('success');
  expect((await browser('GET', allow)).status).toBe(400);
  expect((await browser('GET', `/link?token=${linkToken}`)).status).toBe(410);

  // The mobile SDKs' sign-in: a sign-in token, its exchange and a refresh, a request with the
  // access token, a link code exchanged (the code in the query).
  const { signInToken } = await client.user.getUserSignInToken(userId);
  keep('sign-in token', signInToken);
  const userToken = JSON.parse(Buffer.from(signInToken, 'base64').toString('utf8')).user_token as string;
  keep('sign-in user_token', userToken);
  const form = (body: Record<string, string>) =>
    fetch(`${stack.apiUrl}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });
  const exchanged = await form({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: userToken });
  expect(exchanged.status).toBe(200);
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };
  keep('refresh token', tokens.refresh_token);
  const refreshed = await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
  expect(refreshed.status).toBe(200);
  const renewed = (await refreshed.json()) as { access_token: string; refresh_token: string };
  keep('access token', renewed.access_token);
  keep('second refresh token', renewed.refresh_token);
  expect((await call(stack.apiUrl, 'GET', `/v2/user/${userId}`, { headers: { authorization: `Bearer ${renewed.access_token}` } })).status).toBe(200);
  expect((await form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(401);
  const linkCode = await client.link.codeCreate({ userId });
  keep('link code', linkCode.code);
  const codeExchanged = await call(stack.apiUrl, 'POST', `/v2/link/code/exchange?code=${linkCode.code}&grant_type=sign_in_token`);
  expect(codeExchanged.status).toBe(200);
  keep('sign-in token of a link code', codeExchanged.body.sign_in_token);
  expect((await call(stack.apiUrl, 'POST', `/v2/link/code/exchange?code=${linkCode.code}&grant_type=sign_in_token`)).status).toBe(401);

  // Everything the run caused has been logged and traced: its webhooks delivered, the workflow's
  // activities logged (Temporal's runtime holds forwarded lines ~100 ms), the spans exported.
  await waitFor(
    () => receiver.accepted('/hook').some((request) => request.json?.event_type === 'provider.connection.created' && request.json.user_id === userId),
    { timeoutMs: 30_000 },
  );
  await waitFor(() => lines.some((line) => line.includes('"outcome":"succeeded"')) && lines.some((line) => line.includes('"activityType"')), {
    timeoutMs: 10_000,
  });
  await stack.tracing!.flush();

  const logs = lines.join('\n');
  const traces = otlp.exports.join('\n');
  const found = [...secrets].flatMap(([what, value]) => [
    ...(logs.includes(value) || logs.includes(encodeURIComponent(value)) ? [`${what} in the logs`] : []),
    ...(traces.includes(value) || traces.includes(encodeURIComponent(value)) ? [`${what} in the traces`] : []),
  ]);
  expect(found).toEqual([]);

  // The run did log and trace each route family, redacted (a grep of nothing would find nothing).
  const requestLines = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string } }).filter((line) => line.msg === 'request completed');
  const urls = requestLines.map((line) => line.req?.url ?? '');
  for (const logged of [
    '/v2/user/resolve/[redacted]',
    '/v2/team/users/search?query_id=[redacted]',
    '/portal/launch/[redacted]',
    '/portal/launch/[redacted]/more',
    '/p/[redacted]/verify',
    `/v2/user/${userId}/portal_url/[redacted]`,
    '/v2/link/connect/oura?state=[redacted]&code=[redacted]',
    '/link?token=[redacted]',
    '/v2/link/code/exchange?code=[redacted]&grant_type=sign_in_token',
  ]) {
    expect({ logged, found: urls.includes(logged) }).toEqual({ logged, found: true });
  }
  expect(urls).toContain('/v3/orders?patient_name=[redacted]&search_input=[redacted]&shipping_recipient_name=[redacted]');
  expect(otlp.spans.some((span) => span.attributes['url.path'] === '/portal/launch/[redacted]')).toBe(true);
  expect(otlp.spans.some((span) => span.attributes['url.query'] === 'state=[redacted]&code=[redacted]')).toBe(true);
});
