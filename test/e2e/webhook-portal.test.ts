import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import type { EventType } from '../../src/events/catalogue';
import { type NewEvent, OutboxService } from '../../src/events/outbox.service';
import { webhookPortalTokens } from '../../src/webhook-portal/webhook-portal-access.service';
import { capturedLogs } from '../helpers/captured-logs';
import { runCli } from '../helpers/cli';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi, type TeamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * The hosted webhook portal (Svix's App Portal) over HTTP as a browser uses it: `GET
 * /v2/team/svix/url` through the SDK, the launch URL (once, expiring, signed), the session's
 * pages (endpoints, messages with payloads and attempts) and its forms (resend, recover,
 * disable and enable) with their CSRF token — for the team's own endpoints only.
 */
const { logger, lines } = capturedLogs();

let stack: TestStack;
let tenant: Tenant;
let other: Tenant;
let receiver: WebhookReceiver;
let api: TeamManagementApi;
let client: VitalClient;

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    logger,
    // One retry 50 ms after a failure: a refused message is exhausted quickly.
    env: { WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_DELIVERY_TIMEOUT: '5s', EVENTS_RELAY_POLL_INTERVAL: '200ms', LOG_REQUESTS: 'true' },
  });
  tenant = await createTenant(stack.db, { teamName: 'Acme Labs' });
  other = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  api = teamManagementApi(stack, tenant, 'sandbox');
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** A page request the way a browser makes it (no API key; cookies and forms by hand). */
async function page(path: string, options: { cookie?: string; form?: Record<string, string> } = {}) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: options.form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: options.form ? new URLSearchParams(options.form).toString() : undefined,
  });
  return { status: response.status, text: await response.text(), headers: response.headers, cookies: response.headers.getSetCookie() };
}

const pathOf = (url: string) => new URL(url).pathname;
const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;

/** Opens a fresh portal URL of `team`: the session cookie header. */
async function signIn(team: Tenant = tenant): Promise<string> {
  const key = team.apiKey;
  const url = (await new VitalClient({ baseUrl: stack.apiUrl, apiKey: key, headers: { 'x-service-api-key': key }, maxRetries: 0 }).team.getSvixUrl())
    .url as string;
  const opened = await page(pathOf(url));
  expect(opened.status).toBe(303);
  return opened.cookies.map((cookie) => cookie.split(';')[0]).join('; ');
}

async function endpoint(target: Tenant, path: string, body: Record<string, unknown> = {}): Promise<string> {
  const created = await teamManagementApi(stack, target, 'sandbox')('POST', '/webhook', { url: receiver.url(path), ...body });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

function event(team: Tenant, eventType: EventType, data: Record<string, unknown>): NewEvent {
  return { eventType, teamId: team.teamId, environment: 'sandbox', userId: randomUUID(), clientUserId: `client-${randomUUID().slice(0, 8)}`, data };
}

const emit = (events: NewEvent[]) => stack.api.get(OutboxService).emit(events);

const messageStatus = async (endpointId: string, messageId: string) => (await api('GET', `/webhook/${endpointId}/messages/${messageId}`)).body.status as string;

describe('the portal URL', () => {
  it('is served to the SDK as {url, token, expires_in}: a launch URL on the API that works for PORTAL_LAUNCH_TTL', async () => {
    const access = (await client.team.getSvixUrl()) as { url: string; token: string; expires_in: number };
    expect(access.expires_in).toBe(300);
    expect(access.url.startsWith(stack.config.api.publicUrl)).toBe(true);
    expect(pathOf(access.url)).toBe(`/webhook-portal/launch/${access.token}`);
    expect(access.token).toMatch(new RegExp(`^${tenant.teamId}\\.sandbox\\.[0-9a-f-]{36}\\.\\d+\\.[\\w-]+$`));
  });

  it('opens once, into a session cookie on /webhook-portal (HttpOnly, Secure, SameSite=Lax); again it is 410', async () => {
    const { url } = (await client.team.getSvixUrl()) as { url: string };
    const opened = await page(pathOf(url));
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/webhook-portal');
    expect(opened.cookies).toEqual([expect.stringMatching(/^lf_webhook_portal=[\w.-]+; Max-Age=3600; Path=\/webhook-portal; HttpOnly; Secure; SameSite=Lax$/)]);
    const again = await page(pathOf(url));
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used');
  });

  it('refuses a tampered URL (401), an expired one (410), no session (401), and a request without an API key (401 JSON)', async () => {
    const { token } = (await client.team.getSvixUrl()) as { token: string };
    const parts = token.split('.');
    // Another team named in a URL signed for this one.
    const forged = [other.teamId, ...parts.slice(1)].join('.');
    expect((await page(`/webhook-portal/launch/${forged}`)).status).toBe(401);
    // A later expiry, or a signature altered by one character.
    expect((await page(`/webhook-portal/launch/${[...parts.slice(0, 3), String(Number(parts[3]) + 3600), parts[4]].join('.')}`)).status).toBe(401);
    const signature = parts[4];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect((await page(`/webhook-portal/launch/${[...parts.slice(0, 4), flipped].join('.')}`)).status).toBe(401);
    expect((await page('/webhook-portal/launch/garbage')).status).toBe(401);

    // Signed right, but its time has passed.
    const expired = webhookPortalTokens(stack.config).sign('launch', [tenant.teamId, 'sandbox', randomUUID(), Math.floor(Date.now() / 1000) - 1]);
    const late = await page(`/webhook-portal/launch/${expired}`);
    expect(late.status).toBe(410);
    expect(late.text).toContain('This link has expired');

    const noSession = await page('/webhook-portal');
    expect(noSession.status).toBe(401);
    // Limited per client address with the patient portal's budget.
    expect(noSession.headers.get('x-ratelimit-limit')).toBe('600');
    expect(noSession.headers.get('content-type')).toContain('text/html');
    expect((await page('/webhook-portal', { cookie: 'lf_webhook_portal=forged.value' })).status).toBe(401);

    const keyless = await fetch(`${stack.apiUrl}/v2/team/svix/url`);
    expect(keyless.status).toBe(401);
  });

  it('never writes the launch token or the session cookie to the logs', async () => {
    const { url, token } = (await client.team.getSvixUrl()) as { url: string; token: string };
    const opened = await page(pathOf(url));
    const session = opened.cookies[0].split(';')[0].split('=')[1];
    await page(`${pathOf(url)}/more`);
    const logs = lines.join('\n');
    expect(logs.includes(token)).toBe(false);
    expect(logs.includes(session)).toBe(false);
    const urls = lines
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string } })
      .flatMap((line) => (line.msg === 'request completed' ? [line.req?.url] : []));
    expect(urls).toContain('/webhook-portal/launch/[redacted]');
    expect(urls).toContain('/webhook-portal/launch/[redacted]/more');
  });
});

describe('the pages of a session', () => {
  let ours: string;
  let theirs: string;
  let delivered: string;
  let cookie: string;

  beforeAll(async () => {
    ours = await endpoint(tenant, '/ours', { description: 'Orders for the clinic app' });
    theirs = await endpoint(other, '/theirs', { description: 'Another team entirely' });
    [delivered] = await emit([event(tenant, 'labtest.order.created', { id: randomUUID(), status: 'ordered', marker: 'portal-payload-marker' })]);
    await emit([event(other, 'labtest.order.created', { id: randomUUID(), marker: 'other-team-marker' })]);
    await waitFor(async () => (await messageStatus(ours, delivered)) === 'succeeded');
    cookie = await signIn();
  });

  it("lists the team's endpoints in the key's environment, in the team's brand, and no other team's", async () => {
    await teamManagementApi(stack, tenant, 'production')('POST', '/webhook', { url: receiver.url('/production'), description: 'Production only' });
    const home = await page('/webhook-portal', { cookie });
    expect(home.status).toBe(200);
    expect(home.headers.get('cache-control')).toBe('no-store');
    expect(home.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(home.text).toContain('<span class="brand">Acme Labs</span>');
    expect(home.text).toContain(receiver.url('/ours'));
    expect(home.text).toContain('Orders for the clinic app');
    expect(home.text).toContain(`/webhook-portal/endpoints/${ours}`);
    expect(home.text).not.toContain('Another team entirely');
    expect(home.text).not.toContain('Production only');
  });

  it('shows an endpoint with its messages, and a message with its payload and every attempt', async () => {
    const endpointPage = await page(`/webhook-portal/endpoints/${ours}`, { cookie });
    expect(endpointPage.status).toBe(200);
    expect(endpointPage.text).toContain('labtest.order.created');
    expect(endpointPage.text).toContain(`/webhook-portal/endpoints/${ours}/messages/${delivered}`);
    expect(endpointPage.text).toContain('succeeded');

    const messagePage = await page(`/webhook-portal/endpoints/${ours}/messages/${delivered}`, { cookie });
    expect(messagePage.status).toBe(200);
    expect(messagePage.text).toContain('portal-payload-marker');
    expect(messagePage.text).toContain(`&quot;team_id&quot;: &quot;${tenant.teamId}&quot;`);
    // The attempt: its status code, the response excerpt and how long it took.
    expect(messagePage.text).toMatch(/HTTP 200/);
    expect(messagePage.text).toMatch(/<pre class="excerpt">ok<\/pre>/);
    expect(messagePage.text).toMatch(/\d+ ms/);
  });

  it("answers 404 for another team's endpoint and message, and an unknown one", async () => {
    expect((await page(`/webhook-portal/endpoints/${theirs}`, { cookie })).status).toBe(404);
    const [theirMessage] = (await teamManagementApi(stack, other, 'sandbox')('GET', `/webhook/${theirs}/messages`)).body.data ?? [];
    if (theirMessage) expect((await page(`/webhook-portal/endpoints/${theirs}/messages/${theirMessage.id}`, { cookie })).status).toBe(404);
    expect((await page(`/webhook-portal/endpoints/${ours}/messages/${randomUUID()}`, { cookie })).status).toBe(404);
    expect((await page(`/webhook-portal/endpoints/${randomUUID()}`, { cookie })).status).toBe(404);
    expect((await page('/webhook-portal/endpoints/not-a-uuid', { cookie })).status).toBe(404);
    // Their own session sees theirs, not ours.
    const theirCookie = await signIn(other);
    expect((await page(`/webhook-portal/endpoints/${theirs}`, { cookie: theirCookie })).status).toBe(200);
    expect((await page(`/webhook-portal/endpoints/${ours}`, { cookie: theirCookie })).status).toBe(404);
    const form = { csrf: csrfIn((await page(`/webhook-portal/endpoints/${theirs}`, { cookie: theirCookie })).text) };
    expect((await page(`/webhook-portal/endpoints/${ours}/disable`, { cookie: theirCookie, form })).status).toBe(404);
    expect((await api('GET', `/webhook/${ours}`)).body.disabled).toBe(false);
  });
});

describe('the forms of a session', () => {
  it('refuses a form without its CSRF token, or with the token of another session (403)', async () => {
    const id = await endpoint(tenant, '/csrf');
    const cookie = await signIn();
    const otherSession = await signIn();
    const otherCsrf = csrfIn((await page(`/webhook-portal/endpoints/${id}`, { cookie: otherSession })).text);
    expect((await page(`/webhook-portal/endpoints/${id}/disable`, { cookie, form: {} })).status).toBe(403);
    expect((await page(`/webhook-portal/endpoints/${id}/disable`, { cookie, form: { csrf: otherCsrf } })).status).toBe(403);
    expect((await page(`/webhook-portal/endpoints/${id}/disable`, { form: { csrf: otherCsrf } })).status).toBe(401);
    expect((await api('GET', `/webhook/${id}`)).body.disabled).toBe(false);
  });

  it('resends a message: the receiver gets it again with the same webhook id, a manual attempt', async () => {
    const id = await endpoint(tenant, '/resend');
    const [eventId] = await emit([event(tenant, 'labtest.order.created', { seq: 'resend' })]);
    await waitFor(async () => (await messageStatus(id, eventId)) === 'succeeded');
    const cookie = await signIn();
    const messagePath = `/webhook-portal/endpoints/${id}/messages/${eventId}`;
    const csrf = csrfIn((await page(messagePath, { cookie })).text);
    const resent = await page(`${messagePath}/resend`, { cookie, form: { csrf } });
    expect(resent.status).toBe(303);
    expect(resent.headers.get('location')).toBe(`${messagePath}?done=resent`);
    await waitFor(() => receiver.accepted('/resend').length === 2);
    expect(receiver.accepted('/resend').map((request) => request.webhookId)).toEqual([eventId, eventId]);
    const after = await waitFor(async () => {
      const shown = await page(`${messagePath}?done=resent`, { cookie });
      return shown.text.includes('(manual)') && shown;
    });
    expect(after.text).toContain('The message is being sent again.');
  });

  it('disables the endpoint (no resend then: 409 on the page), enables it again, and recovers failed messages since a time', async () => {
    let up = false;
    receiver.respond('/recover', () => (up ? { status: 204 } : { status: 503, body: 'down for maintenance' }));
    const id = await endpoint(tenant, '/recover');
    const [failed] = await emit([event(tenant, 'labtest.order.created', { seq: 'recover' })]);
    await waitFor(async () => (await messageStatus(id, failed)) === 'exhausted');

    const cookie = await signIn();
    const endpointPath = `/webhook-portal/endpoints/${id}`;
    const failedPage = await page(`${endpointPath}/messages/${failed}`, { cookie });
    expect(failedPage.text).toContain('HTTP 503');
    expect(failedPage.text).toContain('down for maintenance');
    const csrf = csrfIn(failedPage.text);

    const disabled = await page(`${endpointPath}/disable`, { cookie, form: { csrf } });
    expect(disabled.status).toBe(303);
    expect((await api('GET', `/webhook/${id}`)).body.disabled).toBe(true);
    const shown = await page(`${endpointPath}?done=disabled`, { cookie });
    expect(shown.text).toContain('Enable the endpoint');
    expect(shown.text).toContain('The endpoint is disabled');
    const refused = await page(`${endpointPath}/messages/${failed}/resend`, { cookie, form: { csrf } });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('enable it before retrying');
    const refusedRecovery = await page(`${endpointPath}/recover`, { cookie, form: { csrf, since: '2020-01-01T00:00' } });
    expect(refusedRecovery.status).toBe(409);

    expect((await page(`${endpointPath}/enable`, { cookie, form: { csrf } })).status).toBe(303);
    expect((await api('GET', `/webhook/${id}`)).body.disabled).toBe(false);

    // A time in the future, or no time, is refused on the page; nothing is sent.
    expect((await page(`${endpointPath}/recover`, { cookie, form: { csrf, since: '2999-01-01T00:00' } })).status).toBe(422);
    expect((await page(`${endpointPath}/recover`, { cookie, form: { csrf, since: 'yesterday' } })).status).toBe(422);
    // Since after the message: nothing to recover.
    const createdAt = Date.parse((await api('GET', `/webhook/${id}/messages/${failed}`)).body.created_at);
    await waitFor(() => Date.now() > createdAt + 1100);
    const later = new Date(createdAt + 1000).toISOString().slice(0, 19);
    const none = await page(`${endpointPath}/recover`, { cookie, form: { csrf, since: later } });
    expect(none.headers.get('location')).toBe(`${endpointPath}?recovered=0`);

    up = true;
    const recovered = await page(`${endpointPath}/recover`, { cookie, form: { csrf, since: new Date(Date.now() - 3600_000).toISOString().slice(0, 16) } });
    expect(recovered.status).toBe(303);
    expect(recovered.headers.get('location')).toBe(`${endpointPath}?recovered=1`);
    expect((await page(recovered.headers.get('location') as string, { cookie })).text).toContain('1 message is being sent again.');
    await waitFor(() => receiver.accepted('/recover').length === 1);
    expect(receiver.accepted('/recover')[0].webhookId).toBe(failed);
    await waitFor(async () => (await messageStatus(id, failed)) === 'succeeded');
  });

  it('the management API recovers the same way: POST …/webhook/{id}/recover {since}', async () => {
    let up = false;
    receiver.respond('/recover-api', () => (up ? { status: 204 } : { status: 500 }));
    const id = await endpoint(tenant, '/recover-api');
    const [failed] = await emit([event(tenant, 'labtest.order.created', { seq: 'recover-api' })]);
    await waitFor(async () => (await messageStatus(id, failed)) === 'exhausted');
    expect((await api('POST', `/webhook/${id}/recover`, { since: 'yesterday' })).status).toBe(422);
    up = true;
    const recovered = await api('POST', `/webhook/${id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(recovered).toMatchObject({ status: 202, body: { recovered: 1 } });
    await waitFor(async () => (await messageStatus(id, failed)) === 'succeeded');
    expect((await api('POST', `/webhook/${id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() })).body).toEqual({ recovered: 0 });
  });
});

describe('revoking the sessions', () => {
  const revokeWithKey = (team: Tenant) => call(stack.apiUrl, 'DELETE', '/v2/team/svix/sessions', { key: team.apiKey });
  const ended = async (cookie: string) => {
    const home = await page('/webhook-portal', { cookie });
    return home.status === 401 && home.text.includes('Your session has ended');
  };

  it("ends every open session of the team and every URL not yet opened, at their next request (DELETE /v2/team/svix/sessions); another team's stay", async () => {
    const id = await endpoint(tenant, '/revoked');
    // What earlier tests left open goes first, so the count below is this test's own.
    expect((await revokeWithKey(tenant)).status).toBe(200);
    const first = await signIn();
    const second = await signIn();
    const { url: pending } = (await client.team.getSvixUrl()) as { url: string };
    const theirs = await signIn(other);
    const open = await page(`/webhook-portal/endpoints/${id}`, { cookie: first });
    expect(open.status).toBe(200);
    const csrf = csrfIn(open.text);

    expect(await revokeWithKey(tenant)).toMatchObject({ status: 200, body: { success: true, revoked: 3 } });
    expect(await ended(first)).toBe(true);
    expect(await ended(second)).toBe(true);
    // A form of the open page is refused too, and does nothing.
    expect((await page(`/webhook-portal/endpoints/${id}/disable`, { cookie: first, form: { csrf } })).status).toBe(401);
    expect((await api('GET', `/webhook/${id}`)).body.disabled).toBe(false);
    const late = await page(pathOf(pending));
    expect(late.status).toBe(410);
    expect(late.text).toContain('This link was revoked');
    // Its footer speaks to the team's developers, not to a patient.
    expect(late.text).toContain('This portal shows a team its webhook endpoints');
    expect(late.text).not.toContain('ordered your test');
    expect((await page('/webhook-portal', { cookie: theirs })).status).toBe(200);
    // Nothing left to revoke; a URL asked for afterwards opens as usual.
    expect((await revokeWithKey(tenant)).body).toEqual({ success: true, revoked: 0 });
    expect((await page('/webhook-portal', { cookie: await signIn() })).status).toBe(200);
  });

  it('the management API and the ops CLI revoke them the same way', async () => {
    await revokeWithKey(tenant);
    const viaApi = await signIn();
    expect(await api('DELETE', '/webhook_portal/sessions')).toMatchObject({ status: 200, body: { success: true, revoked: 1 } });
    expect(await ended(viaApi)).toBe(true);
    // Another org's team is not this key's to revoke.
    const foreign = await call(stack.managementUrl, 'DELETE', `/v1/org/${tenant.orgId}/team/${other.teamId}/sandbox/webhook_portal/sessions`, {
      headers: { 'X-Management-Key': tenant.managementKey },
    });
    expect(foreign.status).toBe(404);

    const viaCli = await signIn();
    const env = { TEMPORAL_TASK_QUEUE: stack.taskQueue, EVENTS_QUEUE: stack.config.events.queueName, SANDBOX_CALLBACKS: 'false' };
    const run = await runCli(['webhook-portal', 'revoke', '--team', tenant.teamId, '--json'], env);
    expect([run.code, run.json]).toEqual([0, { success: true, revoked: 1 }]);
    expect(await ended(viaCli)).toBe(true);
    const human = await runCli(['webhook-portal', 'revoke', '--team', tenant.teamId, '--environment', 'production'], env);
    expect([human.code, human.stdout.trim()]).toEqual([0, 'revoked 0 webhook portal sessions']);
    expect((await runCli(['webhook-portal', 'revoke', '--team', randomUUID()], env)).code).toBe(3);
  });
});
