import { VitalClient, VitalError } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import type { ProviderCredentials } from '../../src/adapters/sources/source-adapter';
import { connectionState, connectionWorkflowId, linkBulkOpWorkflowId } from '../../workflows/contract';
import { FakeOura } from '../helpers/fake-oura';
import { call, createTenant, startStack, subscribeWebhooks, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Junction's Link Migration with a real OAuth provider (Oura, here the local stand-in of
 * test/helpers/fake-oura.ts): a production team moves its users' Oura connections in from
 * another system (bulk import of their tokens), pulls their history again, and moves them out
 * (bulk pause, then bulk export of the tokens) — all through the SDK's routes, off until an org
 * admin enables it for the team.
 */
let stack: TestStack;
let oura: FakeOura;
let team: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;

const DAY_MS = 86_400_000;

beforeAll(async () => {
  oura = await FakeOura.start({ pageSize: 100 });
  stack = await startStack({
    management: true,
    events: true,
    env: {
      CONNECTION_BACKFILL_DAYS: '3',
      CONNECTION_BACKFILL_CHUNK: '3d',
      CONNECTION_SYNC_INTERVAL: '1h',
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
      LINK_BULK_PULL_BATCH: '1',
      LINK_BULK_PULL_INTERVAL: '100ms',
      PUBLIC_API_URL: 'https://labflow.test',
      ...oura.labflowEnv(),
    },
  });
  team = await createTenant(stack.db, { environment: 'production' });
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: team.apiKey, maxRetries: 0 });
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, team, 'production', receiver, '/migration', ['provider.connection.created', 'historical.data.sleep.created']);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await oura?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: team.apiKey, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `migrated-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

/** An Oura user with four days of data, and the tokens another system holds for it (Junction's ConnectionRecipe). */
function ouraUserWithTokens(userId: string) {
  const ouraUser = oura.addUser();
  oura.seedDays(ouraUser, isoDay(Date.now() - 3 * DAY_MS), 4);
  const tokens = oura.grantOutside(ouraUser);
  return {
    ouraUser,
    recipe: {
      user_id: userId,
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      provider_id: ouraUser,
      expires_at: Math.floor(Date.now() / 1000) + tokens.expires_in,
      oauth_scopes: ['daily', 'heartrate'],
    },
  };
}

async function enableMigration(tenant: Tenant = team): Promise<void> {
  const enabled = await teamManagementApi(stack, tenant)('PATCH', '', { link_migration_enabled: true });
  expect(enabled.status).toBe(200);
  expect(enabled.body.link_migration_enabled).toBe(true);
}

async function storedCredentials(userId: string): Promise<ProviderCredentials | null> {
  const [row] = await stack.db.query(`SELECT credentials_enc FROM provider_connections WHERE user_id = $1 AND provider = 'oura'`, [userId]);
  return row?.credentials_enc ? new PhiCipher(stack.config.phiEncryptionKey).decryptJson<ProviderCredentials>(row.credentials_enc) : null;
}

async function backfilled(userId: string): Promise<void> {
  const handle = stack.temporal.workflow.getHandle(connectionWorkflowId(userId, 'oura'));
  await waitFor(
    async () => {
      const { progress } = await handle.query(connectionState);
      return progress.syncedUntil >= progress.backfillTo ? true : undefined;
    },
    { timeoutMs: 60_000, describe: () => handle.query(connectionState) },
  );
}

function webhooks(userId: string, eventType: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.json?.event_type === eventType && request.json.user_id === userId);
}

async function ouraStatus(userId: string): Promise<string | undefined> {
  const providers = await api('GET', `/v2/user/providers/${userId}`);
  expect(providers.status).toBe(200);
  return (providers.body.providers as Array<{ slug: string; status: string }>).find((provider) => provider.slug === 'oura')?.status;
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

const userA = { id: '', ouraUser: '' };
const userB = { id: '', ouraUser: '' };

test('Link Migration is off until an org admin enables it: 403 with what to do, nothing written', async () => {
  const userId = await createUser();
  const { recipe } = ouraUserWithTokens(userId);
  const refused = await api('POST', '/v2/link/bulk_import', { provider: 'oura', connections: [recipe] });
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toMatch(/link_migration_enabled/);
  expect((await api('GET', '/v2/link/bulk_op')).status).toBe(403);
  expect((await api('POST', '/v2/link/bulk_export', { provider: 'oura' })).status).toBe(403);
  const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM link_bulk_ops WHERE team_id = $1`, [team.teamId]);
  expect(count).toBe(0);
  expect(await storedCredentials(userId)).toBeNull();
});

