import type { WhoopConfig } from '../../config/config';
import type { ApiEnvironment } from '../../tenancy/entities';
import type { OAuth2Client } from '../sources/oauth2-client';
import { ProviderHttpError } from '../sources/provider-http';
import type { SourceAdapter, SourceBatch, SourceConnection } from '../sources/source-adapter';
import { pullWithGrant } from '../sources/token-keeper';
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

  pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    const start = from - LOOKBACK_MS;
    return pullWithGrant('WHOOP', connection, this.oauth, async (accessToken) =>
      whoopBatches(
        {
          // One collection after the other: a failure stops the pull there, and the step's retry starts over.
          sleeps: await this.api.list<WhoopSleep>(accessToken, 'activity/sleep', start, to),
          recoveries: await this.api.list<WhoopRecovery>(accessToken, 'recovery', start, to),
          workouts: await this.api.list<WhoopWorkout>(accessToken, 'activity/workout', start, to),
          cycles: await this.api.list<WhoopCycle>(accessToken, 'cycle', start, to),
        },
        connection.userId,
      ),
    );
  }

  async revoke(connection: Pick<SourceConnection, 'provider' | 'environment' | 'credentials'>): Promise<void> {
    if (!connection.credentials) return;
    await this.api.revoke(connection.credentials.accessToken).catch((error: unknown) => {
      // An expired or already revoked token has no access left to end.
      if (!(error instanceof ProviderHttpError && error.status === 401)) throw error;
    });
  }
}
