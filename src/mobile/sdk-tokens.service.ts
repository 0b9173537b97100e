import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { actingFor, type TeamPrincipal } from '../auth/principal';
import type { UserTokenPrincipal, UserTokenVerifier } from '../auth/user-tokens';
import { generateSecret, hashSecretHex } from '../common/crypto';
import { ApiError, notFound } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import type { ApiEnvironment, Region } from '../tenancy/entities';
import { type SdkUser, SdkSessionsRepository } from '../users/sdk-sessions.repository';
import { UsersRepository } from '../users/users.repository';
import { SIGNING_ALG, SigningKeys } from './signing-keys';

/** RFC 8693's grant, with which the SDKs exchange a sign-in token's `user_token`. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const SIGN_IN_AUDIENCE = 'labflow:sign_in';
const ACCESS_AUDIENCE = 'labflow:api';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  issued_token_type: 'urn:ietf:params:oauth:token-type:access_token';
}

/** A refusal of `POST /v1/token` in the shape the mobile SDKs read: `{detail: {error_type}}`. */
export const tokenRefusal = (errorType: 'invalid_token' | 'reauthentication_required' | 'invalid_request', message: string) =>
  new ApiError(errorType === 'invalid_request' ? HttpStatus.BAD_REQUEST : HttpStatus.UNAUTHORIZED, { error_type: errorType, message });

/**
 * The mobile SDKs' sign-in (docs/mobile.md). The team's backend mints a sign-in token for one
 * user (`POST /v2/user/{user_id}/sign_in_token`): base64 of `{public_key, user_token}`, the
 * `user_token` an RS256 JWT with the claims the SDKs read (`iss`, `uid`, `tenant_id`,
 * `claims.vital_team_id`), good once and for MOBILE_SIGN_IN_TOKEN_TTL. The SDK exchanges it at
 * `POST /v1/token` for an access token (RS256 JWT naming its session, MOBILE_ACCESS_TOKEN_TTL)
 * and a refresh token (opaque, kept as a hash, replaced at every refresh). Every request with an
 * access token checks its session still stands, so a revocation holds at once.
 */
