import { temporal } from '@temporalio/proto';
import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import type { ProviderCredentials } from '../../src/adapters/sources/source-adapter';
import { connectionState, connectionWorkflowId } from '../../workflows/contract';
import { FakeWhoop } from '../helpers/fake-whoop';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * A real WHOOP strap end to end: a production team's member connects WHOOP through Link
 * (labflow's OAuth client at WHOOP, here a local stand-in speaking WHOOP's published API v2,
 * test/helpers/fake-whoop.ts), and the connection's workflow fetches the sleeps with their
 * recoveries, the workouts and the cycles into the sleep, workouts and activity summaries.
 * Tokens are kept encrypted; an expired access token is refreshed and the rotated pair kept; a
 * revoked grant is the connection's error; deregistering ends the access at WHOOP.
 */
let stack: TestStack;
let whoop: FakeWhoop;
let team: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

const DAY_MS = 86_400_000;
const REDIRECT = 'https://app.example.com/linked';

beforeAll(async () => {
  whoop = await FakeWhoop.start({ pageSize: 2 });
  stack = await startStack({
    management: true,
    events: true,
    env: {
      CONNECTION_BACKFILL_DAYS: '4',
      CONNECTION_BACKFILL_CHUNK: '4d',
      CONNECTION_SYNC_INTERVAL: '1h',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      PUBLIC_API_URL: 'https://labflow.test',
      ...whoop.labflowEnv(),
    },
  });
  team = await createTenant(stack.db, { environment: 'production' });
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: team.apiKey, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, team, 'production', receiver, '/whoop', ['provider.connection.created', 'provider.connection.error']);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await whoop?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: team.apiKey, body });
const isoDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `strap-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

/** A link token for WHOOP, and the WHOOP page Link sends the member's browser to. */
async function beginWhoop(userId: string): Promise<URL> {
  const token = await api('POST', '/v2/link/token', { user_id: userId, provider: 'whoop_v2', redirect_url: REDIRECT, on_error: 'redirect' });
  expect(token.status).toBe(200);
  const begin = await call(stack.apiUrl, 'GET', '/v2/link/provider/oauth/whoop_v2', { headers: { 'x-vital-link-token': token.body.link_token } });
  expect(begin.status).toBe(200);
  return new URL(begin.body.oauth_url);
}

/** The browser at WHOOP (deciding as `nextAuthorization` says) and back to labflow; answers where labflow sends it then. */
async function signIn(authorizeUrl: URL): Promise<URL> {
  const atWhoop = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(atWhoop.status).toBe(302);
  const back = new URL(atWhoop.headers.get('location') as string);
  expect(back.pathname).toBe('/v2/link/connect/whoop_v2');
  const atLabflow = await fetch(`${stack.apiUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  expect(atLabflow.status).toBe(303);
  return new URL(atLabflow.headers.get('location') as string);
}

async function backfilled(userId: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'whoop_v2'));
  await waitFor(
    async () => {
      const { progress } = await handle.query(connectionState);
      return progress.syncedUntil >= progress.backfillTo ? true : undefined;
    },
    { timeoutMs: 60_000, describe: () => handle.query(connectionState) },
  );
}

/** How many signals a connection workflow's run (its current one unless `runId` is given) has in its history. */
async function signalsIn(workflowId: string, runId?: string): Promise<number> {
  const { events } = await stack.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  return (events ?? []).filter((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED).length;
}

async function storedCredentials(userId: string): Promise<ProviderCredentials> {
  const [row] = await stack.db.query(`SELECT credentials_enc FROM provider_connections WHERE user_id = $1 AND provider = 'whoop_v2'`, [userId]);
  return new PhiCipher(stack.config.phiEncryptionKey).decryptJson<ProviderCredentials>(row.credentials_enc);
}

function webhooks(userId: string, eventType: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.json?.event_type === eventType && request.json.user_id === userId);
}

