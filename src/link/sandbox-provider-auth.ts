import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { SANDBOX_PROVIDERS } from '../connections/sandbox-physiology';
import { PROVIDERS } from '../health-data/providers';
import type { ApiEnvironment } from '../tenancy/entities';
import type { AuthOutcome, LinkAuthType, ProviderAuth } from '../adapters/sources/provider-auth';

/**
 * The sandbox's providers, as a user meets them in the Link flow. Any credentials sign in,
 * except these, which make the provider answer as a real one does when something is wrong:
 *
 * - password `wrong-password`: provider_credential_error; `expired-password`: provider_password_expired;
 * - a username starting with `mfa`: a second factor by SMS, whose code is `123456` (any other:
 *   incorrect_mfa_code);
 * - region other than `us` or `eu`: unsupported_region;
 * - an e-mail address with `+decline` in it: the invitation is declined (user_cancelled);
 * - on the sandbox consent page, "Deny" (user_cancelled) and "Allow without heart rate"
 *   (required_scopes_not_granted).
 *
 * Only in the sandbox environment: production has no provider clients yet, so Link offers
 * nothing there.
 */
export const SANDBOX_MFA_CODE = '123456';
export const SANDBOX_OAUTH_GRANTED = 'sandbox-granted';
export const SANDBOX_OAUTH_PARTIAL = 'sandbox-partial';
const REGIONS = new Set(['us', 'eu']);

@Injectable()
export class SandboxProviderAuth implements ProviderAuth {
  private readonly authTypes = new Map<string, LinkAuthType>();

  constructor(@Inject(LABFLOW_CONFIG) private readonly config: Pick<LabflowConfig, 'api'>) {
    const served = new Set<string>(SANDBOX_PROVIDERS);
    for (const provider of PROVIDERS) {
      const { authType } = provider;
      if (served.has(provider.slug) && (authType === 'oauth' || authType === 'password' || authType === 'email')) this.authTypes.set(provider.slug, authType);
    }
  }

  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null {
    return environment === 'sandbox' ? (this.authTypes.get(provider) ?? null) : null;
  }

  oauthUrl(provider: string, state: string, callbackUrl: string): string {
    const url = new URL(`/link/sandbox/oauth/${provider}`, this.config.api.publicUrl);
    url.searchParams.set('state', state);
    url.searchParams.set('redirect_uri', callbackUrl);
    return url.toString();
  }

  async completeOauth(provider: string, { code }: { code: string }): Promise<AuthOutcome> {
    if (code.startsWith(SANDBOX_OAUTH_GRANTED)) return { outcome: 'connected' };
    if (code.startsWith(SANDBOX_OAUTH_PARTIAL)) {
      return { outcome: 'refused', errorType: 'required_scopes_not_granted', error: `Access to heart rate was not granted; ${provider} needs it.` };
    }
    return { outcome: 'refused', errorType: 'provider_api_error', error: `${provider} did not accept the authorization code.` };
  }

  async password(provider: string, credentials: { username: string; password: string; region?: string }): Promise<AuthOutcome> {
    if (credentials.region && !REGIONS.has(credentials.region)) {
      return { outcome: 'refused', errorType: 'unsupported_region', error: `${provider} has no accounts in region ${credentials.region}.` };
    }
    if (credentials.password === 'wrong-password')
      return { outcome: 'refused', errorType: 'provider_credential_error', error: 'The username or password is not correct.' };
    if (credentials.password === 'expired-password')
      return { outcome: 'refused', errorType: 'provider_password_expired', error: `The password has expired; set a new one at ${provider} first.` };
    if (credentials.username.toLowerCase().startsWith('mfa')) return { outcome: 'mfa', method: 'sms', hint: '•••-•••-0123', challenge: randomUUID() };
    return { outcome: 'connected' };
  }

  async completeMfa(_provider: string, _challenge: string, code: string): Promise<AuthOutcome> {
    if (code === SANDBOX_MFA_CODE) return { outcome: 'connected' };
    return { outcome: 'refused', errorType: 'incorrect_mfa_code', error: 'The code is not correct.' };
  }

  async email(provider: string, email: string, region?: string): Promise<AuthOutcome> {
    if (region && !REGIONS.has(region))
      return { outcome: 'refused', errorType: 'unsupported_region', error: `${provider} has no accounts in region ${region}.` };
    if (email.includes('+decline')) return { outcome: 'refused', errorType: 'user_cancelled', error: `The invitation to share ${provider} data was declined.` };
    return { outcome: 'connected' };
  }
}
