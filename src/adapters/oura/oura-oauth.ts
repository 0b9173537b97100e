import type { OuraConfig } from '../../config/config';
import { OAuth2Client } from '../sources/oauth2-client';

/**
 * The Oura scopes labflow asks for, no more: `daily` (sleep and daily activity) and `heartrate`
 * (the heart-rate series). A user who unticks either gets `required_scopes_not_granted`. The
 * user's Oura id (personal_info) needs no scope.
 */
export const OURA_SCOPES = ['daily', 'heartrate'] as const;
export const OURA_REQUIRED_SCOPES = OURA_SCOPES;

/** labflow's OAuth 2 client at Oura: its token endpoint is `<api>/oauth/token`; refresh tokens are single-use. */
export function ouraOAuth(config: OuraConfig): OAuth2Client {
  return new OAuth2Client({
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    authorizeUrl: config.authorizeUrl,
    tokenUrl: new URL('/oauth/token', config.apiUrl).toString(),
    scopes: OURA_SCOPES,
  });
}
