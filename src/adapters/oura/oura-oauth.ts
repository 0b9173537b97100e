import { AuthorizationCode } from 'simple-oauth2';
import type { OuraConfig } from '../../config/config';
import type { ProviderCredentials } from '../sources/source-adapter';

/**
 * The Oura scopes labflow asks for, no more: `daily` (sleep and daily activity) and `heartrate`
 * (the heart-rate series). A user who unticks either gets `required_scopes_not_granted`. The
 * user's Oura id (personal_info) needs no scope.
 */
export const OURA_SCOPES = ['daily', 'heartrate'] as const;
export const OURA_REQUIRED_SCOPES = OURA_SCOPES;

/** Oura refused a refresh token (revoked, or used already): only the user signing in again mends it. */
export class OuraGrantRefused extends Error {}

/**
 * labflow's OAuth 2 client at Oura (authorization-code grant; simple-oauth2 does the token
 * requests). Oura's access tokens expire and its refresh tokens are single-use: each refresh
 * answers a new pair, which the caller must keep before using.
 */
export class OuraOAuth {
  private readonly client: AuthorizationCode;

  constructor(config: OuraConfig) {
    const authorize = new URL(config.authorizeUrl);
    this.client = new AuthorizationCode({
      client: { id: config.clientId, secret: config.clientSecret },
      auth: { tokenHost: config.apiUrl, tokenPath: '/oauth/token', authorizeHost: authorize.origin, authorizePath: authorize.pathname },
      // Oura takes the client's id and secret in the form body.
      options: { authorizationMethod: 'body' },
    });
  }

  /** Where the user's browser goes to grant labflow access. */
  authorizeUrl(state: string, redirectUri: string): string {
    return this.client.authorizeURL({ redirect_uri: redirectUri, scope: [...OURA_SCOPES], state });
  }

  /**
   * The code Oura sent the browser back with, exchanged for tokens. The granted scopes come from
   * the token answer where it has them, else from the redirect's `scope` (where Oura documents them).
   */
  async exchange(code: string, redirectUri: string, grantedScope?: string): Promise<ProviderCredentials> {
    const token = await this.client.getToken({ code, redirect_uri: redirectUri });
    return credentialsOf(token.token, scopesOf(grantedScope));
  }

  /** New tokens for the connection's refresh token; OuraGrantRefused when Oura will not give any. */
  async refresh(credentials: ProviderCredentials): Promise<ProviderCredentials> {
    if (!credentials.refreshToken) throw new OuraGrantRefused('The connection has no refresh token.');
    const current = this.client.createToken({ access_token: credentials.accessToken, refresh_token: credentials.refreshToken, token_type: 'bearer' });
    try {
      const renewed = await current.refresh();
      return credentialsOf(renewed.token, credentials.scopes);
    } catch (error) {
      const status = statusOf(error);
      // 400 invalid_grant or 401: the refresh token is no good. Anything else (5xx, network) passes.
      if (status === 400 || status === 401) throw new OuraGrantRefused(`Oura refused the refresh token (${status}).`);
      throw error;
    }
  }
}

/** The status of a failed token request (simple-oauth2 raises Boom errors), or null. */
export function statusOf(error: unknown): number | null {
  const output = (error as { output?: { statusCode?: number } }).output;
  return typeof output?.statusCode === 'number' ? output.statusCode : null;
}

function scopesOf(scope: string | undefined): string[] {
  return (scope ?? '').split(/[ ,+]+/).filter(Boolean);
}

/** A token answer as stored credentials; `knownScopes` when the answer does not list them. */
function credentialsOf(token: Record<string, unknown>, knownScopes: string[]): ProviderCredentials {
  const expiresAt = token.expires_at instanceof Date ? token.expires_at.toISOString() : null;
  const scope = typeof token.scope === 'string' ? scopesOf(token.scope) : knownScopes;
  return {
    accessToken: String(token.access_token),
    refreshToken: typeof token.refresh_token === 'string' ? token.refresh_token : null,
    expiresAt,
    scopes: scope,
  };
}
