import { VitalClient, VitalError } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Junction's Link through the SDK (`client.link.*`) and the hosted page: a link token for one
 * user, the providers it offers, and each sign-in the sandbox plays (OAuth with its consent page,
 * password with a second factor, e-mail invitation) ending in a real connection: listed for the
 * user, announced by a signed provider.connection.created. Refusals carry the SDK's error types;
 * a token is good once and for ten minutes. Manual (pushed) sources, and the team's metrics,
 * which count connections.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startStack({
    management: true,
    events: true,
    env: { CONNECTION_BACKFILL_DAYS: '1', CONNECTION_BACKFILL_CHUNK: '1d', CONNECTION_SYNC_INTERVAL: '1h', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  const management = teamManagementApi(stack, tenant, 'sandbox');
  const created = await management('POST', '/webhook', { url: receiver.url('/link'), filter_types: ['provider.connection.created'] });
  expect(created.status).toBe(200);
  receiver.secret('/link', (await management('GET', `/webhook/${created.body.id}/secret`)).body.key);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const api = (method: string, path: string, body?: object, key = tenant.apiKey) => call(stack.apiUrl, method, path, { key, body });
const withToken = (method: string, path: string, token: string, body?: object) =>
  call(stack.apiUrl, method, path, { headers: { 'x-vital-link-token': token }, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `link-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

async function announced(userId: string, provider: string): Promise<ReceivedRequest> {
  const [request] = await waitFor(() => {
    const found = receiver.requests.filter(
      (r) => r.json?.event_type === 'provider.connection.created' && r.json.user_id === userId && r.json.data?.source?.slug === provider,
    );
    return found.length > 0 ? found : undefined;
  });
  return request;
}

async function connectedProviders(userId: string): Promise<string[]> {
  const { providers } = await client.user.getConnectedProviders(userId);
  return providers.map((provider) => provider.slug);
}

/**
 * GET without following redirects: the status and where it points. Labflow's own URLs are taken
 * by path (the test stack listens on a port its public URL does not know).
 */
async function visit(url: string): Promise<{ status: number; location: string | null; text: string }> {
  const { pathname, search } = new URL(url, stack.apiUrl);
  const response = await fetch(`${stack.apiUrl}${pathname}${search}`, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

test('a link token: its web URL, validity, and the providers the sandbox can connect', async () => {
  const userId = await createUser();
  const { linkToken, linkWebUrl } = await client.link.token({ userId });
  expect(linkToken).toMatch(/^lnk_/);
  expect(new URL(linkWebUrl).searchParams.get('token')).toBe(linkToken);
  expect(await client.link.isTokenValid({ token: linkToken })).toMatchObject({ success: true, user_id: userId });

  const providers = await client.link.getAllProviders({ vitalLinkToken: linkToken });
  expect(providers.map((p) => [p.slug, p.authType]).sort()).toEqual([
    ['abbott_libreview', 'password'],
    ['dexcom', 'password'],
    ['fitbit', 'oauth'],
    ['freestyle_libre', 'email'],
    ['oura', 'oauth'],
  ]);
  expect(providers.find((p) => p.slug === 'dexcom')).toMatchObject({
    name: 'Dexcom',
    formComponents: { username: expect.any(Object), password: expect.any(Object) },
  });

  // A token may fix one provider, or filter them.
  const fixed = await client.link.token({ userId, provider: 'oura' });
  expect((await client.link.getAllProviders({ vitalLinkToken: fixed.linkToken })).map((p) => p.slug)).toEqual(['oura']);
  const filtered = await client.link.token({ userId, filterOnProviders: ['fitbit', 'dexcom'] });
  expect((await client.link.getAllProviders({ vitalLinkToken: filtered.linkToken })).map((p) => p.slug)).toEqual(['fitbit', 'dexcom']);
  const started = await client.link.startConnect({ linkToken: filtered.linkToken, provider: 'dexcom' });
  expect(started).toMatchObject({ success: true, provider: 'dexcom', auth_type: 'password' });
  expect(await client.link.tokenState({ vitalLinkToken: filtered.linkToken })).toMatchObject({ state: 'pending', provider: 'dexcom', connected: false });
  const refusedStart = await call(stack.apiUrl, 'POST', '/v2/link/start', { body: { link_token: filtered.linkToken, provider: 'oura' } });
  expect(refusedStart).toMatchObject({ status: 400, body: { detail: 'This link token does not offer oura.' } });

  // Another team's token is not valid for this team; an unknown one is not valid at all.
  const other = await createTenant(stack.db);
  expect(await api('POST', '/v2/link/token/isValid', { token: linkToken }, other.apiKey)).toMatchObject({
    status: 200,
    body: { success: false, error_type: 'invalid_token' },
  });
  expect(await api('POST', '/v2/link/token/isValid', { token: 'lnk_nothing' })).toMatchObject({
    status: 200,
    body: { success: false, error_type: 'invalid_token' },
  });
});

test('refused link tokens: unknown user, providers labflow cannot connect, bad redirect settings', async () => {
  const userId = await createUser();
  expect(await api('POST', '/v2/link/token', { user_id: randomUUID() })).toMatchObject({ status: 404, body: { detail: 'User not found.' } });
  const other = await createTenant(stack.db);
  expect(await api('POST', '/v2/link/token', { user_id: userId }, other.apiKey)).toMatchObject({ status: 404 });
  const garmin = await api('POST', '/v2/link/token', { user_id: userId, provider: 'garmin' });
  expect(garmin.status).toBe(400);
  expect(garmin.body.detail).toMatch(/^garmin cannot be connected through Link in the sandbox; these can: .*oura/);
  expect(await api('POST', '/v2/link/token', { user_id: userId, provider: 'oura', filter_on_providers: ['fitbit'] })).toMatchObject({
    status: 400,
    body: { detail: 'provider oura is not among filter_on_providers.' },
  });
  expect(await api('POST', '/v2/link/token', { user_id: userId, on_error: 'redirect' })).toMatchObject({ status: 400 });
  const badUrl = await api('POST', '/v2/link/token', { user_id: userId, redirect_url: 'javascript:alert(1)' });
  expect(badUrl.status).toBe(422);
  expect(await api('POST', '/v2/link/token', { user_id: userId }, 'not-a-key')).toMatchObject({ status: 401 });
  // Routes of the link token refuse without one.
  expect(await call(stack.apiUrl, 'GET', '/v2/link/providers')).toMatchObject({
    status: 401,
    body: { detail: 'Send the link token in the x-vital-link-token header.' },
  });
  expect(await withToken('GET', '/v2/link/state', 'lnk_unknown')).toMatchObject({ status: 401, body: { detail: 'The link token is not valid.' } });
});

test('OAuth: the consent page, the callback, the connection, its announcement, and the token used up', async () => {
  const userId = await createUser();
  const { linkToken } = await client.link.token({ userId, redirectUrl: 'https://app.example.com/done?from=link' });
  const source = await client.link.generateOauthLink('oura', { vitalLinkToken: linkToken });
  expect(source).toMatchObject({ slug: 'oura', name: 'Oura', authType: 'oauth', isActive: true });
  expect(new URL(source.oauthUrl as string).pathname).toBe('/link/sandbox/oauth/oura');
  expect(new URL(source.oauthUrl as string).searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{32}$/);

  // The sandbox consent page, then "Allow": back to labflow, which connects and redirects to the team.
  const consent = await visit(source.oauthUrl as string);
  expect(consent.status).toBe(200);
  const allow = /href="([^"]+)">Allow<\/a>/.exec(consent.text)?.[1].replace(/&amp;/g, '&');
  expect(allow).toMatch(/^\/v2\/link\/connect\/oura\?state=.+&code=sandbox-granted/);
  const back = await visit(allow as string);
  expect(back.status).toBe(303);
  const done = new URL(back.location as string);
  expect(done.origin + done.pathname).toBe('https://app.example.com/done');
  expect(Object.fromEntries(done.searchParams)).toEqual({ from: 'link', state: 'success', provider: 'oura' });

  expect(await connectedProviders(userId)).toEqual(['oura']);
  const event = await announced(userId, 'oura');
  expect(event.verified).toBe(true);
  expect(event.json.data).toMatchObject({ user_id: userId, source: { slug: 'oura' } });
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'success', provider: 'oura', connected: true });

  // Once only: the token is used up, and the same callback again changes nothing.
  const again = await withToken('GET', '/v2/link/provider/oauth/fitbit', linkToken);
  expect(again).toMatchObject({ status: 401, body: { detail: expect.stringMatching(/^The link token was used already/) } });
  expect(await client.link.isTokenValid({ token: linkToken })).toMatchObject({ success: false, error_type: 'token_consumed' });
  expect((await visit(allow as string)).status).toBe(400);
  expect(await connectedProviders(userId)).toEqual(['oura']);
});

test('OAuth refused: denied, or without a scope the source needs; with on_error the browser goes to the team', async () => {
  const userId = await createUser();
  const { linkToken } = await client.link.token({ userId, provider: 'fitbit' });
  const denyUrl = async () => {
    const source = await client.link.generateOauthLink('fitbit', { vitalLinkToken: linkToken });
    const consent = await visit(source.oauthUrl as string);
    return {
      deny: /href="([^"]+)">Deny<\/a>/.exec(consent.text)?.[1].replace(/&amp;/g, '&') as string,
      partial: /href="([^"]+)">Allow without heart rate<\/a>/.exec(consent.text)?.[1].replace(/&amp;/g, '&') as string,
    };
  };
  const denied = await visit((await denyUrl()).deny);
  expect(denied.status).toBe(400);
  expect(denied.text).toContain('Access to fitbit was not granted.');
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'error', error_type: 'user_cancelled' });
  const partial = await visit((await denyUrl()).partial);
  expect(partial.status).toBe(400);
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'error', error_type: 'required_scopes_not_granted' });
  expect(await connectedProviders(userId)).toEqual([]);

  const redirecting = await client.link.token({ userId, redirectUrl: 'https://app.example.com/linked', onError: 'redirect' });
  const source = await client.link.generateOauthLink('fitbit', { vitalLinkToken: redirecting.linkToken });
  const consent = await visit(source.oauthUrl as string);
  const deny = /href="([^"]+)">Deny<\/a>/.exec(consent.text)?.[1].replace(/&amp;/g, '&') as string;
  const back = await visit(deny);
  expect(back.status).toBe(303);
  expect(Object.fromEntries(new URL(back.location as string).searchParams)).toMatchObject({ state: 'error', provider: 'fitbit', error_type: 'user_cancelled' });
});

test('password with a second factor: wrong password, the code asked, a wrong code, then connected', async () => {
  const userId = await createUser();
  const { linkToken } = await client.link.token({ userId, redirectUrl: 'https://app.example.com/linked' });
  const wrong = await client.link.connectPasswordProvider('abbott_libreview', {
    vitalLinkToken: linkToken,
    username: 'ana@example.com',
    password: 'wrong-password',
  });
  expect(wrong).toMatchObject({ state: 'error', connected: false, provider: 'abbott_libreview', errorType: 'provider_credential_error' });
  expect(wrong.redirectUrl ?? null).toBeNull();

  const mfa = await client.link.connectPasswordProvider('abbott_libreview', { vitalLinkToken: linkToken, username: 'mfa-ana@example.com', password: 'secret' });
  expect(mfa).toMatchObject({ state: 'pending_provider_mfa', connected: false, providerMfa: { method: 'sms', hint: '•••-•••-0123' } });
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'pending_provider_mfa', provider: 'abbott_libreview' });
  const wrongCode = await client.link.completePasswordProviderMfa('abbott_libreview', { vitalLinkToken: linkToken, mfaCode: '000000' });
  expect(wrongCode).toMatchObject({ state: 'error', errorType: 'incorrect_mfa_code' });
  // The code is asked again only after the password: a second factor without a first is refused.
  const noFirst = await withToken('POST', '/v2/link/provider/password/abbott_libreview/complete_mfa', linkToken, { mfa_code: '123456' });
  expect(noFirst).toMatchObject({
    status: 400,
    body: { detail: 'No sign-in to abbott_libreview is waiting for a code: send the username and password first.' },
  });

  await client.link.connectPasswordProvider('abbott_libreview', { vitalLinkToken: linkToken, username: 'mfa-ana@example.com', password: 'secret' });
  const connected = await client.link.completePasswordProviderMfa('abbott_libreview', { vitalLinkToken: linkToken, mfaCode: '123456' });
  expect(connected).toMatchObject({ state: 'success', connected: true, provider: 'abbott_libreview' });
  expect(Object.fromEntries(new URL(connected.redirectUrl as string).searchParams)).toEqual({ state: 'success', provider: 'abbott_libreview' });
  expect(await connectedProviders(userId)).toEqual(['abbott_libreview']);
  expect((await announced(userId, 'abbott_libreview')).verified).toBe(true);

  // The password route refuses another provider's auth type, and bad bodies get a 422.
  const other = await client.link.token({ userId });
  expect(await withToken('POST', '/v2/link/provider/password/oura', other.linkToken, { username: 'a', password: 'b' })).toMatchObject({
    status: 400,
    body: { detail: 'oura is connected by oauth, not password.' },
  });
  expect((await withToken('POST', '/v2/link/provider/password/dexcom', other.linkToken, { username: '' })).status).toBe(422);
});

test('e-mail invitation (Freestyle Libre): declined, then accepted', async () => {
  const userId = await createUser();
  const { linkToken } = await client.link.token({ userId });
  const declined = await withToken('POST', '/v2/link/provider/email/freestyle_libre', linkToken, { email: 'ana+decline@example.com' });
  expect(declined).toMatchObject({ status: 200, body: { state: 'error', error_type: 'user_cancelled' } });
  await client.link.connectEmailAuthProvider('freestyle_libre', { vitalLinkToken: linkToken, email: 'ana@example.com' });
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'success', provider: 'freestyle_libre' });
  expect(await connectedProviders(userId)).toEqual(['freestyle_libre']);
});

test('the deprecated aliases POST /v2/link/auth and /v2/link/auth/email connect as the provider routes do', async () => {
  const userId = await createUser();
  const password = await client.link.token({ userId });
  const viaAuth = await withToken('POST', '/v2/link/auth', password.linkToken, {
    provider: 'dexcom',
    auth_type: 'password',
    username: 'ana',
    password: 'secret',
  });
  expect(viaAuth).toMatchObject({ status: 200, body: { state: 'success', connected: true, provider: 'dexcom' } });
  const email = await client.link.token({ userId });
  const viaEmail = await withToken('POST', '/v2/link/auth/email', email.linkToken, {
    provider: 'freestyle_libre',
    auth_type: 'email',
    email: 'ana@example.com',
  });
  expect(viaEmail).toMatchObject({ status: 200, body: { state: 'success', connected: true, provider: 'freestyle_libre' } });
  expect((await connectedProviders(userId)).sort()).toEqual(['dexcom', 'freestyle_libre']);
  // The provider's auth type is checked as on the provider routes.
  const other = await client.link.token({ userId });
  expect(await withToken('POST', '/v2/link/auth', other.linkToken, { provider: 'oura', auth_type: 'password', username: 'a', password: 'b' })).toMatchObject({
    status: 400,
    body: { detail: 'oura is connected by oauth, not password.' },
  });
});

test('an expired token: refused for sign-in, its state says why', async () => {
  const userId = await createUser();
  const { linkToken } = await client.link.token({ userId });
  await stack.db.query(`UPDATE link_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [userId]);
  const refused = await withToken('POST', '/v2/link/provider/password/dexcom', linkToken, { username: 'a', password: 'b' });
  expect(refused).toMatchObject({ status: 401, body: { detail: 'The link token has expired: ask for a new one.' } });
  expect(await client.link.tokenState({ vitalLinkToken: linkToken })).toMatchObject({ state: 'error', error_type: 'token_expired' });
  expect(await client.link.isTokenValid({ token: linkToken })).toMatchObject({ success: false, error_type: 'token_expired' });
  await expect(client.link.getAllProviders({ vitalLinkToken: 'lnk_unknown' })).rejects.toBeInstanceOf(VitalError);
});

test('the hosted Link page: providers in forms, a password sign-in with its code, then done', async () => {
  const userId = await createUser();
  const { linkWebUrl, linkToken } = await client.link.token({ userId, filterOnProviders: ['dexcom', 'oura'] });
  const page = await visit(linkWebUrl);
  expect(page.status).toBe(200);
  expect(page.text).toContain('<h2 id="p-dexcom">Dexcom</h2>');
  expect(page.text).toContain(`href="/link/oauth/oura?token=${encodeURIComponent(linkToken)}"`);
  expect(page.text).not.toContain('Freestyle Libre');
  expect(page.text).toContain('Contact the app that sent you here.');
  expect(page.text).not.toContain('>Close</a>');
  // With on_close: redirect, the page offers a way back to the team that says the user cancelled.
  const closable = await client.link.token({ userId, redirectUrl: 'https://app.example.com/linked', onClose: 'redirect' });
  const close = /href="([^"]+)">Close<\/a>/.exec((await visit(closable.linkWebUrl)).text)?.[1].replace(/&amp;/g, '&') as string;
  expect(Object.fromEntries(new URL(close).searchParams)).toEqual({ state: 'error', error_type: 'user_cancelled', error: 'The user closed Link.' });

  const post = (path: string, form: Record<string, string>) =>
    fetch(new URL(path, stack.apiUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  const wrong = await post('/link/password/dexcom', { token: linkToken, username: 'ana', password: 'wrong-password' });
  expect(wrong.status).toBe(422);
  expect(await wrong.text()).toContain('The username or password is not correct.');
  const asked = await post('/link/password/dexcom', { token: linkToken, username: 'mfa-ana', password: 'secret' });
  expect(asked.status).toBe(200);
  expect(await asked.text()).toContain('Dexcom sent a code by sms to •••-•••-0123.');
  const done = await post('/link/password/dexcom/mfa', { token: linkToken, mfa_code: '123456' });
  expect(done.status).toBe(200);
  expect(await done.text()).toContain('Dexcom is connected');
  expect(await connectedProviders(userId)).toEqual(['dexcom']);

  // The same link again: used up, and it says so.
  const used = await visit(linkWebUrl);
  expect(used.status).toBe(410);
  expect(used.text).toContain('The link token was used already');
  expect((await visit('/link?token=lnk_unknown')).status).toBe(404);
});

test("manual sources the user's phone pushes: connected at once, announced once, no workflow, refreshed by nobody", async () => {
  const userId = await createUser();
  expect(await client.link.connectManualProvider('apple_health_kit', { userId, providerId: 'hk-device-7' })).toEqual({ success: true });
  expect(await client.link.connectManualProvider('apple_health_kit', { userId })).toEqual({ success: true });
  expect(await client.link.connectManualProvider('omron_ble', { userId })).toEqual({ success: true });

  const { providers } = await client.user.getConnectedProviders(userId);
  expect(providers.map((p) => [p.slug, p.status, p.externalUserId])).toEqual([
    ['apple_health_kit', 'connected', 'hk-device-7'],
    ['omron_ble', 'connected', expect.stringMatching(/^[0-9a-f-]{36}$/)],
  ]);
  expect(providers[1].name).toBe('Omron (Bluetooth)');
  const event = await announced(userId, 'apple_health_kit');
  expect(event.verified).toBe(true);
  expect(event.json.data).toMatchObject({ user_id: userId, external_user_id: 'hk-device-7', source: { slug: 'apple_health_kit', name: 'Apple HealthKit' } });
  await announced(userId, 'omron_ble');
  expect(receiver.requests.filter((r) => r.json?.user_id === userId && r.json.data?.source?.slug === 'apple_health_kit')).toHaveLength(1);

  // labflow fetches nothing for them: no workflow, and a refresh has nothing to ask.
  await expect(stack.temporal.workflow.getHandle(`connection:${userId}:apple_health_kit`).describe()).rejects.toThrow();
  expect(await client.user.refresh(userId)).toMatchObject({ refreshedSources: [], inProgressSources: [], failedSources: [] });
  // Deregistered like any connection.
  expect(await client.user.deregisterProvider(userId, 'omron_ble')).toEqual({ success: true });
  expect(await connectedProviders(userId)).toEqual(['apple_health_kit']);

  // Only the SDK's manual providers; only the team's own users.
  const oura = await api('POST', '/v2/link/provider/manual/oura', { user_id: userId });
  expect(oura.status).toBe(422);
  expect(oura.body.detail[0]).toMatchObject({ loc: ['path', 'provider'] });
  const other = await createTenant(stack.db);
  expect(await api('POST', '/v2/link/provider/manual/manual', { user_id: userId }, other.apiKey)).toMatchObject({
    status: 404,
    body: { detail: 'User not found.' },
  });
});

test("the team's metrics (GET /v2/user/metrics): users, connections, those in error, by week", async () => {
  const team = await createTenant(stack.db);
  const teamClient = new VitalClient({ baseUrl: stack.apiUrl, apiKey: team.apiKey, headers: { 'x-service-api-key': team.apiKey }, maxRetries: 0 });
  const empty = await teamClient.user.getTeamMetrics();
  expect(empty).toMatchObject({
    teamId: team.teamId,
    numberOfUsers: 0,
    numberOfConnectedSources: 0,
    numberOfErroredConnectedSources: 0,
    numberOfOrderedTests: 0,
  });

  const users = await Promise.all([1, 2].map(() => teamClient.user.create({ clientUserId: `metrics-${randomUUID()}` })));
  await teamClient.link.connectManualProvider('apple_health_kit', { userId: users[0].userId });
  await teamClient.link.connectManualProvider('health_connect', { userId: users[1].userId });
  await stack.db.query(
    `UPDATE provider_connections SET status = 'error', error_type = 'unknown', error_message = 'test', errored_at = now() WHERE user_id = $1`,
    [users[1].userId],
  );
  // A user being deleted is not counted.
  const leaving = await teamClient.user.create({ clientUserId: `metrics-${randomUUID()}` });
  await teamClient.user.delete(leaving.userId);

  const metrics = await teamClient.user.getTeamMetrics();
  expect(metrics).toMatchObject({ numberOfUsers: 2, numberOfConnectedSources: 2, numberOfErroredConnectedSources: 1, numberOfOrderedTests: 0 });
  const weeks = metrics.numberOfConnectedSourcesByWeek ?? [];
  expect(weeks).toHaveLength(12);
  expect(weeks.at(-1)).toMatchObject({ value: 2, all: 2 });
  expect(weeks.slice(0, -1).every((week) => week.value === 0 && week.all === 0)).toBe(true);
  const monday = new Date(weeks.at(-1)?.date as Date);
  expect([monday.getUTCDay(), monday.getUTCHours()]).toEqual([1, 0]);
  expect(Date.now() - monday.getTime()).toBeLessThan(7 * 86_400_000);
});
