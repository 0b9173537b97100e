import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The HTTP plumbing the stand-ins for real data providers share (fake-oura.ts, fake-dexcom.ts,
 * fake-whoop.ts): a server on a free loopback port, form bodies, JSON answers, redirects, opaque
 * tokens, deterministic numbers, the OAuth2 codes and tokens they issue and the failures a test
 * injects. What each provider says and refuses stays in its own stand-in.
 */

/** A server on a free loopback port; `handle` answers its requests. */
export async function listenLocally(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.on('request', (req, res) => void handle(req, res));
  return server;
}

export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets (fetch keeps them) would hold close() open until they time out.
  server.closeAllConnections();
  await closed;
}

/** The request's form body; `refuse()` (the provider's own error) when it is not a form. */
export async function readForm(req: IncomingMessage, refuse: () => Error): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (!(req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) throw refuse();
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

export function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

export function opaqueToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A number in [0, 1) that depends only on `parts` (FNV-1a, then a murmur3 finaliser): the stand-ins' data is the same on every run. */
export function unit(...parts: Array<string | number>): number {
  let h = 2166136261;
  const text = parts.join('|');
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

// ---------------------------------------------------------------------------------------------
// OAuth2 bookkeeping
// ---------------------------------------------------------------------------------------------

/** What one consent produced; every code, access and refresh token descending from it shares it. */
export interface FakeGrant {
  userId: string;
  /** Set when the user withdraws consent: everything descending from the grant stops working. */
  revoked: boolean;
}

/** A code from the authorize page: redeemable once, before it expires, with the redirect_uri it was issued for. */
export interface FakeAuthorizationCode<G extends FakeGrant> {
  grant: G;
  redirectUri: string;
  expiresAt: number;
  used: boolean;
}

export interface FakeAccessToken<G extends FakeGrant> {
  grant: G;
  expiresAt: number;
}

/** Refresh tokens are single use: each refresh answers a new pair and the used token is spent. */
export interface FakeRefreshToken<G extends FakeGrant> {
  grant: G;
  used: boolean;
}

/** How the next visit to a provider's authorize page ends (tests queue these; visits consume them in order). */
export interface FakeAuthorizationDecision {
  userId: string;
  deny?: boolean;
}

/** Why a bearer token is refused; each provider answers the reason in its own words. */
export type FakeBearerRefusal = 'missing' | 'unknown' | 'revoked' | 'expired';

/**
 * The codes and tokens a stand-in issued, each tied to its grant (`G`, the provider's grant with
 * what it remembers of the consent: scopes, redirect_uri). The lookups answer undefined for what
 * cannot be used, so each stand-in refuses in its provider's words and checks its provider's
 * further rules (redirect_uri, scopes) before it spends a code or refresh token with use().
 */
export class FakeGrants<G extends FakeGrant> {
  private readonly codes = new Map<string, FakeAuthorizationCode<G>>();
  private readonly accessTokens = new Map<string, FakeAccessToken<G>>();
  private readonly refreshTokens = new Map<string, FakeRefreshToken<G>>();

  /** A new authorization code for `grant`, valid for `ttlMs` and only with `redirectUri`. */
  mintCode(grant: G, redirectUri: string, ttlMs: number): string {
    const code = opaqueToken();
    this.codes.set(code, { grant, redirectUri, expiresAt: Date.now() + ttlMs, used: false });
    return code;
  }

  /** The code, if it is known, unused, unexpired and its grant not revoked. */
  redeemableCode(value: string | null): FakeAuthorizationCode<G> | undefined {
    const code = this.codes.get(value ?? '');
    return code && !code.used && code.expiresAt > Date.now() && !code.grant.revoked ? code : undefined;
  }

  /** The refresh token, if it is known, unused and its grant not revoked. */
  usableRefreshToken(value: string | null): FakeRefreshToken<G> | undefined {
    const token = this.refreshTokens.get(value ?? '');
    return token && !token.used && !token.grant.revoked ? token : undefined;
  }

  /** Spends a code or refresh token (each works once) and answers its grant. */
  use(codeOrRefreshToken: { grant: G; used: boolean }): G {
    codeOrRefreshToken.used = true;
    return codeOrRefreshToken.grant;
  }

  /** A new access token for `grant` that expires in `ttlSeconds`. */
  mintAccessToken(grant: G, ttlSeconds: number): string {
    const token = opaqueToken();
    this.accessTokens.set(token, { grant, expiresAt: Date.now() + ttlSeconds * 1000 });
    return token;
  }

  /** A new single-use refresh token for `grant`. */
  mintRefreshToken(grant: G): string {
    const token = opaqueToken();
    this.refreshTokens.set(token, { grant, used: false });
    return token;
  }

  /** The access token, if it was issued here (expired and revoked ones included). */
  accessToken(value: string): FakeAccessToken<G> | undefined {
    return this.accessTokens.get(value);
  }

  /** The access token an `Authorization: Bearer …` header carries, if it was issued here (expired and revoked ones included). */
  bearerToken(authorization: string | undefined): FakeAccessToken<G> | undefined {
    const bearer = bearerOf(authorization);
    return bearer === undefined ? undefined : this.accessTokens.get(bearer);
  }

  /** The grant of a live bearer token; otherwise throws `refuse(why)`, the provider's own 401. */
  authenticate(authorization: string | undefined, refuse: (why: FakeBearerRefusal) => Error): G {
    const bearer = bearerOf(authorization);
    if (bearer === undefined) throw refuse('missing');
    const token = this.accessTokens.get(bearer);
    if (!token) throw refuse('unknown');
    if (token.grant.revoked) throw refuse('revoked');
    if (token.expiresAt <= Date.now()) throw refuse('expired');
    return token.grant;
  }

  /** Whether the refresh token was used. */
  refreshTokenUsed(refreshToken: string): boolean {
    return this.refreshTokens.get(refreshToken)?.used ?? false;
  }

  /** Every access token issued so far expires now (tokens issued later are fresh). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** The user withdraws consent: every grant of theirs is revoked, so its codes and tokens stop working. */
  revoke(userId: string): void {
    for (const holder of [...this.codes.values(), ...this.accessTokens.values(), ...this.refreshTokens.values()]) {
      if (holder.grant.userId === userId) holder.grant.revoked = true;
    }
  }
}

/** The token of an `Authorization: Bearer …` header, if it has one. */
function bearerOf(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

/** Failures a test injects: the next `times` requests to a path answer `status`. */
export class FakeFailures {
  private readonly byPath = new Map<string, { status: number; remaining: number }>();

  failNext(path: string, status: number, times = 1): void {
    this.byPath.set(path, { status, remaining: times });
  }

  /** The status this request to `path` must answer (counting it against `times`), or null to answer normally. */
  take(path: string): number | null {
    const failure = this.byPath.get(path);
    if (!failure || failure.remaining <= 0) return null;
    failure.remaining -= 1;
    return failure.status;
  }
}

/**
 * An OAuth 2 (RFC 6749) error answer of a stand-in: `{error, error_description}` with the status
 * and headers given (Dexcom's and WHOOP's shapes; Oura answers its own).
 */
export class OAuthProblem extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${error}: ${description}`);
  }
}

/** Answers a request a stand-in refused with an OAuthProblem (anything else thrown: a 500 `server_error`). */
export function sendOAuthProblem(res: ServerResponse, error: unknown): void {
  const problem = error instanceof OAuthProblem ? error : new OAuthProblem(500, 'server_error', String(error));
  sendJson(res, problem.status, { error: problem.error, error_description: problem.description }, problem.headers);
}

/**
 * A token request's form, its client authenticated by `client_id` and `client_secret` in the
 * body (HTTP Basic is not taken), and its grant type.
 */
export async function tokenRequest(
  req: IncomingMessage,
  client: { clientId: string; clientSecret: string },
): Promise<{ form: URLSearchParams; grantType: 'authorization_code' | 'refresh_token' }> {
  const form = await readForm(req, () => new OAuthProblem(400, 'invalid_request', 'The token endpoint takes an application/x-www-form-urlencoded body.'));
  if (form.get('client_id') !== client.clientId || form.get('client_secret') !== client.clientSecret) {
    throw new OAuthProblem(401, 'invalid_client', 'Client authentication failed: client_id and client_secret go in the form body.');
  }
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code' || grantType === 'refresh_token') return { form, grantType };
  throw new OAuthProblem(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
}

/** The grant of an authorization code redeemed with the redirect_uri it was issued for (spent: codes work once). */
export function redeemAuthorizationCode<G extends FakeGrant>(grants: FakeGrants<G>, form: URLSearchParams): G {
  const codeValue = form.get('code');
  const redirectUri = form.get('redirect_uri');
  if (!codeValue || !redirectUri) throw new OAuthProblem(400, 'invalid_request', 'code and redirect_uri are required.');
  const code = grants.redeemableCode(codeValue);
  if (!code) throw new OAuthProblem(400, 'invalid_grant', 'Authorization code is invalid, expired or already used.');
  if (redirectUri !== code.redirectUri) throw new OAuthProblem(400, 'invalid_grant', 'redirect_uri does not match the authorization request.');
  return grants.use(code);
}
