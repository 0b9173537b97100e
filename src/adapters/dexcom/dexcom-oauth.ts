import type { DexcomConfig } from '../../config/config';
import { OAuth2Client } from '../sources/oauth2-client';

/** Dexcom grants a refresh token only with `offline_access`, its one scope. */
export const DEXCOM_SCOPES = ['offline_access'] as const;

/** labflow's OAuth 2 client at Dexcom: login and tokens under `<api>/v2/oauth2`; a refresh names the redirect URI again. */
export function dexcomOAuth(config: DexcomConfig): OAuth2Client {
  return new OAuth2Client({
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    authorizeUrl: new URL('/v2/oauth2/login', config.apiUrl).toString(),
    tokenUrl: new URL('/v2/oauth2/token', config.apiUrl).toString(),
    scopes: DEXCOM_SCOPES,
    refreshParams: { redirect_uri: config.redirectUri },
  });
}
