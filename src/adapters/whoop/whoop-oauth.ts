import type { WhoopConfig } from '../../config/config';
import { OAuth2Client } from '../sources/oauth2-client';

/**
 * The WHOOP scopes labflow asks for: the four collections it reads, the member's profile (their
 * WHOOP id), and `offline`, without which WHOOP gives no refresh token.
 */
export const WHOOP_SCOPES = ['read:sleep', 'read:recovery', 'read:workout', 'read:cycles', 'read:profile', 'offline'] as const;

/** labflow's OAuth 2 client at WHOOP: `<api>/oauth/oauth2/auth` and `/token`; a refresh asks for `offline` again, so it brings a new refresh token. */
export function whoopOAuth(config: WhoopConfig): OAuth2Client {
  return new OAuth2Client({
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    authorizeUrl: new URL('/oauth/oauth2/auth', config.apiUrl).toString(),
    tokenUrl: new URL('/oauth/oauth2/token', config.apiUrl).toString(),
    scopes: WHOOP_SCOPES,
    refreshParams: { scope: 'offline' },
  });
}
