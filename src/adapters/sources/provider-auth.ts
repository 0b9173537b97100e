import { type OAuth2Client, statusOf } from './oauth2-client';
import type { ProviderGrant } from './source-adapter';
import type { ApiEnvironment } from '../../tenancy/entities';

/**
 * Where a provider's sign-in plugs in: the Link flow asks it to check what the user typed or
 * to finish an OAuth grant, and connects the user when it answers `connected`. The sandbox
 * implementation (sandbox-provider-auth.ts) plays the providers the sandbox source adapter
 * generates data for; a real provider's client would call its OAuth or login API here and
 * hand its credentials to that provider's SourceAdapter.
 */
export const PROVIDER_AUTH = Symbol('PROVIDER_AUTH');

/** Every ProviderAuth labflow has, most specific first: real providers' clients, then the sandbox's (PROVIDER_AUTH is a list). */
export type ProviderAuths = readonly ProviderAuth[];

/** How a provider is connected through Link (the SDK's OAuthProviders, PasswordProviders, EmailProviders). */
export type LinkAuthType = 'oauth' | 'password' | 'email';

/** The SDK's ProviderLinkResponseErrorType. */
export const LINK_ERROR_TYPES = [
  'invalid_token',
  'token_expired',
  'token_not_validated',
  'token_consumed',
  'provider_credential_error',
  'provider_password_expired',
  'provider_api_error',
  'unsupported_region',
  'duplicate_connection',
  'required_scopes_not_granted',
  'incorrect_mfa_code',
  'user_cancelled',
] as const;
export type LinkErrorType = (typeof LINK_ERROR_TYPES)[number];

/** What a provider answered to a sign-in. */
export type AuthOutcome =
  /** `grant`: what a real provider gave labflow to fetch the user's data with (none in the sandbox). */
  | { outcome: 'connected'; grant?: ProviderGrant }
  | { outcome: 'refused'; errorType: LinkErrorType; error: string }
  /** A second factor is needed: `challenge` is the provider's handle on it (never a secret of the user). */
  | { outcome: 'mfa'; method: 'sms' | 'email'; hint: string; challenge: string };

export interface ProviderAuth {
  /** How `provider` is connected in `environment`, or null when it cannot be connected there. */
  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null;
  /** Where the user's browser goes to grant access; the provider sends it back to `callbackUrl` with `state`. */
  oauthUrl(provider: string, state: string, callbackUrl: string): string;
  /**
   * The provider sent the browser back with `code` (granted) and, from some providers, the
   * `scope` the user granted; `callbackUrl` is the one `oauthUrl` was given (OAuth 2 sends it
   * again with the code).
   */
  completeOauth(provider: string, grant: { code: string; scope?: string; callbackUrl: string }): Promise<AuthOutcome>;
  password(provider: string, credentials: { username: string; password: string; region?: string }): Promise<AuthOutcome>;
  completeMfa(provider: string, challenge: string, code: string): Promise<AuthOutcome>;
  /** An e-mail provider invites the address to share its data (LibreView). */
  email(provider: string, email: string, region?: string): Promise<AuthOutcome>;
}

/** What signing in to one real OAuth provider takes (OAuthProviderAuth). */
export interface OAuthSignIn {
  /** The provider's name, as messages say it. */
  name: string;
  /** Junction's slug of the provider; Link offers it to production teams. */
  slug: string;
  oauth: OAuth2Client;
  /** The user's id at the provider, read with a fresh access token (a label: a failure leaves it null). */
  userIdOf(accessToken: string): Promise<string>;
  /** Scopes labflow cannot work without: a grant the user narrowed on the provider's page is refused. */
  requiredScopes?: readonly string[];
}

/**
 * Signing in to a real provider in the Link flow (production teams): the user grants labflow
 * access on the provider's page, the provider sends the browser back with a code, and the code
 * becomes the connection's tokens (kept encrypted with it) and the user's id at the provider
 * (`external_user_id`). Such a provider signs in by OAuth only: the Link flow never asks it for a
 * password, a second factor or an e-mail invitation; should it be asked, it refuses.
 */
export class OAuthProviderAuth implements ProviderAuth {
  constructor(private readonly signIn: OAuthSignIn) {}

  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null {
    return provider === this.signIn.slug && environment === 'production' ? 'oauth' : null;
  }

  oauthUrl(_provider: string, state: string, callbackUrl: string): string {
    return this.signIn.oauth.authorizeUrl(state, callbackUrl);
  }

  async completeOauth(_provider: string, grant: { code: string; scope?: string; callbackUrl: string }): Promise<AuthOutcome> {
    const { name, oauth, requiredScopes = [] } = this.signIn;
    let credentials;
    try {
      credentials = await oauth.exchange(grant.code, grant.callbackUrl, grant.scope);
    } catch (error) {
      const status = statusOf(error);
      return { outcome: 'refused', errorType: 'provider_api_error', error: `${name} did not accept the sign-in${status ? ` (${status})` : ''}. Try again.` };
    }
    // The user may untick scopes on the provider's page; the provider says which it granted.
    const missing = requiredScopes.filter((scope) => !credentials.scopes.includes(scope));
    if (credentials.scopes.length > 0 && missing.length > 0) {
      return {
        outcome: 'refused',
        errorType: 'required_scopes_not_granted',
        error: `${name} access to ${missing.join(' and ')} was not granted; labflow needs it.`,
      };
    }
    let externalUserId: string | null = null;
    try {
      externalUserId = await this.signIn.userIdOf(credentials.accessToken);
    } catch {
      // The user's id at the provider is a label; the connection works without it.
    }
    return { outcome: 'connected', grant: { credentials, externalUserId } };
  }

  async password(): Promise<AuthOutcome> {
    return { outcome: 'refused', errorType: 'provider_api_error', error: `${this.signIn.name} is connected by OAuth, not a password.` };
  }

  completeMfa(): Promise<AuthOutcome> {
    return this.password();
  }

  email(): Promise<AuthOutcome> {
    return this.password();
  }
}