/** A WHOOP member (New York) with the last three days and today so far, connected to a new labflow user through Link and backfilled. */
async function connectedMember(): Promise<{ member: string; userId: string }> {
  const member = whoop.addUser({ timezoneOffset: '-05:00' });
  whoop.seedDays(member, isoDay(Date.now() - 3 * DAY_MS), 4);
  const userId = await createUser();
  const authorize = await beginWhoop(userId);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${whoop.url}/oauth/oauth2/auth`);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ response_type: 'code', client_id: whoop.clientId });
  expect(authorize.searchParams.get('scope')?.split(' ').sort()).toEqual([
    'offline',
    'read:cycles',
    'read:profile',
    'read:recovery',
    'read:sleep',
    'read:workout',
  ]);
  whoop.nextAuthorization({ userId: member });
  const done = await signIn(authorize);
  expect(Object.fromEntries(done.searchParams)).toMatchObject({ state: 'success', provider: 'whoop_v2' });
  await backfilled(userId);
  return { member, userId };
}

const range = () => ({ startDate: isoDay(Date.now() - 6 * DAY_MS), endDate: isoDay(Date.now() + DAY_MS) });

test("a production member connects WHOOP through Link: sleeps with their recoveries, workouts and cycles are the user's summaries, value by value", async () => {
  const { member, userId } = await connectedMember();
  const atWhoop = whoop.data(member);
  const now = Date.now();

  // WHOOP's daily request limit: its connections sync every 2 h (CONNECTION_SYNC_INTERVALS' default), not every CONNECTION_SYNC_INTERVAL (1 h here).
  const history = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'whoop_v2'));
  const timer = await waitFor(async () =>
    (await history.fetchHistory()).events?.find((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_STARTED),
  );
  expect(Number(timer.timerStartedEventAttributes?.startToFireTimeout?.seconds)).toBe(2 * 3600);

  const [row] = await stack.db.query(`SELECT external_user_id, status FROM provider_connections WHERE user_id = $1 AND provider = 'whoop_v2'`, [userId]);
  expect(row).toEqual({ external_user_id: member, status: 'connected' });
  const created = await waitFor(() => webhooks(userId, 'provider.connection.created')[0]);
  expect(created.verified).toBe(true);
  expect(created.json.data).toMatchObject({
    provider: { slug: 'whoop_v2' },
    external_user_id: member,
    resource_availability: {
      sleep: { status: 'available' },
      workouts: { status: 'available' },
      activity: { status: 'available' },
      hrv: { status: 'available' },
    },
  });

  // Every sleep WHOOP scored (the nights and the nap), with the recovery WHOOP made of it.
  const recoveryOf = new Map(atWhoop.recoveries.map((recovery) => [recovery.sleep_id, recovery]));
  const scoredSleeps = atWhoop.sleeps.filter((sleep) => sleep.score_state === 'SCORED' && Date.parse(sleep.start) < now);
  expect(scoredSleeps.some((sleep) => sleep.nap)).toBe(true);
  const { sleep } = await client.sleep.get(userId, range());
  const byStart = (a: { at: number }, b: { at: number }) => a.at - b.at;
  expect(
    sleep
      .map((night) => ({
        at: night.bedtimeStart.getTime(),
        type: night.type,
        deep: night.deep,
        rem: night.rem,
        light: night.light,
        hrResting: night.hrResting ?? null,
        offset: night.timezoneOffset,
      }))
      .sort(byStart),
  ).toEqual(
    scoredSleeps
      .map((night) => ({
        at: Date.parse(night.start),
        type: night.nap ? 'acknowledged_nap' : 'long_sleep',
        deep: Math.round(night.score!.stage_summary.total_slow_wave_sleep_time_milli / 1000),
        rem: Math.round(night.score!.stage_summary.total_rem_sleep_time_milli / 1000),
        light: Math.round(night.score!.stage_summary.total_light_sleep_time_milli / 1000),
        hrResting: recoveryOf.get(night.id)?.score?.resting_heart_rate ?? null,
        offset: -5 * 3600,
      }))
      .sort(byStart),
  );

  // The recoveries' HRV as the hrv timeseries: one sample at the end of each sleep WHOOP made a recovery of.
  const hrv = await client.vitals.hrv(userId, { startDate: new Date(now - 6 * DAY_MS).toISOString(), endDate: new Date(now + DAY_MS).toISOString() });
  const withRecovery = scoredSleeps.filter((night) => recoveryOf.get(night.id)?.score_state === 'SCORED');
  expect(withRecovery.length).toBeGreaterThan(1);
  expect(hrv.map((sample) => [sample.timestamp.getTime(), sample.value]).sort()).toEqual(
    withRecovery.map((night) => [Date.parse(night.end), recoveryOf.get(night.id)!.score!.hrv_rmssd_milli]).sort(),
  );

  // Every scored workout, by WHOOP's id, its energy in kcal.
  const scoredWorkouts = atWhoop.workouts.filter((workout) => workout.score_state === 'SCORED' && Date.parse(workout.start) < now);
  expect(scoredWorkouts.length).toBeGreaterThan(0);
  const { workouts } = await client.workouts.get(userId, range());
  expect(workouts.map((workout) => [workout.providerId, workout.sport?.slug, workout.calories, workout.distance ?? null]).sort()).toEqual(
    scoredWorkouts
      .map((workout) => [workout.id, 'running', Math.round((workout.score!.kilojoule / 4.184) * 10) / 10, workout.score!.distance_meter ?? null])
      .sort(),
  );

  // Every scored cycle as the activity of the day it covers.
  const scoredCycles = atWhoop.cycles.filter((cycle) => cycle.score_state === 'SCORED' && Date.parse(cycle.start) < now);
  const { activity } = await client.activity.get(userId, range());
  const localDayOf = (epochMs: number) => isoDay(epochMs - 5 * 3_600_000);
  expect(activity.map((day) => [day.calendarDate, day.caloriesTotal]).sort()).toEqual(
    scoredCycles.map((cycle) => [localDayOf(Date.parse(cycle.start) + 12 * 3_600_000), Math.round((cycle.score!.kilojoule / 4.184) * 10) / 10]).sort(),
  );

  // The member corrects last night's bedtime in WHOOP: after a sync the night has moved, not doubled.
  // (Earlier, not later: a night that began minutes ago moved later would begin after the pull's
  // window ends, now, where WHOOP's collections would not return it.)
  const lastNight = scoredSleeps.filter((night) => !night.nap).sort((a, b) => Date.parse(b.start) - Date.parse(a.start))[0];
  const corrected = Date.parse(lastNight.start) - 20 * 60_000;
  lastNight.start = new Date(corrected).toISOString();
  lastNight.updated_at = new Date().toISOString();
  const refreshed = await api('POST', `/v2/user/refresh/${userId}?timeout=20`);
  expect(refreshed.body.refreshed_sources).toEqual(['whoop_v2']);
  const after = (await client.sleep.get(userId, range())).sleep;
  expect(after).toHaveLength(sleep.length);
  expect(after.map((night) => night.bedtimeStart.getTime())).toContain(corrected);

  // WHOOP's pages were all read (two records a page here), each with the token of this member.
  expect(whoop.requests.filter((request) => request.path === '/developer/v2/activity/sleep' && request.query.nextToken).length).toBeGreaterThan(0);
  const tokens = await storedCredentials(userId);
  expect(tokens.refreshToken).toBeTruthy();
});

test('a refresh asked while a sync is still fetching answers only after a sync that began after it: a correction made meanwhile is in the data', async () => {
  const { member, userId } = await connectedMember();
  await api('POST', `/v2/user/refresh/${userId}?timeout=20`); // whatever the connection had under way is done
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'whoop_v2'));
  const signalsReceived = () => signalsIn(handle.workflowId);

  // A sync reads the sleeps, then waits at WHOOP for its last page (cycles) …
  const cycles = whoop.holdNext('/developer/v2/cycle');
  expect((await api('POST', `/v2/user/refresh/${userId}`)).body.in_progress_sources).toEqual(['whoop_v2']);
  await cycles.reached;
  // … while the member corrects last night's bedtime, and the team asks for a refresh.
  const lastNight = whoop
    .data(member)
    .sleeps.filter((night) => !night.nap && night.score_state === 'SCORED' && Date.parse(night.start) < Date.now())
    .sort((a, b) => Date.parse(b.start) - Date.parse(a.start))[0];
  // (Earlier: moved later, a night begun minutes ago would begin after the pull's window, now.)
  const corrected = Date.parse(lastNight.start) - 20 * 60_000;
  lastNight.start = new Date(corrected).toISOString();
  lastNight.updated_at = new Date().toISOString();
  const signalsBefore = await signalsReceived();
  const refresh = api('POST', `/v2/user/refresh/${userId}?timeout=30`);
  await waitFor(async () => ((await signalsReceived()) > signalsBefore ? true : undefined));
  // The sync that read the sleeps before the correction ends now: it is not the refresh asked for.
  cycles.release();
  expect((await refresh).body.refreshed_sources).toEqual(['whoop_v2']);
  const { sleep } = await client.sleep.get(userId, range());
  expect(sleep.map((night) => night.bedtimeStart.getTime())).toContain(corrected);
});

test("an expired access token is refreshed and the rotated pair kept; a revoked grant is the connection's error, once", async () => {
  const { member, userId } = await connectedMember();
  const before = await storedCredentials(userId);

  whoop.expireAccessTokens();
  const refreshed = await api('POST', `/v2/user/refresh/${userId}?timeout=20`);
  expect(refreshed.body.refreshed_sources).toEqual(['whoop_v2']);
  const after = await storedCredentials(userId);
  expect(after.refreshToken).not.toBe(before.refreshToken);
  expect(whoop.refreshTokenUsed(before.refreshToken as string)).toBe(true);

  whoop.revoke(member);
  whoop.expireAccessTokens();
  await api('POST', `/v2/user/refresh/${userId}?timeout=20`);
  const error = await waitFor(() => webhooks(userId, 'provider.connection.error')[0]);
  expect(error.verified).toBe(true);
  expect(error.json.data).toMatchObject({ provider: 'whoop_v2', error_type: 'token_refresh_failed' });
  const providers = await client.user.getConnectedProviders(userId);
  expect(providers.providers.find((provider) => provider.slug === 'whoop_v2')).toMatchObject({ status: 'error' });
  await api('POST', `/v2/user/refresh/${userId}?timeout=2`);
  expect(webhooks(userId, 'provider.connection.error')).toHaveLength(1);
});

test("deregistering ends labflow's access at WHOOP; denying on WHOOP's page is user_cancelled; sandbox teams are not offered whoop_v2", async () => {
  const { member, userId } = await connectedMember();
  const { accessToken } = await storedCredentials(userId);
  expect((await client.user.deregisterProvider(userId, 'whoop_v2')).success).toBe(true);
  expect(whoop.accessRevokedByClient(member)).toBe(true);
  expect((await fetch(`${whoop.url}/developer/v2/user/profile/basic`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
  expect(await stack.db.query(`SELECT 1 FROM provider_connections WHERE user_id = $1`, [userId])).toEqual([]);

  const another = await createUser();
  whoop.nextAuthorization({ userId: whoop.addUser(), deny: true });
  const done = await signIn(await beginWhoop(another));
  expect(Object.fromEntries(done.searchParams)).toMatchObject({ state: 'error', error_type: 'user_cancelled' });

  const sandbox = await createTenant(stack.db, { environment: 'sandbox' });
  const sandboxUser = await call(stack.apiUrl, 'POST', '/v2/user', { key: sandbox.apiKey, body: { client_user_id: `strap-${randomUUID()}` } });
  const token = await call(stack.apiUrl, 'POST', '/v2/link/token', { key: sandbox.apiKey, body: { user_id: sandboxUser.body.user_id, provider: 'whoop_v2' } });
  expect(token.status).toBe(400);
  expect(token.body.detail).toMatch(/whoop_v2/);
});

test("WHOOP's webhook syncs the member's connection at once; a forged or stale signature, a deletion and an unknown member ask nothing", async () => {
  const { member, userId } = await connectedMember();
  const hook = `${stack.apiUrl}/v3/webhooks/provider/whoop_v2`;
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'whoop_v2'));
  const { runId } = await handle.describe();
  // The signals the connection's run has received. While the run is idle (here: its timer is 2 h
  // away) a signal is in its history before the signal call returns; one that arrives during a
  // workflow task is written when that task ends.
  const signalsReceived = () => signalsIn(handle.workflowId, runId);
  const signalsBefore = await signalsReceived();
  const lastNight = whoop
    .data(member)
    .sleeps.filter((night) => !night.nap && night.score_state === 'SCORED' && Date.parse(night.start) < Date.now())
    .sort((a, b) => Date.parse(b.start) - Date.parse(a.start))[0];
  const update = { userId: member, id: lastNight.id, type: 'sleep.updated' };

  const forged = await whoop.sendWebhook(hook, update, { signWith: 'not-labflows-client-secret' });
  expect(forged.status).toBe(401);
  expect(JSON.parse(forged.body).detail).toBe('Invalid WHOOP webhook signature.');
  const stale = await whoop.sendWebhook(hook, update, { timestampMs: Date.now() - 10 * 60_000 });
  expect(stale.status).toBe(401);
  expect(JSON.parse(stale.body).detail).toMatch(/x-whoop-signature-timestamp/);
  expect((await whoop.sendWebhook(hook, { ...update, type: 'sleep.deleted' })).status).toBe(204);
  expect((await whoop.sendWebhook(hook, { userId: whoop.addUser(), id: randomUUID(), type: 'sleep.updated' })).status).toBe(204);
  expect(await signalsReceived()).toBe(signalsBefore);

  // The member corrects last night's bedtime in WHOOP; WHOOP says so, and the night moves without a refresh (the timer is 2 h away).
  const nights = (await client.sleep.get(userId, range())).sleep.length;
  const corrected = Date.parse(lastNight.start) - 25 * 60_000;
  lastNight.start = new Date(corrected).toISOString();
  lastNight.updated_at = new Date().toISOString();
  const sent = await whoop.sendWebhook(hook, update);
  expect(sent).toEqual({ status: 204, body: '' });
  await waitFor(async () => ((await signalsReceived()) === signalsBefore + 1 ? true : undefined));
  const after = await waitFor(async () => {
    const { sleep } = await client.sleep.get(userId, range());
    return sleep.some((night) => night.bedtimeStart.getTime() === corrected) ? sleep : undefined;
  });
  expect(after).toHaveLength(nights);

  // The member's id as a string is taken too; a body that names no member is a 422 naming the field.
  expect((await whoop.sendWebhook(hook, update, { body: { user_id: member, id: lastNight.id, type: 'workout.updated' } })).status).toBe(204);
  await waitFor(async () => ((await signalsReceived()) === signalsBefore + 2 ? true : undefined));
  const malformed = await whoop.sendWebhook(hook, update, { body: { user_id: 'member-7', type: 'sleep.updated' } });
  expect(malformed.status).toBe(422);
  expect(JSON.parse(malformed.body).detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual(
    expect.arrayContaining([
      ['body', 'user_id'],
      ['body', 'id'],
    ]),
  );
});
