import type { WhoopConfig } from '../../config/config';
import type { ApiEnvironment } from '../../tenancy/entities';
import { GrantRefused, type OAuth2Client } from '../sources/oauth2-client';
import { isUnauthorized, ProviderHttpError } from '../sources/provider-http';
import { type SourceAdapter, type SourceBatch, type SourceConnection, SourceConnectionError } from '../sources/source-adapter';
import { withAccessToken } from '../sources/token-keeper';
import { type WhoopCycle, WhoopApi, type WhoopRecovery, type WhoopSleep, type WhoopWorkout } from './whoop-api';
import { WHOOP_RESOURCES, whoopBatches } from './whoop-mapping';
import { whoopOAuth } from './whoop-oauth';

/**
 * How far back each pull reaches before its window: WHOOP scores a sleep after the member wakes
 * and a cycle once it ends, so a record first seen unscored is found scored by the next pulls.
 * Summaries are stored by their key, so the overlap stores nothing twice.
 */
const LOOKBACK_MS = 86_400_000;

/**
 * Real WHOOP members of production teams (WHOOP developer API v2 with the tokens the member
 * granted in the Link flow): sleeps with their recoveries, workouts, and cycles as daily
 * activity. Tokens as for the other OAuth providers (token-keeper.ts): refreshed before expiry or
 * on a 401 and kept before use; WHOOP refusing the grant makes the connection's error, anything
 * else (429, 5xx, network) is a passing failure the workflow's step retries. A deregistration
 * ends labflow's access at WHOOP (`DELETE /developer/v2/user/access`).
 */
export class WhoopSourceAdapter implements SourceAdapter {
  private readonly api: WhoopApi;
  private readonly oauth: OAuth2Client;

  constructor(config: WhoopConfig) {
    this.api = new WhoopApi(config.apiUrl);
    this.oauth = whoopOAuth(config);
  }

  serves(provider: string, environment: ApiEnvironment): boolean {
    return provider === 'whoop_v2' && environment === 'production';
  }

  resources(): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    return WHOOP_RESOURCES;
  }

  async pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    if (!connection.credentials) throw new SourceConnectionError('provider_credential_error', 'labflow holds no WHOOP grant for this connection: connect WHOOP again.');
    const start = from - LOOKBACK_MS;
    try {
      const records = await withAccessToken(
        connection,
        connection.credentials,
        this.oauth,
        async (accessToken) => ({
          sleeps: await this.api.list<WhoopSleep>(accessToken, 'activity/sleep', start, to),
          recoveries: await this.api.list<WhoopRecovery>(accessToken, 'recovery', start, to),
          workouts: await this.api.list<WhoopWorkout>(accessToken, 'activity/workout', start, to),
          cycles: await this.api.list<WhoopCycle>(accessToken, 'cycle', start, to),
        }),
        isUnauthorized,
      );
      return whoopBatches(records);
    } catch (error) {
      throw connectionErrorOf(error);
    }
  }

  async revoke(connection: Pick<SourceConnection, 'provider' | 'environment' | 'credentials'>): Promise<void> {
    if (!connection.credentials) return;
    await this.api.revoke(connection.credentials.accessToken).catch((error: unknown) => {
      // An expired or already revoked token has no access left to end.
      if (!(error instanceof ProviderHttpError && error.status === 401)) throw error;
    });
  }
}

/** WHOOP's refusals of the connection itself as connection errors; other failures unchanged (retried). */
function connectionErrorOf(error: unknown): unknown {
  if (error instanceof GrantRefused) {
    return new SourceConnectionError('token_refresh_failed', "WHOOP no longer accepts labflow's access: the member revoked it or it expired. Connect WHOOP again.");
  }
  if (error instanceof ProviderHttpError && (error.status === 401 || error.status === 403)) {
    return new SourceConnectionError('provider_credential_error', "WHOOP refused labflow's fresh access token. Connect WHOOP again.");
  }
  return error;
}
