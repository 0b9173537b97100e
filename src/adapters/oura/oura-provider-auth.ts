import type { OuraConfig } from '../../config/config';
import { type AuthOutcome, type LinkAuthType, OAuthOnlyProviderAuth } from '../sources/provider-auth';
import type { ApiEnvironment } from '../../tenancy/entities';
import { OuraApi } from './oura-api';
import { type OAuth2Client, statusOf } from '../sources/oauth2-client';
import { OURA_REQUIRED_SCOPES, ouraOAuth } from './oura-oauth';

/**
 * Signing in to Oura in the Link flow (production teams): the user grants labflow access on
 * Oura's page, Oura sends the browser back with a code, and the code becomes the connection's
 * tokens (kept encrypted with it) and the user's Oura id (`external_user_id`).
 */
export class OuraProviderAuth extends OAuthOnlyProviderAuth {
  private readonly oauth: OAuth2Client;
  private readonly api: OuraApi;

  constructor(config: OuraConfig) {
    super('Oura');
    this.oauth = ouraOAuth(config);
    this.api = new OuraApi(config.apiUrl);
  }

  authTypeOf(provider: string, environment: ApiEnvironment): LinkAuthType | null {
    return provider === 'oura' && environment === 'production' ? 'oauth' : null;
  }

  oauthUrl(_provider: string, state: string, callbackUrl: string): string {
    return this.oauth.authorizeUrl(state, callbackUrl);
  }

  async completeOauth(_provider: string, grant: { code: string; scope?: string; callbackUrl: string }): Promise<AuthOutcome> {
    let credentials;
    try {
      credentials = await this.oauth.exchange(grant.code, grant.callbackUrl, grant.scope);
    } catch (error) {
      const status = statusOf(error);
      return { outcome: 'refused', errorType: 'provider_api_error', error: `Oura did not accept the sign-in${status ? ` (${status})` : ''}. Try again.` };
    }
    // The user may untick scopes on Oura's page; Oura says which it granted on the redirect.
    const missing = OURA_REQUIRED_SCOPES.filter((scope) => !credentials.scopes.includes(scope));
    if (credentials.scopes.length > 0 && missing.length > 0) {
      return { outcome: 'refused', errorType: 'required_scopes_not_granted', error: `Oura access to ${missing.join(' and ')} was not granted; labflow needs it.` };
    }
    let externalUserId: string | null = null;
    try {
      externalUserId = (await this.api.personalInfo(credentials.accessToken)).id;
    } catch {
      // The user's Oura id is a label; the connection works without it.
    }
    return { outcome: 'connected', grant: { credentials, externalUserId } };
  }
}
