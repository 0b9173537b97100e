import type { OAuth2Client } from './oauth2-client';
import { GrantRefused } from './oauth2-client';
import { isUnauthorized, ProviderHttpError } from './provider-http';
import { type ProviderCredentials, type SourceConnection, SourceConnectionError } from './source-adapter';

/** An access token this close to its expiry is refreshed first rather than refused mid-pull. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * A real OAuth provider's pull: `use` with a working access token of the connection
 * (withAccessToken), and the provider's refusals of the connection itself as its connection
 * error — the grant refused at a refresh (`token_refresh_failed`), a fresh token refused
 * (`provider_credential_error`), and a 403 as `forbidden` says (what it means differs: Oura
 * answers it for a scope the user took away) or as a refused token. Any other failure (429, 5xx,
 * network) is passing trouble the workflow's step retries.
 */
export async function pullWithGrant<T>(
  providerName: string,
  connection: SourceConnection,
  oauth: OAuth2Client,
  use: (accessToken: string) => Promise<T>,
  forbidden?: SourceConnectionError,
): Promise<T> {
  const again = `Connect ${providerName} again.`;
  if (!connection.credentials)
    throw new SourceConnectionError('provider_credential_error', `labflow holds no ${providerName} grant for this connection. ${again}`);
  try {
    return await withAccessToken(connection, connection.credentials, oauth, use, isUnauthorized);
  } catch (error) {
    if (error instanceof GrantRefused) {
      throw new SourceConnectionError(
        'token_refresh_failed',
        `${providerName} no longer accepts labflow's access: the user revoked it or it expired. ${again}`,
      );
    }
    if (error instanceof ProviderHttpError && error.status === 403 && forbidden) throw forbidden;
    if (error instanceof ProviderHttpError && (error.status === 401 || error.status === 403)) {
      throw new SourceConnectionError('provider_credential_error', `${providerName} refused labflow's fresh access token. ${again}`);
    }
    throw error;
  }
}

/**
 * Runs `use` with a working access token of the connection: refreshed first when it is about to
 * expire, and once more when the provider answers it as unauthorized (`unauthorized(error)`:
 * expired or revoked before its time); then the answer stands. A refreshed pair is kept before it
 * is used: providers that rotate refresh tokens accept the spent one no more. Two pulls of one
 * connection racing (a retried step whose first try still runs): the one whose refresh is
 * refused takes the pair the other kept. GrantRefused when the provider refuses the grant.
 */
export async function withAccessToken<T>(
  connection: SourceConnection,
  credentials: ProviderCredentials,
  oauth: OAuth2Client,
  use: (accessToken: string) => Promise<T>,
  unauthorized: (error: unknown) => boolean,
): Promise<T> {
  let current = credentials;
  if (current.expiresAt && Date.parse(current.expiresAt) - EXPIRY_MARGIN_MS <= Date.now()) current = await refresh(connection, current, oauth);
  try {
    return await use(current.accessToken);
  } catch (error) {
    if (!unauthorized(error)) throw error;
    return use((await refresh(connection, current, oauth)).accessToken);
  }
}

async function refresh(connection: SourceConnection, credentials: ProviderCredentials, oauth: OAuth2Client): Promise<ProviderCredentials> {
  let renewed: ProviderCredentials;
  try {
    renewed = await oauth.refresh(credentials);
  } catch (error) {
    // Another pull of this connection may have spent the refresh token first and kept the new pair: that pair, not an error.
    const stored = error instanceof GrantRefused ? await connection.storedCredentials() : null;
    if (stored && stored.refreshToken !== credentials.refreshToken) return stored;
    throw error;
  }
  await connection.saveCredentials(renewed);
  return renewed;
}
