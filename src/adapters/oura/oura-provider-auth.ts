import type { OuraConfig } from '../../config/config';
import { OAuthProviderAuth } from '../sources/provider-auth';
import { OuraApi } from './oura-api';
import { OURA_REQUIRED_SCOPES, ouraOAuth } from './oura-oauth';

/** Signing in to Oura in the Link flow (production teams); the user's Oura id from personal_info. */
export class OuraProviderAuth extends OAuthProviderAuth {
  constructor(config: OuraConfig) {
    const api = new OuraApi(config.apiUrl);
    super({
      name: 'Oura',
      slug: 'oura',
      oauth: ouraOAuth(config),
      requiredScopes: OURA_REQUIRED_SCOPES,
      userIdOf: async (accessToken) => (await api.personalInfo(accessToken)).id,
    });
  }
}
