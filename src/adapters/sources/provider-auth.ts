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

/**
 * A real provider that signs in by OAuth only (Oura, Dexcom): the Link flow never asks it for a
 * password, a second factor or an e-mail invitation (its authTypeOf says `oauth`); should it be
 * asked, it refuses.
 */
export abstract class OAuthOnlyProviderAuth implements ProviderAuth {
  constructor(private readonly providerName: string) {}

  abstract authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null;
  abstract oauthUrl(provider: string, state: string, callbackUrl: string): string;
  abstract completeOauth(provider: string, grant: { code: string; scope?: string; callbackUrl: string }): Promise<AuthOutcome>;

  async password(): Promise<AuthOutcome> {
    return { outcome: 'refused', errorType: 'provider_api_error', error: `${this.providerName} is connected by OAuth, not a password.` };
  }

  completeMfa(): Promise<AuthOutcome> {
    return this.password();
  }

  email(): Promise<AuthOutcome> {
    return this.password();
  }
}
