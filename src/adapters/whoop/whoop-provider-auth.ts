import type { WhoopConfig } from '../../config/config';
import { OAuthProviderAuth } from '../sources/provider-auth';
import { WhoopApi } from './whoop-api';
import { whoopOAuth } from './whoop-oauth';

/** Signing in to WHOOP in the Link flow (production teams); the member's WHOOP id from their basic profile. */
export class WhoopProviderAuth extends OAuthProviderAuth {
  constructor(config: WhoopConfig) {
    const api = new WhoopApi(config.apiUrl);
    super({ name: 'WHOOP', slug: 'whoop_v2', oauth: whoopOAuth(config), userIdOf: (accessToken) => api.userId(accessToken) });
  }
}
