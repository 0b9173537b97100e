import type { DexcomConfig } from '../../config/config';
import type { ApiEnvironment } from '../../tenancy/entities';
import type { OAuth2Client } from '../sources/oauth2-client';
import type { SourceAdapter, SourceBatch, SourceConnection } from '../sources/source-adapter';
import { pullWithGrant } from '../sources/token-keeper';
import { DexcomApi } from './dexcom-api';
import { DEXCOM_RESOURCES, dexcomBatches } from './dexcom-mapping';
import { dexcomOAuth } from './dexcom-oauth';

/**
 * How far back each pull reaches before its window. Dexcom has a record only once the phone app
 * or receiver has uploaded it (Dexcom's API serves data with a delay, longer while the phone is
 * offline), so a window that ended before then would miss it; the overlap is stored under the
 * same keys, so nothing is stored twice.
 */
const LOOKBACK_MS = 86_400_000;

/**
 * Real Dexcom CGMs of production teams' users (Dexcom API v3 with the tokens the user granted in
 * the Link flow): estimated glucose values as the glucose timeseries. Access tokens (two hours)
 * are refreshed, and the new pair kept, before they are used (token-keeper.ts); Dexcom refusing
 * the grant makes the connection's error, anything else (429, 5xx, network) is a passing failure
 * the workflow's step retries. Dexcom has no revocation endpoint: a deregistration forgets the
 * tokens; the user ends the grant in their Dexcom account.
 */
export class DexcomSourceAdapter implements SourceAdapter {
  private readonly api: DexcomApi;
  private readonly oauth: OAuth2Client;

  constructor(config: DexcomConfig) {
    this.api = new DexcomApi(config.apiUrl);
    this.oauth = dexcomOAuth(config);
  }

  serves(provider: string, environment: ApiEnvironment): boolean {
    return provider === 'dexcom_v3' && environment === 'production';
  }

  resources(): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    return DEXCOM_RESOURCES;
  }

  pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    const start = from - LOOKBACK_MS;
    return pullWithGrant('Dexcom', connection, this.oauth, async (accessToken) => dexcomBatches(await this.api.egvs(accessToken, start, to)));
  }
}
