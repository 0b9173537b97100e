import { OuraProviderAuth } from '../../src/adapters/oura/oura-provider-auth';
import { OuraSourceAdapter } from '../../src/adapters/oura/oura-source.adapter';
import type { OuraConfig } from '../../src/config/config';
import { type ProviderCredentials, type SourceConnection, SourceConnectionError } from '../../src/adapters/sources/source-adapter';
import { FakeOura } from '../helpers/fake-oura';

/**
 * The Oura client against the Oura stand-in (test/helpers/fake-oura.ts), without labflow around
 * it: sign-in, then pulls whose credentials live in memory as the connection's row would hold
 * them. What a pull does when Oura refreshes, refuses or stumbles.
 */
const DAY_MS = 86_400_000;
const CALLBACK = 'https://labflow.example/v2/link/connect/oura';
let oura: FakeOura;
let config: OuraConfig;

beforeAll(async () => {
  oura = await FakeOura.start({ pageSize: 40 });
  config = { clientId: oura.clientId, clientSecret: oura.clientSecret, authorizeUrl: `${oura.url}/oauth/authorize`, apiUrl: oura.url };
});
afterAll(() => oura.close());

/** A user signed in through OuraProviderAuth, and their connection as the sync would hand it over. */
async function connected(): Promise<{ userId: string; connection: SourceConnection; stored: () => ProviderCredentials }> {
  const userId = oura.addUser();
  oura.seedDays(userId, new Date(Date.now() - 3 * DAY_MS).toISOString().slice(0, 10), 4);
  const auth = new OuraProviderAuth(config);
  oura.nextAuthorization({ userId });
  const atOura = await fetch(auth.oauthUrl('oura', 'state-1', CALLBACK), { redirect: 'manual' });
  const back = new URL(atOura.headers.get('location') as string);
  const outcome = await auth.completeOauth('oura', {
    code: back.searchParams.get('code') as string,
    scope: back.searchParams.get('scope') ?? undefined,
    callbackUrl: CALLBACK,
  });
  if (outcome.outcome !== 'connected' || !outcome.grant) throw new Error(`not connected: ${JSON.stringify(outcome)}`);
  expect(outcome.grant.externalUserId).toBe(userId);
  let row = outcome.grant.credentials;
  const connection: SourceConnection = {
    userId: 'a7c1e3f0-0000-4000-8000-000000000001',
    provider: 'oura',
    environment: 'production',
    seed: 'unused',
    timeZone: 'UTC',
    credentials: row,
    saveCredentials: async (credentials) => {
      row = credentials;
    },
    storedCredentials: async () => row,
  };
  return { userId, connection, stored: () => row };
}

const window = () => ({ from: Date.now() - DAY_MS, to: Date.now() });

test('a pull with a valid token: every page of heart rate, and the summaries', async () => {
  const { connection } = await connected();
  const { from, to } = window();
  const batches = await new OuraSourceAdapter(config).pull(connection, from, to);
  expect(batches.map((batch) => batch.resource).sort()).toEqual(['activity', 'heartrate', 'hrv', 'hypnogram', 'sleep']);
  // Three days (the window and its two-day look-back) at 5 minutes is far more than a page of 40.
  expect(batches.find((batch) => batch.resource === 'heartrate')!.data.length).toBeGreaterThan(500);
  expect(oura.requests.filter((request) => request.path === '/v2/usercollection/heartrate').length).toBeGreaterThan(10);
});

test('two pulls racing with an expired token: one refresh at Oura, both pulls go through, the new pair is kept', async () => {
  const { connection, stored } = await connected();
  const before = stored();
  oura.expireAccessTokens();
  const adapter = new OuraSourceAdapter(config);
  const { from, to } = window();
  const refreshesBefore = oura.requests.filter((request) => request.path === '/oauth/token').length;
  const results = await Promise.all([adapter.pull(connection, from, to), adapter.pull({ ...connection }, from, to)]);
  expect(results.map((batches) => batches.length)).toEqual([5, 5]);
  const tokenCalls = oura.requests.filter((request) => request.path === '/oauth/token').slice(refreshesBefore);
  // The loser's refresh token was spent by the winner: refused, and the winner's pair used.
  expect(tokenCalls.map((request) => request.status).sort()).toEqual([200, 400]);
  expect(stored().refreshToken).not.toBe(before.refreshToken);
});

test('a revoked grant is the connection error token_refresh_failed; a 429 or a 500 is passing trouble (retried)', async () => {
  const revoked = await connected();
  oura.revoke(revoked.userId);
  const adapter = new OuraSourceAdapter(config);
  const { from, to } = window();
  await expect(adapter.pull(revoked.connection, from, to)).rejects.toMatchObject({ name: 'SourceConnectionError', errorType: 'token_refresh_failed' });

  const busy = await connected();
  oura.failNext('/v2/usercollection/daily_activity', 429);
  const error = await adapter.pull(busy.connection, from, to).catch((failure: unknown) => failure);
  expect(error).not.toBeInstanceOf(SourceConnectionError);
  expect(String(error)).toContain('429');
  oura.failNext('/v2/usercollection/heartrate', 500);
  await expect(adapter.pull(busy.connection, from, to)).rejects.not.toBeInstanceOf(SourceConnectionError);
  expect(await adapter.pull(busy.connection, from, to)).toHaveLength(5);
});
