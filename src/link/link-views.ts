import { logoOf, providerInfo } from '../health-data/providers';
import type { LinkTokenRow } from './link-tokens.repository';
import type { LinkAuthType } from '../adapters/sources/provider-auth';

/** The fields a sign-in form asks, per auth type (SourceLink's `form_components`). */
const FORM_COMPONENTS: Record<LinkAuthType, Record<string, { type: string; label: string; required: boolean }>> = {
  oauth: {},
  password: {
    username: { type: 'text', label: 'Username or e-mail', required: true },
    password: { type: 'password', label: 'Password', required: true },
    region: { type: 'select', label: 'Region (us, eu)', required: false },
  },
  email: { email: { type: 'email', label: 'E-mail address', required: true } },
};

/** What every source object of Link says of its provider. */
function sourceBase(slug: string) {
  const info = providerInfo(slug);
  return { id: info?.sourceId ?? 0, name: info?.name ?? slug, slug, description: info?.description ?? '', logo: logoOf(slug) };
}

/** One entry of `GET /v2/link/providers` (SourceLink). The OAuth URL is made per flow (GET /v2/link/provider/oauth/{provider}). */
export function sourceLinkView(slug: string, authType: LinkAuthType) {
  return {
    ...sourceBase(slug),
    oauth_url: null,
    auth_type: authType,
    form_components: FORM_COMPONENTS[authType],
  };
}

/** `GET /v2/link/provider/oauth/{provider}` (Source), with the URL the user's browser opens to grant access. */
export function oauthSourceView(slug: string, oauthUrl: string) {
  return {
    ...sourceBase(slug),
    group: null,
    oauth_url: oauthUrl,
    auth_type: 'oauth' as const,
    source_type: providerInfo(slug)?.sourceType ?? 'provider',
    is_active: true,
    backfill_num_days: 30,
  };
}

/**
 * Where the browser goes after the flow: the team's redirect_url with what happened added
 * (`state=success|error`, `provider`, and on error `error_type` and `error`), or null without one.
 */
export function redirectAfter(
  token: Pick<LinkTokenRow, 'redirectUrl'>,
  outcome: { state: 'success' | 'error'; provider: string | null; errorType?: string | null; error?: string | null },
): string | null {
  if (!token.redirectUrl) return null;
  const url = new URL(token.redirectUrl);
  url.searchParams.set('state', outcome.state);
  if (outcome.provider) url.searchParams.set('provider', outcome.provider);
  if (outcome.state === 'error') {
    if (outcome.errorType) url.searchParams.set('error_type', outcome.errorType);
    if (outcome.error) url.searchParams.set('error', outcome.error);
  }
  return url.toString();
}

/**
 * Where the browser goes once a sign-in step left the token as it is: to the team after a
 * connection, or after an error when the team asked for it (`on_error: redirect`); else nowhere
 * (null: Link stays, so the user can try again).
 */
export function redirectAfterStep(token: LinkTokenRow, provider: string): string | null {
  const connected = token.state === 'success';
  if (!connected && !(token.state === 'error' && token.onError === 'redirect')) return null;
  return redirectAfter(token, { state: connected ? 'success' : 'error', provider, errorType: token.errorType, error: token.error });
}

/** A sign-in's answer (ProviderLinkResponse), from the token as the step left it. */
export function providerLinkView(token: LinkTokenRow, provider: string) {
  const connected = token.state === 'success';
  const failed = token.state === 'error';
  const redirectUrl = redirectAfterStep(token, provider);
  return {
    state: token.state === 'pending' ? 'error' : token.state,
    provider,
    connected,
    redirect_url: redirectUrl,
    error_type: failed ? token.errorType : null,
    error: failed ? token.error : null,
    provider_mfa: token.state === 'pending_provider_mfa' ? { method: token.mfaMethod, hint: token.mfaHint } : null,
    provider_id: null,
  };
}

/** `GET /v2/link/state`: where the token's flow stands (the widget polls it). */
export function linkStateView(token: LinkTokenRow, expired: boolean) {
  const state = token.state === 'success' ? 'success' : expired ? 'error' : token.state;
  return {
    state,
    provider: token.chosenProvider,
    connected: token.state === 'success',
    redirect_url: token.state === 'success' ? redirectAfter(token, { state: 'success', provider: token.chosenProvider }) : token.redirectUrl,
    error_type: token.state === 'success' ? null : expired ? 'token_expired' : token.errorType,
    error: token.state === 'success' ? null : expired ? 'The link token has expired.' : token.error,
    provider_mfa: !expired && token.state === 'pending_provider_mfa' ? { method: token.mfaMethod, hint: token.mfaHint } : null,
    expires_at: token.expiresAt.toISOString(),
  };
}
