import { AuthorizationCode } from 'simple-oauth2';
import type { ProviderCredentials } from './source-adapter';

/** What labflow's OAuth 2 client at one provider needs to know. */
export interface OAuth2ClientOptions {
  clientId: string;
  clientSecret: string;
  /** The provider's authorization page (the user's browser goes there to grant access). */
  authorizeUrl: string;
  /** The provider's token endpoint. */
  tokenUrl: string;
  /** The scopes labflow asks for. */
  scopes: readonly string[];
  /** Parameters the provider wants with a refresh besides the refresh token (Dexcom: redirect_uri). */
  refreshParams?: Record<string, string>;
}

/** The provider refused a refresh token (revoked, or used already): only the user signing in again mends it. */
export class GrantRefused extends Error {}

/**
 * labflow's OAuth 2 client at a data provider (authorization-code grant; simple-oauth2 does the
 * token requests, with the client's id and secret in the form body, as Oura and Dexcom take
 * them). Providers that rotate refresh tokens answer a new pair on each refresh, which the caller
 * must keep before using (token-keeper.ts).
 */
export class OAuth2Client {
  private readonly client: AuthorizationCode;

  constructor(private readonly options: OAuth2ClientOptions) {
    const authorize = new URL(options.authorizeUrl);
    const token = new URL(options.tokenUrl);
    this.client = new AuthorizationCode({
      client: { id: options.clientId, secret: options.clientSecret },
      auth: { tokenHost: token.origin, tokenPath: token.pathname, authorizeHost: authorize.origin, authorizePath: authorize.pathname },
      options: { authorizationMethod: 'body' },
    });
  }

  /** Where the user's browser goes to grant labflow access. */
  authorizeUrl(state: string, redirectUri: string): string {
    return this.client.authorizeURL({ redirect_uri: redirectUri, scope: [...this.options.scopes], state });
  }

  /**
   * The code the provider sent the browser back with, exchanged for tokens. The granted scopes come
   * from the token answer where it has them, else from the redirect's `scope` (where the provider sends them).
   */
  async exchange(code: string, redirectUri: string, grantedScope?: string): Promise<ProviderCredentials> {
    const token = await this.client.getToken({ code, redirect_uri: redirectUri });
    return credentialsOf(token.token, scopesOf(grantedScope));
  }

  /** New tokens for the connection's refresh token; GrantRefused when the provider will not give any. */
  async refresh(credentials: ProviderCredentials): Promise<ProviderCredentials> {
    if (!credentials.refreshToken) throw new GrantRefused('The connection has no refresh token.');
    const current = this.client.createToken({ access_token: credentials.accessToken, refresh_token: credentials.refreshToken, token_type: 'bearer' });
    try {
      const renewed = await current.refresh(this.options.refreshParams ?? {});
      return credentialsOf(renewed.token, credentials.scopes);
    } catch (error) {
      const status = statusOf(error);
      // 400 invalid_grant or 401: the refresh token is no good. Anything else (5xx, network) passes.
      if (status === 400 || status === 401) throw new GrantRefused(`The provider refused the refresh token (${status}).`);
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
