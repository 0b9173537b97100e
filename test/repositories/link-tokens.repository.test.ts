import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LinkTokensRepository, type NewLinkToken } from '../../src/link/link-tokens.repository';
import { createTeam, createUser, migratedScratchDatabase } from '../helpers/repository-db';

/** LinkTokensRepository on a database of this file's own: the retention sweep reads every team's tokens. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: LinkTokensRepository;
let teamId: string;
let userId: string;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_link_tokens');
  db = scratch.db;
  repo = new LinkTokensRepository(db);
  ({ teamId } = await createTeam(db));
  userId = await createUser(db, teamId);
});
afterAll(() => scratch?.drop());

async function token(fields: Partial<NewLinkToken> = {}) {
  return repo.insert({
    id: randomUUID(),
    tokenHash: `hash-${randomUUID()}`,
    teamId,
    environment: 'sandbox',
    region: 'us',
    userId,
    provider: null,
    filterOnProviders: null,
    redirectUrl: null,
    onError: null,
    onClose: null,
    expiresAt: new Date(Date.now() + 3_600_000),
    ...fields,
  });
}

it('is found by its hash; a provider fixed by the team is the chosen one from the start', async () => {
  const fixed = await token({ provider: 'oura', tokenHash: 'hash-fixed' });
  expect(fixed).toMatchObject({ state: 'pending', provider: 'oura', chosenProvider: 'oura' });
  expect((await repo.findByHash('hash-fixed'))?.id).toBe(fixed.id);
  expect(await repo.findByHash('hash-unknown')).toBeNull();
  expect((await token()).chosenProvider).toBeNull();
});

it('a flow in error starts over when the user chooses again; MFA details go with an error', async () => {
  const { id } = await token();
  await repo.choose(id, 'oura');
  await repo.awaitMfa(id, { method: 'sms', hint: '***12', challenge: 'c' });
  expect(await repo.findById(id)).toMatchObject({ state: 'pending_provider_mfa', mfaMethod: 'sms', mfaHint: '***12' });
  await repo.fail(id, 'provider_error', 'refused');
  expect(await repo.findById(id)).toMatchObject({ state: 'error', errorType: 'provider_error', error: 'refused', mfaMethod: null, mfaChallenge: null });
  await repo.choose(id, 'dexcom');
  expect(await repo.findById(id)).toMatchObject({ state: 'pending', chosenProvider: 'dexcom', errorType: null, error: null });
});

it('an OAuth state finds its token until the flow fails or succeeds', async () => {
  const failing = await token();
  await repo.beginOauth(failing.id, 'oura', 'state-1');
  expect((await repo.findByOauthState('state-1'))?.id).toBe(failing.id);
  await repo.fail(failing.id, 'x', 'y');
  expect(await repo.findByOauthState('state-1')).toBeNull();

  const succeeding = await token();
  await repo.beginOauth(succeeding.id, 'oura', 'state-2');
  await repo.succeed(succeeding.id);
  expect(await repo.findByOauthState('state-2')).toBeNull();
});

it('a used token stays used: its first connection time stays, later steps change nothing', async () => {
  const { id } = await token();
  await repo.succeed(id);
  const { connectedAt } = (await repo.findById(id))!;
  expect(connectedAt).toBeInstanceOf(Date);
  await db.query(`SELECT pg_sleep(0.01)`);
  await repo.succeed(id);
  await repo.choose(id, 'dexcom');
  await repo.beginOauth(id, 'dexcom', 'state-3');
  await repo.awaitMfa(id, { method: 'sms', hint: 'h', challenge: 'c' });
  await repo.fail(id, 'x', 'y');
  expect(await repo.findById(id)).toMatchObject({ state: 'success', connectedAt, chosenProvider: null, errorType: null, mfaMethod: null });
  expect(await repo.findByOauthState('state-3')).toBeNull();
});

it('two tokens cannot share an OAuth state', async () => {
  const [a, b] = [await token(), await token()];
  await repo.beginOauth(a.id, 'oura', 'state-shared');
  await expect(repo.beginOauth(b.id, 'oura', 'state-shared')).rejects.toThrow(/oauth_state_hash/);
});

it('retention deletes tokens expired longer ago than it keeps them, at most a batch at a time', async () => {
  const hour = 3_600_000;
  const old = [await token({ expiresAt: new Date(Date.now() - 5 * hour) }), await token({ expiresAt: new Date(Date.now() - 4 * hour) })];
  const recent = await token({ expiresAt: new Date(Date.now() - hour) });
  const live = await token();
  expect(await repo.deleteExpired(2 * hour, 1)).toBe(1);
  expect(await repo.deleteExpired(2 * hour, 10)).toBe(1);
  for (const gone of old) expect(await repo.findById(gone.id)).toBeNull();
  expect(await repo.findById(recent.id)).not.toBeNull();
  expect(await repo.findById(live.id)).not.toBeNull();
});
