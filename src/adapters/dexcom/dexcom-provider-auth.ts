import type { DexcomConfig } from '../../config/config';
import { OAuthProviderAuth } from '../sources/provider-auth';
import { DexcomApi } from './dexcom-api';
import { dexcomOAuth } from './dexcom-oauth';

/** Signing in to Dexcom in the Link flow (production teams); the user's Dexcom id from their data range. */
export class DexcomProviderAuth extends OAuthProviderAuth {
  constructor(config: DexcomConfig) {
    const api = new DexcomApi(config.apiUrl);
    super({ name: 'Dexcom', slug: 'dexcom_v3', oauth: dexcomOAuth(config), userIdOf: (accessToken) => api.userId(accessToken) });
  }
}
