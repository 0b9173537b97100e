import type { DexcomConfig } from '../../config/config';
import type { ApiEnvironment } from '../../tenancy/entities';
import { type OAuth2Client, statusOf } from '../sources/oauth2-client';
import { type AuthOutcome, type LinkAuthType, OAuthOnlyProviderAuth } from '../sources/provider-auth';
import { DexcomApi } from './dexcom-api';
import { dexcomOAuth } from './dexcom-oauth';

/**
 * Signing in to Dexcom in the Link flow (production teams): the user grants labflow access on
 * Dexcom's login page, Dexcom sends the browser back with a code, and the code becomes the
 * connection's tokens (kept encrypted with it) and the user's Dexcom id (`external_user_id`).
 */
export class DexcomProviderAuth extends OAuthOnlyProviderAuth {
  private readonly oauth: OAuth2Client;
  private readonly api: DexcomApi;

  constructor(config: DexcomConfig) {
    super('Dexcom');
    this.oauth = dexcomOAuth(config);
    this.api = new DexcomApi(config.apiUrl);
  }

  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null {
    return provider === 'dexcom_v3' && environment === 'production' ? 'oauth' : null;
  }

  oauthUrl(_provider: string, state: string, callbackUrl: string): string {
    return this.oauth.authorizeUrl(state, callbackUrl);
  }

  async completeOauth(_provider: string, grant: { code: string; callbackUrl: string }): Promise<AuthOutcome> {
    let credentials;
    try {
      credentials = await this.oauth.exchange(grant.code, grant.callbackUrl);
    } catch (error) {
      const status = statusOf(error);
      return { outcome: 'refused', errorType: 'provider_api_error', error: `Dexcom did not accept the sign-in${status ? ` (${status})` : ''}. Try again.` };
    }
    let externalUserId: string | null = null;
    try {
      externalUserId = await this.api.userId(credentials.accessToken);
    } catch {
      // The user's Dexcom id is a label; the connection works without it.
    }
    return { outcome: 'connected', grant: { credentials, externalUserId } };
  }
}