@Injectable()
export class SdkTokensService implements UserTokenVerifier {
  constructor(
    private readonly keys: SigningKeys,
    private readonly sessions: SdkSessionsRepository,
    private readonly users: UsersRepository,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** `POST /v2/user/{user_id}/sign_in_token`. */
  async createSignInToken(team: TeamPrincipal, userId: string): Promise<{ user_id: string; sign_in_token: string }> {
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    return {
      user_id: user.id,
      sign_in_token: await this.mintSignInToken({ userId: user.id, teamId: team.teamId, environment: team.environment, region: team.region }),
    };
  }

  /** A sign-in token for a live user of the team (link codes' exchange mints one too). */
  async mintSignInToken(user: SdkUser): Promise<string> {
    const jti = randomUUID();
    const ttlMs = this.config.mobile.signInTokenTtlMs;
    const now = Math.floor(Date.now() / 1000);
    const exp = now + Math.floor(ttlMs / 1000);
    await this.sessions.recordSignInToken(jti, user.userId, new Date(exp * 1000));
    const userToken = await this.sign(
      { uid: user.userId, tenant_id: user.teamId, claims: { vital_team_id: user.teamId } },
      user,
      SIGN_IN_AUDIENCE,
      now,
      exp,
      jti,
    );
    const envelope = { public_key: publicKeyOf(user.environment, user.region), user_token: userToken };
    return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
  }

  /** `POST /v1/token` with the token-exchange grant: a sign-in token (or its `user_token`) for a session. */
  async exchange(subjectToken: string): Promise<TokenResponse> {
    const userToken = userTokenOf(subjectToken);
    const payload = userToken ? await this.verified(userToken, SIGN_IN_AUDIENCE) : null;
    const user = payload?.jti && payload.sub ? await this.sessions.spendSignInToken(payload.jti, payload.sub) : null;
    if (!user) throw tokenRefusal('invalid_token', 'The sign-in token is invalid, expired, revoked or already used.');
    const sessionId = randomUUID();
    const refreshToken = generateSecret('lfr_');
    await this.sessions.openSession(sessionId, user.userId, hashSecretHex(refreshToken), this.refreshExpiry());
    return this.tokens({ ...user, sessionId }, refreshToken);
  }

  /** `POST /v1/token` with the refresh grant: a new access token and a new refresh token in place of the old. */
  async refresh(refreshToken: string): Promise<TokenResponse> {
    const next = generateSecret('lfr_');
    const session = await this.sessions.rotateRefreshToken(hashSecretHex(refreshToken), hashSecretHex(next), this.refreshExpiry());
    if (!session) throw tokenRefusal('reauthentication_required', 'The refresh token is invalid, expired or revoked: sign in again with a new sign-in token.');
    return this.tokens(session, next);
  }

  /** The key guard's check of an access token: signature, audience, expiry, and its session still standing. */
  async verify(token: string): Promise<UserTokenPrincipal | null> {
    const payload = await this.verified(token, ACCESS_AUDIENCE);
    if (typeof payload?.sid !== 'string') return null;
    const session = await this.sessions.liveSession(payload.sid);
    if (!session || session.userId !== payload.sub) return null;
    return { team: actingFor(session), userId: session.userId };
  }

  /** Signs the user out of every SDK installation (and spends the sign-in tokens not yet exchanged). */
  async revoke(team: TeamPrincipal, userId: string): Promise<{ success: true }> {
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    await this.sessions.revokeAll(user.id);
    return { success: true };
  }

  /** A JWT of `claims` for `user`, signed with the current signing key (sign-in and access tokens alike). */
  private async sign(claims: JWTPayload, user: SdkUser, audience: string, issuedAt: number, expiresAt: number, jti?: string): Promise<string> {
    const key = await this.keys.signingKey();
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid: key.kid })
      .setIssuer(signerOf(user.environment, user.region))
      .setSubject(user.userId)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt);
    return (jti ? jwt.setJti(jti) : jwt).sign(key.privateKey);
  }

  private async tokens(session: SdkUser & { sessionId: string }, refreshToken: string): Promise<TokenResponse> {
    const ttlSeconds = Math.floor(this.config.mobile.accessTokenTtlMs / 1000);
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await this.sign(
      { sid: session.sessionId, uid: session.userId, claims: { vital_team_id: session.teamId } },
      session,
      ACCESS_AUDIENCE,
      now,
      now + ttlSeconds,
    );
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ttlSeconds,
      refresh_token: refreshToken,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    };
  }

  private refreshExpiry(): Date {
    return new Date(Date.now() + this.config.mobile.refreshTokenTtlMs);
  }

  /** The token's claims when labflow signed it for `audience` and it has not expired; null otherwise. */
  private async verified(token: string, audience: string): Promise<JWTPayload | null> {
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = kid ? await this.keys.publicKey(kid) : null;
      if (!key) return null;
      const { payload } = await jwtVerify(token, key, { algorithms: [SIGNING_ALG], audience, typ: 'JWT' });
      return payload;
    } catch {
      return null;
    }
  }
}

/**
 * The issuer, in the form the SDKs parse for the environment and region
 * (`id-signer-<environment>-<region>@vital-id-<environment>-<region>.iam.gserviceaccount.com`).
 * Only its shape matters to them; labflow verifies its tokens with its own keys.
 */
function signerOf(environment: ApiEnvironment, region: Region): string {
  return `id-signer-${environment}-${region}@vital-id-${environment}-${region}.iam.gserviceaccount.com`;
}

/** The envelope's `public_key`: a non-secret name of the labflow environment the SDK talks to. */
function publicKeyOf(environment: ApiEnvironment, region: Region): string {
  return `labflow_${environment}_${region}`;
}

/** The JWT in a subject token: the `user_token` itself, or the whole base64 sign-in token around it. */
function userTokenOf(subjectToken: string): string | null {
  if (subjectToken.split('.').length === 3) return subjectToken;
  try {
    const envelope: unknown = JSON.parse(Buffer.from(subjectToken, 'base64').toString('utf8'));
    const userToken = envelope && typeof envelope === 'object' ? (envelope as { user_token?: unknown }).user_token : undefined;
    return typeof userToken === 'string' ? userToken : null;
  } catch {
    return null;
  }
}
