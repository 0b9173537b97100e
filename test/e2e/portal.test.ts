import { Vital, VitalClient } from '@tryvital/vital-node';
import { createUser, eventually, ORDER_TEST_ENV, orderBody, orderReaches, someStartDate, THYROID_AT_HOME } from '../helpers/orders';
import { pdfText } from '../helpers/pdf';
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp-receiver';
import { call, createTenant, type Tenant, type TestStack, startStack } from '../helpers/stack';
import { PortalTokens } from '../../src/portal/portal-tokens';

/** A short link's code as labflow stores it (a keyed hash, never the code). */
const codeHash = (stack: TestStack, code: string) => new PortalTokens(stack.config.phiEncryptionKey).codeDigest(code);

/** A page request the way a browser makes it (no API key; cookies by hand). */
async function page(stack: TestStack, method: string, path: string, options: { cookie?: string; form?: Record<string, string> } = {}) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: options.form ? new URLSearchParams(options.form).toString() : undefined,
  });
  return { status: response.status, text: await response.text(), headers: response.headers, cookies: response.headers.getSetCookie() };
}

const cookieHeader = (setCookies: string[]) => setCookies.map((cookie) => cookie.split(';')[0]).join('; ');
const pathOf = (url: string) => new URL(url).pathname;

describe('patient portal: portal URLs and the pages behind them', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let smtp: SmtpReceiver;
  let client: VitalClient;
  let userId: string;
  let orderId: string;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    stack = await startStack({ labReportWorker: true, env: { ...ORDER_TEST_ENV, SMTP_URL: smtp.url, PORTAL_CODE_MAX_FAILURES: '3' } });
    tenant = await createTenant(stack.db, { teamName: 'Acme Health' });
    client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
    userId = await createUser(stack, tenant);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
  });
  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  it('creates launch and communications URLs through the SDK: expires_in in seconds, a short /p/ link for messages', async () => {
    const launch = await client.user.createPortalUrl(userId, { context: 'launch', orderId });
    expect(launch.expiresIn).toBe(300);
    expect(pathOf(launch.url)).toMatch(/^\/portal\/launch\/[0-9a-f-]{36}\.\d+\.[\w-]+$/);
    const communications = await client.user.createPortalUrl(userId, { context: 'communications' });
    expect(communications.expiresIn).toBe(28 * 24 * 3600);
    expect(pathOf(communications.url)).toMatch(/^\/p\/[0-9A-Za-z]{8}$/);
  });

  it('refuses a user without demographics (422 {detail}), an unknown user, and orders of another user or team (404)', async () => {
    const bare = await createUser(stack, tenant);
    const noDemographics = await call(stack.apiUrl, 'POST', `/v2/user/${bare}/create_portal_url`, { key: tenant.apiKey, body: { context: 'launch' } });
    expect(noDemographics.status).toBe(422);
    expect(noDemographics.body.detail[0]).toMatchObject({ loc: ['path', 'user_id'], msg: expect.stringContaining('demographics') });
    await expect(client.user.createPortalUrl(bare, { context: 'communications' })).rejects.toBeInstanceOf(Vital.UnprocessableEntityError);

    const unknownUser = await call(stack.apiUrl, 'POST', `/v2/user/${crypto.randomUUID()}/create_portal_url`, {
      key: tenant.apiKey,
      body: { context: 'launch' },
    });
    expect(unknownUser.status).toBe(404);
    const otherUsersOrder = await call(stack.apiUrl, 'POST', `/v2/user/${bare}/create_portal_url`, {
      key: tenant.apiKey,
      body: { context: 'launch', order_id: orderId },
    });
    expect(otherUsersOrder.status).toBe(404);
    const other = await createTenant(stack.db);
    const otherUser = await createUser(stack, other);
    await call(stack.apiUrl, 'POST', '/v3/order', { key: other.apiKey, body: orderBody(otherUser) });
    const otherTeamsOrder = await call(stack.apiUrl, 'POST', `/v2/user/${otherUser}/create_portal_url`, {
      key: other.apiKey,
      body: { context: 'launch', order_id: orderId },
    });
    expect(otherTeamsOrder.status).toBe(404);
    const badContext = await call(stack.apiUrl, 'POST', `/v2/user/${userId}/create_portal_url`, { key: tenant.apiKey, body: { context: 'telepathy' } });
    expect(badContext.status).toBe(422);
  });

  it('a launch link opens the order once, with a Secure HttpOnly SameSite cookie; reuse and tampering get clear pages', async () => {
    const { url } = await client.user.createPortalUrl(userId, { context: 'launch', orderId });
    const opened = await page(stack, 'GET', pathOf(url));
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/portal/orders/${orderId}`);
    expect(opened.cookies[0]).toMatch(/^lf_portal_session=.+; Max-Age=\d+; Path=\/portal; HttpOnly; Secure; SameSite=Lax$/);

    const order = await page(stack, 'GET', `/portal/orders/${orderId}`, { cookie: cookieHeader(opened.cookies) });
    expect(order.status).toBe(200);
    expect(order.headers.get('content-type')).toContain('text/html');
    expect(order.headers.get('cache-control')).toBe('no-store');
    expect(order.text).toContain('Lipid Panel');
    expect(order.text).toContain('Your test was ordered.');

    const reused = await page(stack, 'GET', pathOf(url));
    expect(reused.status).toBe(410);
    expect(reused.text).toContain('This link was already used');
    const tampered = await page(stack, 'GET', `${pathOf(url).slice(0, -3)}xyz`);
    expect(tampered.status).toBe(404);
    expect(tampered.text).toContain('We could not find this link');
    const noSession = await page(stack, 'GET', `/portal/orders/${orderId}`);
    expect(noSession.status).toBe(401);
    expect(noSession.text).not.toMatch(/at .*\.ts:\d+/);

    const sessions = await stack.db.query(`SELECT began_by FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id WHERE l.user_id = $1`, [userId]);
    expect(sessions.map((row: { began_by: string }) => row.began_by)).toContain('launch');
    const audit = await stack.db.query(
      `SELECT resource, api_key_id FROM phi_access_log WHERE team_id = $1 AND resource IN ('portal_session', 'order') AND api_key_id IS NULL`,
      [tenant.teamId],
    );
    expect(audit.map((row: { resource: string }) => row.resource)).toEqual(expect.arrayContaining(['portal_session', 'order']));
  });

  it("offers the lab's report as a PDF once there are results, to the session's patient only", async () => {
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    const reportOrderId = created.body.order.id as string;
    const launched = await page(stack, 'GET', pathOf((await client.user.createPortalUrl(userId, { context: 'launch', orderId: reportOrderId })).url));
    const cookie = cookieHeader(launched.cookies);
    const before = await page(stack, 'GET', `/portal/orders/${reportOrderId}`, { cookie });
    expect(before.text).not.toContain('results.pdf');
    // The collection instructions are there from the start.
    expect(before.text).toContain(`<a href="/portal/orders/${reportOrderId}/instructions.pdf">How to give your sample, step by step (PDF)</a>`);
    const instructions = await fetch(`${stack.apiUrl}/portal/orders/${reportOrderId}/instructions.pdf`, { headers: { cookie } });
    expect(instructions.status).toBe(200);
    expect(instructions.headers.get('content-disposition')).toBe(`attachment; filename="collection-instructions-${reportOrderId}.pdf"`);
    expect(pdfText(Buffer.from(await instructions.arrayBuffer()))).toContain('Collecting your sample at home (finger prick)');
    expect((await page(stack, 'GET', `/portal/orders/${orderId}/instructions.pdf`, { cookie })).status).toBe(404);
    const noReport = await page(stack, 'GET', `/portal/orders/${reportOrderId}/results.pdf`, { cookie });
    expect(noReport.status).toBe(404);

    expect((await call(stack.apiUrl, 'POST', `/v3/order/${reportOrderId}/test`, { key: tenant.apiKey })).status).toBe(200);
    await orderReaches(stack, tenant, reportOrderId, 'completed');
    const after = await page(stack, 'GET', `/portal/orders/${reportOrderId}`, { cookie });
    expect(after.text).toContain(`<a href="/portal/orders/${reportOrderId}/results.pdf">Download the lab's report (PDF)</a>`);
    const response = await fetch(`${stack.apiUrl}/portal/orders/${reportOrderId}/results.pdf`, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="lab-report-${reportOrderId}.pdf"`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = pdfText(Buffer.from(await response.arrayBuffer()));
    expect(text).toContain('LABORATORY REPORT FINAL REPORT');
    expect(text).toContain('Name: Marguerite Okonkwo');
    expect(text).toContain(`Order ID: ${reportOrderId}`);

    // Not without a session, and not an order the session's link does not cover.
    expect((await page(stack, 'GET', `/portal/orders/${reportOrderId}/results.pdf`)).status).toBe(401);
    expect((await page(stack, 'GET', `/portal/orders/${orderId}/results.pdf`, { cookie })).status).toBe(404);
  });

  it("takes the patient's user info as demographics and as where codes go, before any order", async () => {
    const fresh = await createUser(stack, tenant);
    const refused = await call(stack.apiUrl, 'POST', `/v2/user/${fresh}/create_portal_url`, { key: tenant.apiKey, body: { context: 'communications' } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].msg).toContain('PATCH /v2/user/{user_id}/info');
    const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${fresh}/info`, {
      key: tenant.apiKey,
      body: {
        first_name: 'Odile',
        last_name: 'Brightwater',
        email: 'odile@example.org',
        phone_number: '+14155550177',
        gender: 'female',
        dob: '1979-02-03',
        address: { first_line: '2 Pine St', country: 'US', zip: '94105', city: 'San Francisco', state: 'CA' },
      },
    });
    expect(info.status).toBe(200);
    const { url } = await client.user.createPortalUrl(fresh, { context: 'communications' });
    const path = pathOf(url);
    const opened = await page(stack, 'GET', path);
    expect(opened.text).toContain('o•••@example.org');
    const before = smtp.messages.length;
    expect((await page(stack, 'POST', `${path}/send`, { form: { channel: 'email' } })).status).toBe(200);
    const code = codeIn((await smtp.nextTo('odile@example.org', before)).text);
    const verified = await page(stack, 'POST', `${path}/verify`, { form: { otp: code } });
    expect(verified.status).toBe(303);
    const home = await page(stack, 'GET', '/portal', { cookie: cookieHeader(verified.cookies) });
    expect(home.status).toBe(200);
    expect(home.text).toContain('You have no orders.');
  });

  it('a communications link asks a new device for an e-mailed code, counts wrong codes, then remembers the device', async () => {
    const { url } = await client.user.createPortalUrl(userId, { context: 'communications', orderId });
    const path = pathOf(url);
    const first = await page(stack, 'GET', path);
    expect(first.status).toBe(200);
    expect(first.text).toContain('m•••@example.com');
    expect(first.text).not.toContain('marguerite@example.com');

    const before = smtp.messages.length;
    const sent = await page(stack, 'POST', `${path}/send`, { form: { channel: 'email' } });
    expect(sent.status).toBe(200);
    const mail = await smtp.nextTo('marguerite@example.com', before);
    const code = codeIn(mail.text);
    expect(mail.subject).toContain('verification code');

    const wrong = await page(stack, 'POST', `${path}/verify`, { form: { otp: code === '000000' ? '111111' : '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('2 more times');

    const right = await page(stack, 'POST', `${path}/verify`, { form: { otp: code } });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(`/portal/orders/${orderId}`);
    const device = right.cookies.find((cookie) => cookie.startsWith('lf_portal_device='));
    expect(device).toMatch(new RegExp(`Path=${path}; HttpOnly; Secure; SameSite=Lax$`));

    const reusedCode = await page(stack, 'POST', `${path}/verify`, { form: { otp: code } });
    expect(reusedCode.status).toBe(422);
    const again = await page(stack, 'GET', path, { cookie: cookieHeader([device as string]) });
    expect(again.status).toBe(303);
    expect(again.cookies[0]).toMatch(/^lf_portal_session=/);
    const sessions = await stack.db.query(
      `SELECT s.began_by FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id WHERE l.code_hash = $1 ORDER BY s.started_at`,
      [codeHash(stack, path.slice(3))],
    );
    expect(sessions.map((row: { began_by: string }) => row.began_by)).toEqual(['code', 'device']);
  });

  it('the timeline tells a moved appointment from a booked one: "Your appointment time was changed."', async () => {
    const patient = await createUser(stack, tenant);
    const phoenix = { ...orderBody(patient).patient_address, first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip: '85004' };
    const physician = { first_name: 'Ada', last_name: 'Lovelace', npi: '1234567893' };
    const created = await call(stack.apiUrl, 'POST', '/v3/order', {
      key: tenant.apiKey,
      body: orderBody(patient, { lab_test_id: THYROID_AT_HOME, patient_address: phoenix, physician }),
    });
    expect(created.status).toBe(200);
    const atHome = created.body.order.id as string;
    await orderReaches(stack, tenant, atHome, 'appointment_pending');
    const availability = await call(stack.apiUrl, 'POST', `/v3/order/phlebotomy/appointment/availability?start_date=${someStartDate()}`, {
      key: tenant.apiKey,
      body: { first_line: '200 W Washington St', city: 'Phoenix', state: 'AZ', zip_code: '85004' },
    });
    const slots: Array<{ booking_key: string }> = availability.body.slots.flatMap((day: { slots: Array<{ booking_key: string }> }) => day.slots);
    const appointment = `/v3/order/${atHome}/phlebotomy/appointment`;
    expect((await call(stack.apiUrl, 'POST', `${appointment}/book`, { key: tenant.apiKey, body: { booking_key: slots[0].booking_key } })).status).toBe(200);
    expect((await call(stack.apiUrl, 'PATCH', `${appointment}/reschedule`, { key: tenant.apiKey, body: { booking_key: slots[2].booking_key } })).status).toBe(
      200,
    );
    await eventually(async () => {
      const order = await call(stack.apiUrl, 'GET', `/v3/order/${atHome}`, { key: tenant.apiKey });
      return order.body.events.filter((event: { status: string }) => event.status.endsWith('.appointment_scheduled')).length === 2 ? true : undefined;
    }, 'the reschedule on the order');

    const { url } = await client.user.createPortalUrl(patient, { context: 'launch', orderId: atHome });
    const opened = await page(stack, 'GET', pathOf(url));
    const order = await page(stack, 'GET', `/portal/orders/${atHome}`, { cookie: cookieHeader(opened.cookies) });
    expect(order.status).toBe(200);
    const timeline = order.text.slice(order.text.indexOf('What has happened so far'));
    const booked = timeline.indexOf('Your appointment is booked.');
    expect(booked).toBeGreaterThan(0);
    expect(timeline.indexOf('Your appointment time was changed.')).toBeGreaterThan(booked);
    expect(timeline.match(/Your appointment is booked\./g)).toHaveLength(1);
  });

  it('locks a link after too many wrong codes (403 page)', async () => {
    const { url } = await client.user.createPortalUrl(userId, { context: 'communications' });
    const path = pathOf(url);
    await page(stack, 'POST', `${path}/send`, { form: { channel: 'email' } });
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await page(stack, 'POST', `${path}/verify`, { form: { otp: 'abcdef' } })).status);
    expect(answers).toEqual([422, 422, 403]);
    const locked = await page(stack, 'GET', path);
    expect(locked.status).toBe(403);
    expect(locked.text).toContain('This link is locked');
  });

  it('a team revokes a communications link through the API; revoked, expired and unknown links get their pages', async () => {
    const { url } = await client.user.createPortalUrl(userId, { context: 'communications' });
    const code = pathOf(url).slice(3);
    const revoked = await call(stack.apiUrl, 'DELETE', `/v2/user/${userId}/portal_url/${code}`, { key: tenant.apiKey });
    expect(revoked).toMatchObject({ status: 200, body: { success: true, revoked: 1 } });
    expect((await page(stack, 'GET', `/p/${code}`)).status).toBe(410);
    expect((await page(stack, 'GET', `/p/${code}`)).text).toContain('This link no longer works');
    const other = await createTenant(stack.db);
    expect((await call(stack.apiUrl, 'DELETE', `/v2/user/${userId}/portal_url/${code}`, { key: other.apiKey })).status).toBe(404);

    const expiring = await client.user.createPortalUrl(userId, { context: 'communications' });
    await stack.db.query(`UPDATE portal_links SET expires_at = now() - interval '1 second' WHERE code_hash = $1`, [
      codeHash(stack, pathOf(expiring.url).slice(3)),
    ]);
    const expired = await page(stack, 'GET', pathOf(expiring.url));
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This link has expired');

    const unknown = await page(stack, 'GET', '/p/Zz9Zz9Zz');
    expect(unknown.status).toBe(404);
    const all = await call(stack.apiUrl, 'DELETE', `/v2/user/${userId}/portal_urls`, { key: tenant.apiKey });
    expect(all.status).toBe(200);
    expect(all.body.revoked).toBeGreaterThanOrEqual(1);
  });
});