test('bad requests are refused with a {detail} naming what is wrong', async () => {
  await enableMigration();
  const userId = await createUser();
  const { recipe } = ouraUserWithTokens(userId);

  const notOauth = await api('POST', '/v2/link/bulk_import', { provider: 'fitbit', connections: [recipe] });
  expect(notOauth.status).toBe(400);
  expect(notOauth.body.detail).toMatch(/fitbit is not an OAuth provider labflow connects for production teams \(here: oura\)/);

  const repeated = await api('POST', '/v2/link/bulk_import', { provider: 'oura', connections: [recipe, { ...recipe, access_token: 'other' }] });
  expect(repeated.status).toBe(422);
  expect(JSON.stringify(repeated.body.detail)).toMatch(/connections\[1\]\.user_id repeats connections\[0\]\.user_id/);

  const missingToken = await api('POST', '/v2/link/bulk_import', { provider: 'oura', connections: [{ ...recipe, refresh_token: undefined }] });
  expect(missingToken.status).toBe(422);
  expect(JSON.stringify(missingToken.body.detail)).toMatch(/refresh_token/);

  const otherTeam = await call(stack.apiUrl, 'POST', `/v2/link/bulk_import?team_id=${randomUUID()}`, {
    key: team.apiKey,
    body: { provider: 'oura', connections: [recipe] },
  });
  expect(otherTeam.status).toBe(403);

  const badToken = await api('POST', '/v2/link/bulk_export', { provider: 'oura', next_token: 'not-a-token' });
  expect(badToken.status).toBe(400);
  expect(badToken.body.detail).toMatch(/next_token/);

  const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM link_bulk_ops WHERE team_id = $1`, [team.teamId]);
  expect(count).toBe(0);
});

test("bulk import through the SDK: the tokens become connections that fetch the users' Oura data; an unknown user fails alone", async () => {
  await enableMigration();
  userA.id = await createUser();
  userB.id = await createUser();
  const a = ouraUserWithTokens(userA.id);
  const b = ouraUserWithTokens(userB.id);
  userA.ouraUser = a.ouraUser;
  userB.ouraUser = b.ouraUser;
  const unknown = randomUUID();

  const imported = await call(stack.apiUrl, 'POST', '/v2/link/bulk_import', {
    key: team.apiKey,
    body: { provider: 'oura', connections: [a.recipe, b.recipe, { ...a.recipe, user_id: unknown }], wait_for_completion: true },
  });
  expect(imported.status).toBe(200);
  expect(imported.body).toEqual({ user_ids_imported: [userA.id, userB.id], user_ids_failed: [unknown] });

  for (const user of [userA, userB]) {
    expect(await ouraStatus(user.id)).toBe('connected');
    await backfilled(user.id);
    const [row] = await stack.db.query(`SELECT external_user_id FROM provider_connections WHERE user_id = $1 AND provider = 'oura'`, [user.id]);
    expect(row.external_user_id).toBe(user.ouraUser);
    await waitFor(() => webhooks(user.id, 'provider.connection.created').length === 1);
    // What Oura has is in labflow: the nights' sleep scores, as Oura scored them.
    const sleep = await client.sleep.get(user.id, { startDate: isoDay(Date.now() - 4 * DAY_MS), endDate: isoDay(Date.now() + DAY_MS) });
    const ouraScores = oura
      .data(user.ouraUser)
      .dailySleep.map((day) => day.score)
      .sort();
    expect(
      sleep.sleep
        .filter((night) => night.type === 'long_sleep')
        .map((night) => night.score)
        .sort(),
    ).toEqual(ouraScores);
  }
  const storedA = await storedCredentials(userA.id);
  expect(storedA).toMatchObject({ accessToken: a.recipe.access_token, refreshToken: a.recipe.refresh_token, scopes: ['daily', 'heartrate'] });

  // The submitted tokens are forgotten once their users are processed.
  const items = await stack.db.query(
    `SELECT i.credentials_enc, i.outcome, i.detail FROM link_bulk_op_items i JOIN link_bulk_ops o ON o.id = i.op_id WHERE o.team_id = $1 ORDER BY i.position`,
    [team.teamId],
  );
  expect(items).toEqual([
    { credentials_enc: null, outcome: 'done', detail: null },
    { credentials_enc: null, outcome: 'done', detail: null },
    { credentials_enc: null, outcome: 'failed', detail: 'User not found.' },
  ]);

  const ops = await client.link.listBulkOps();
  expect(ops.data).toHaveLength(1);
  expect(ops.data[0]).toMatchObject({ type: 'link_bulk_import', status: 'success', provider: 'oura', pending: 0, processed: 3 });
  expect(ops.data[0].endedAt).toBeInstanceOf(Date);
});

test('bulk historical pull: the history is fetched again, a second historical.data.* per connection; a user without one fails', async () => {
  expect(userA.id).not.toBe('');
  await waitFor(() => webhooks(userA.id, 'historical.data.sleep.created').length === 1);
  const before = oura.requests.filter((request) => request.userId === userA.ouraUser && request.path === '/v2/usercollection/sleep').length;
  const stranger = await createUser();

  await client.link.bulkTriggerHistoricalPull({ provider: 'oura', userIds: [userA.id, stranger], waitForCompletion: true });

  const [second] = await waitFor(() => {
    const events = webhooks(userA.id, 'historical.data.sleep.created');
    return events.length === 2 ? events.slice(1) : undefined;
  });
  expect(second.headers['webhook-id']).not.toBe(webhooks(userA.id, 'historical.data.sleep.created')[0].headers['webhook-id']);
  expect(second.json.data).toMatchObject({ provider: { slug: 'oura' } });
  expect(oura.requests.filter((request) => request.userId === userA.ouraUser && request.path === '/v2/usercollection/sleep').length).toBeGreaterThan(before);

  // `waitForCompletion` answers 202 at once when the pull takes over 20 s (a loaded machine): the
  // op is read once it has ended, not while the stranger's item is still pending.
  const ops = await waitFor(async () => {
    const page = await client.link.listBulkOps({ pageSize: 1 });
    return page.data[0]?.status === 'in_progress' ? undefined : page;
  });
  expect(ops.data[0]).toMatchObject({ type: 'link_bulk_historical_trigger', status: 'success', pending: 0, processed: 2 });
  const [failed] = await stack.db.query(
    `SELECT i.user_id, i.detail FROM link_bulk_op_items i JOIN link_bulk_ops o ON o.id = i.op_id WHERE o.team_id = $1 AND i.outcome = 'failed' AND o.type = 'link_bulk_historical_trigger'`,
    [team.teamId],
  );
  expect(failed).toEqual({ user_id: stranger, detail: 'The user has no oura connection.' });

  // Pages of the listing: newest first, each operation once.
  expect(ops.nextCursor).toBeTruthy();
  const next = await client.link.listBulkOps({ pageSize: 1, nextCursor: ops.nextCursor as string });
  expect(next.data[0]).toMatchObject({ type: 'link_bulk_import' });
  expect(next.nextCursor).toBeUndefined();
});

test('bulk pause, then bulk export: labflow stops using the tokens, and hands out tokens that still work at Oura', async () => {
  expect(userB.id).not.toBe('');
  const nobody = randomUUID();
  const paused = await api('POST', '/v2/link/bulk_pause', { provider: 'oura', user_ids: [userB.id, nobody] });
  expect(paused.status).toBe(200);
  expect(paused.body).toEqual({ user_ids_paused: [userB.id], user_ids_not_found: [nobody] });
  expect(await ouraStatus(userB.id)).toBe('paused');

  // A paused connection fetches nothing, even when asked to.
  const before = oura.requests.filter((request) => request.userId === userB.ouraUser).length;
  const refreshed = await api('POST', `/v2/user/refresh/${userB.id}?timeout=2`);
  expect(refreshed.status).toBe(200);
  expect(refreshed.body).toMatchObject({ refreshed_sources: [], in_progress_sources: [], failed_sources: ['oura'] });
  expect(oura.requests.filter((request) => request.userId === userB.ouraUser).length).toBe(before);

  const exported = await client.link.bulkExport({ provider: 'oura', userIds: [userB.id] });
  const stored = (await storedCredentials(userB.id)) as ProviderCredentials;
  expect(exported.data).toEqual([
    {
      userId: userB.id,
      accessToken: stored.accessToken,
      refreshToken: stored.refreshToken,
      providerId: userB.ouraUser,
      expiresAt: Math.floor(Date.parse(stored.expiresAt as string) / 1000),
      oauthScopes: ['daily', 'heartrate'],
    },
  ]);
  expect(exported.nextToken).toBeUndefined();
  // Each grant handed out is audited as a PHI read by the key that asked.
  const audit = await stack.db.query(
    `SELECT l.api_key_id, l.action FROM phi_access_log l JOIN provider_connections c ON c.id = l.resource_id WHERE l.resource = 'provider_connection' AND c.user_id = $1`,
    [userB.id],
  );
  expect(audit).toEqual([{ api_key_id: team.apiKeyId, action: 'read' }]);
  // Whoever takes the tokens over can use them: labflow spent neither.
  expect(oura.refreshTokenUsed(stored.refreshToken as string)).toBe(false);
  const atOura = await fetch(`${oura.url}/v2/usercollection/personal_info`, { headers: { authorization: `Bearer ${stored.accessToken}` } });
  expect(atOura.status).toBe(200);
  expect(((await atOura.json()) as { id: string }).id).toBe(userB.ouraUser);

  // Every connection of the team to Oura, when no users are named.
  const all = await client.link.bulkExport({ provider: 'oura' });
  expect(all.data.map((recipe) => recipe.userId).sort()).toEqual([userA.id, userB.id].sort());

  // Importing it again resumes it.
  const again = ouraUserWithTokens(userB.id);
  const reimported = await call(stack.apiUrl, 'POST', '/v2/link/bulk_import', {
    key: team.apiKey,
    body: { provider: 'oura', connections: [{ ...again.recipe, provider_id: userB.ouraUser }], wait_for_completion: true },
  });
  expect(reimported.status).toBe(200);
  expect(reimported.body).toEqual({ user_ids_imported: [userB.id], user_ids_failed: [] });
  expect(await ouraStatus(userB.id)).toBe('connected');
});

test("another team's key reaches none of this team's connections: its import, pull, pause and export of them fail or find nothing", async () => {
  expect(userA.id).not.toBe('');
  const other = await createTenant(stack.db, { environment: 'production' });
  await enableMigration(other);
  const asOther = (path: string, body: object) => call(stack.apiUrl, 'POST', path, { key: other.apiKey, body });
  const before = await storedCredentials(userA.id);
  const sleepFetches = () => oura.requests.filter((request) => request.userId === userA.ouraUser && request.path === '/v2/usercollection/sleep').length;
  const fetchesBefore = sleepFetches();

  const stolen = ouraUserWithTokens(userA.id);
  const imported = await asOther('/v2/link/bulk_import', { provider: 'oura', connections: [stolen.recipe], wait_for_completion: true });
  expect(imported.status).toBe(200);
  expect(imported.body).toEqual({ user_ids_imported: [], user_ids_failed: [userA.id] });
  const pulled = await asOther('/v2/link/bulk_trigger_historical_pull', { provider: 'oura', user_ids: [userA.id], wait_for_completion: true });
  expect(pulled.status).toBe(200);
  expect(pulled.body).toEqual({ user_ids_pulled: [], user_ids_failed: [userA.id] });
  const paused = await asOther('/v2/link/bulk_pause', { provider: 'oura', user_ids: [userA.id] });
  expect(paused.body).toEqual({ user_ids_paused: [], user_ids_not_found: [userA.id] });
  const exported = await asOther('/v2/link/bulk_export', { provider: 'oura', user_ids: [userA.id] });
  expect(exported.status).toBe(200);
  expect(exported.body.data).toEqual([]);
  const everything = await asOther('/v2/link/bulk_export', { provider: 'oura' });
  expect(everything.body.data).toEqual([]);

  // This team's connection is as it was: its grant, its status, no extra fetch, no new connection.
  expect(await storedCredentials(userA.id)).toEqual(before);
  expect(await ouraStatus(userA.id)).toBe('connected');
  expect(sleepFetches()).toBe(fetchesBefore);
  const [{ count }] = await stack.db.query(`SELECT count(*)::int AS count FROM provider_connections WHERE team_id = $1`, [other.teamId]);
  expect(count).toBe(0);
});

test('an x-idempotency-key makes a repeated request one operation, answered as it stands; the key with another request is a 400', async () => {
  const userId = await createUser();
  const { recipe } = ouraUserWithTokens(userId);
  const key = `import-${randomUUID()}`;
  const withKey = (path: string, body: object, idempotencyKey = key) =>
    call(stack.apiUrl, 'POST', path, { key: team.apiKey, body, headers: { 'x-idempotency-key': idempotencyKey } });
  const operations = async () => (await client.link.listBulkOps({ pageSize: 100 })).data.length;
  const before = await operations();

  const first = await withKey('/v2/link/bulk_import', { provider: 'oura', connections: [recipe], wait_for_completion: true });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ user_ids_imported: [userId], user_ids_failed: [] });
  // The client lost the answer and sends the request again (without waiting, this time): the same operation answers.
  const again = await withKey('/v2/link/bulk_import', { provider: 'oura', connections: [recipe] });
  expect(again.status).toBe(202);
  expect(again.body).toEqual({ user_ids_imported: [userId], user_ids_failed: [] });
  expect(await operations()).toBe(before + 1);
  await waitFor(() => webhooks(userId, 'provider.connection.created').length === 1);

  // The same key with another request, or for the other operation: refused, nothing written.
  const other = await withKey('/v2/link/bulk_import', { provider: 'oura', connections: [{ ...recipe, access_token: 'another-token' }] });
  expect(other.status).toBe(400);
  expect(other.body.detail).toMatch(/x-idempotency-key was already used with a different request/);
  const pull = await withKey('/v2/link/bulk_trigger_historical_pull', { provider: 'oura', user_ids: [userId] });
  expect(pull.status).toBe(400);
  const tooLong = await withKey('/v2/link/bulk_trigger_historical_pull', { provider: 'oura', user_ids: [userId] }, 'k'.repeat(256));
  expect(tooLong.status).toBe(400);
  expect(await operations()).toBe(before + 1);
  expect(webhooks(userId, 'provider.connection.created')).toHaveLength(1);
});

test('an operation whose API transaction never committed is recorded aborted by its workflow', async () => {
  const opId = randomUUID();
  const status = await stack.temporal.workflow.execute('linkBulkOpWorkflow', {
    workflowId: linkBulkOpWorkflowId(opId),
    taskQueue: stack.config.temporal.taskQueue,
    args: [
      {
        op: { opId, teamId: team.teamId, environment: 'production', region: 'us', type: 'link_bulk_import', provider: 'oura' },
        pace: { batchSize: 10, stepTimeout: '1 minute' },
      },
    ],
  });
  expect(status).toBe('aborted');
  const ops = await client.link.listBulkOps({ pageSize: 100 });
  expect(ops.data[0]).toMatchObject({ type: 'link_bulk_import', status: 'aborted', pending: 0, processed: 0 });
});

test('the SDK reports refusals as VitalError with the status', async () => {
  const error = await client.link.bulkPause({ provider: 'garmin', userIds: [randomUUID()] }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(VitalError);
  expect((error as VitalError).statusCode).toBe(400);
});
