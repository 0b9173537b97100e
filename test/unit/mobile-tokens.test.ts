import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { PhiCipher } from '../../src/common/crypto';
import { type LabflowConfig, loadConfig } from '../../src/config/config';
import { SdkTokensService } from '../../src/mobile/sdk-tokens.service';
import { SigningKeys } from '../../src/mobile/signing-keys';
import type { SigningKeyRow, SigningKeysRepository } from '../../src/mobile/signing-keys.repository';
import type { SdkSessionsRepository, SdkUser } from '../../src/users/sdk-sessions.repository';
import type { UsersRepository } from '../../src/users/users.repository';

/**
 * The token rules that need no database: lifetimes from the configuration (a zero lifetime makes
 * a token that is expired when made: no waiting), signing-key rotation by age, MOBILE_SIGNING_KEY.
 * The stores are in memory and grant every spend, so what refuses is the token itself.
 */
const KEY = randomBytes(32).toString('base64');
const user: SdkUser = { userId: randomUUID(), teamId: randomUUID(), environment: 'sandbox', region: 'us' };

function configWith(env: Record<string, string>): LabflowConfig {
  return loadConfig({ PHI_ENCRYPTION_KEY: KEY, ...env });
}

class MemoryKeys {
  rows: SigningKeyRow[] = [];
  async newest() {
    return [...this.rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0] ?? null;
  }
  async find(kid: string) {
    return this.rows.find((row) => row.kid === kid) ?? null;
  }
  async since(since: Date) {
    return this.rows.filter((row) => row.createdAt >= since);
  }
  async insert(kid: string, privateKeyEnc: string, publicJwk: JWK) {
    this.rows.push({ kid, privateKeyEnc, publicJwk, createdAt: new Date() });
  }
}

/** Every sign-in token and refresh token is still unspent: only the token's own checks can refuse. */
const sessions = {
  recordSignInToken: async () => undefined,
  spendSignInToken: async () => user,
  openSession: async () => undefined,
  liveSession: async (sessionId: string) => ({ ...user, sessionId }),
} as unknown as SdkSessionsRepository;

function service(env: Record<string, string>, keys = new MemoryKeys()) {
  const config = configWith(env);
  const signing = new SigningKeys(keys as unknown as SigningKeysRepository, new PhiCipher(config.phiEncryptionKey), config);
  return { tokens: new SdkTokensService(signing, sessions, {} as UsersRepository, config), signing, keys };
}

describe('mobile SDK tokens', () => {
  it('a sign-in token past MOBILE_SIGN_IN_TOKEN_TTL is refused at the exchange', async () => {
    const { tokens } = service({ MOBILE_SIGN_IN_TOKEN_TTL: '0s' });
    const signInToken = await tokens.mintSignInToken(user);
    await expect(tokens.exchange(signInToken)).rejects.toMatchObject({ response: { detail: { error_type: 'invalid_token' } }, status: 401 });

    const lasting = service({ MOBILE_SIGN_IN_TOKEN_TTL: '10m' }).tokens;
    await expect(lasting.exchange(await lasting.mintSignInToken(user))).resolves.toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
  });

  it('an access token past MOBILE_ACCESS_TOKEN_TTL no longer authenticates; expires_in says the lifetime', async () => {
    const { tokens } = service({ MOBILE_ACCESS_TOKEN_TTL: '0s' });
    const session = await tokens.exchange(await tokens.mintSignInToken(user));
    expect(session.expires_in).toBe(0);
    await expect(tokens.verify(session.access_token)).resolves.toBeNull();

    const lasting = service({ MOBILE_ACCESS_TOKEN_TTL: '15m' }).tokens;
    const fresh = await lasting.exchange(await lasting.mintSignInToken(user));
    expect(fresh.expires_in).toBe(900);
    await expect(lasting.verify(fresh.access_token)).resolves.toMatchObject({ userId: user.userId, team: { teamId: user.teamId } });
  });

  it('an access token is not a sign-in token, nor the other way round', async () => {
    const { tokens } = service({});
    const signInToken = await tokens.mintSignInToken(user);
    const userToken = JSON.parse(Buffer.from(signInToken, 'base64').toString('utf8')).user_token;
    await expect(tokens.verify(userToken)).resolves.toBeNull();
    const session = await tokens.exchange(signInToken);
    await expect(tokens.exchange(session.access_token)).rejects.toMatchObject({ status: 401 });
  });

  it('rotates the signing key by age; the JWKS keeps the older key while what it signed may live', async () => {
    const keys = new MemoryKeys();
    const { tokens, signing } = service({ MOBILE_SIGNING_KEY_ROTATION: '0s' }, keys);
    const first = await tokens.exchange(await tokens.mintSignInToken(user));
    await signing.signingKey();
    expect(keys.rows.length).toBeGreaterThan(1);
    const { keys: published } = await signing.jwks();
    expect(published.map((jwk) => jwk.kid)).toEqual(expect.arrayContaining(keys.rows.map((row) => row.kid)));
    await expect(tokens.verify(first.access_token)).resolves.not.toBeNull();
    // Sealed at rest: no private key in clear.
    for (const row of keys.rows) expect(row.privateKeyEnc).not.toContain('PRIVATE KEY');
  });

  it('signs with MOBILE_SIGNING_KEY when given, and generates none', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const keys = new MemoryKeys();
    const { tokens, signing } = service({ MOBILE_SIGNING_KEY: pem }, keys);
    const session = await tokens.exchange(await tokens.mintSignInToken(user));
    await expect(tokens.verify(session.access_token)).resolves.not.toBeNull();
    expect(keys.rows).toHaveLength(0);
    expect((await signing.jwks()).keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', kid: expect.any(String) })]);
  });
});
