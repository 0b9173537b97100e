import type { OuraConfig } from '../../config/config';
import {
  type ProviderCredentials,
  type SourceAdapter,
  type SourceBatch,
  type SourceConnection,
  SourceConnectionError,
} from '../sources/source-adapter';
import type { ApiEnvironment } from '../../tenancy/entities';
import { OuraApi, type OuraDailyActivity, type OuraDailySleep, OuraHttpError, type OuraSleep } from './oura-api';
import { OURA_RESOURCES, ouraBatches } from './oura-mapping';
import { OuraGrantRefused, OuraOAuth } from './oura-oauth';

const DAY_MS = 86_400_000;
/**
 * How far back each pull reaches before its window. Oura publishes a night or a day once the
 * ring has synced with the phone, often hours later, so a window that ended before then would
 * miss it for good; the overlap is stored under the same keys, so nothing is stored twice.
 */
const LOOKBACK_MS = 2 * DAY_MS;
/** An access token this close to its expiry is refreshed first rather than refused mid-pull. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * Real Oura rings of production teams' users (Oura API v2 with the tokens the user granted in
 * the Link flow): heart rate, the night's HRV and hypnogram, sleep and daily activity summaries.
 * Expired access tokens are refreshed, and the new pair kept, before they are used; Oura refusing
 * the grant (revoked, refresh token spent) or a scope makes the connection's error, anything else
 * (429, 5xx, network) is a passing failure the workflow's step retries.
 */
export class OuraSourceAdapter implements SourceAdapter {
  private readonly api: OuraApi;
  private readonly oauth: OuraOAuth;

  constructor(config: OuraConfig) {
    this.api = new OuraApi(config.apiUrl);
    this.oauth = new OuraOAuth(config);
  }

  serves(provider: string, environment: ApiEnvironment): boolean {
    return provider === 'oura' && environment === 'production';
  }

  resources(): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    return OURA_RESOURCES;
  }

  async pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    if (!connection.credentials) throw new SourceConnectionError('provider_credential_error', 'labflow holds no Oura grant for this connection: connect Oura again.');
    try {
      let credentials = connection.credentials;
      if (credentials.expiresAt && Date.parse(credentials.expiresAt) - EXPIRY_MARGIN_MS <= Date.now()) credentials = await this.refresh(connection, credentials);
      try {
        return await this.fetch(credentials.accessToken, from, to);
      } catch (error) {
        // Expired or revoked before its time: one refresh, then the answer stands.
        if (!(error instanceof OuraHttpError && error.status === 401)) throw error;
        return await this.fetch((await this.refresh(connection, credentials)).accessToken, from, to);
      }
    } catch (error) {
      throw connectionErrorOf(error);
    }
  }

  /** Deregistered: the grant ends at Oura too, so the tokens are worth nothing wherever a copy survives. */
  async revoke(connection: Pick<SourceConnection, 'credentials'>): Promise<void> {
    if (connection.credentials) await this.api.revoke(connection.credentials.accessToken);
  }

  private async refresh(connection: SourceConnection, credentials: ProviderCredentials): Promise<ProviderCredentials> {
    let renewed: ProviderCredentials;
    try {
      renewed = await this.oauth.refresh(credentials);
    } catch (error) {
      // Another pull of this connection (a retried step whose first try still runs) may have
      // spent the refresh token first and kept the new pair: that pair, not an error.
      const stored = error instanceof OuraGrantRefused ? await connection.storedCredentials() : null;
      if (stored && stored.refreshToken !== credentials.refreshToken) return stored;
      throw error;
    }
    // Kept before use: the refresh token just spent will not be accepted again.
    await connection.saveCredentials(renewed);
    return renewed;
  }

  private async fetch(accessToken: string, from: number, to: number): Promise<SourceBatch[]> {
    const start = from - LOOKBACK_MS;
    // Oura's days are the wearer's: a day either side of the UTC dates covers every time zone.
    const startDay = isoDay(start - DAY_MS);
    const endDay = isoDay(to + DAY_MS);
    // One collection after the other: a failure stops the pull there (nothing left running in
    // the background against Oura's rate limit), and the step's retry starts over.
    const heartRate = await this.api.heartRate(accessToken, new Date(start), new Date(to));
    const sleep = await this.api.byDay<OuraSleep>(accessToken, 'sleep', startDay, endDay);
    const dailySleep = await this.api.byDay<OuraDailySleep>(accessToken, 'daily_sleep', startDay, endDay);
    const dailyActivity = await this.api.byDay<OuraDailyActivity>(accessToken, 'daily_activity', startDay, endDay);
    const inWindow = heartRate.filter((sample) => {
      const at = Date.parse(sample.timestamp);
      return at >= start && at < to;
    });
    return ouraBatches({ heartRate: inWindow, sleep, dailySleep, dailyActivity });
  }
}

/** Oura's refusals of the connection itself as connection errors; other failures unchanged (retried). */
function connectionErrorOf(error: unknown): unknown {
  if (error instanceof OuraGrantRefused) {
    return new SourceConnectionError('token_refresh_failed', 'Oura no longer accepts labflow\'s access: the user revoked it or it expired. Connect Oura again.');
  }
  if (error instanceof OuraHttpError && error.status === 403) {
    return new SourceConnectionError('required_scopes_not_granted', 'Oura refused to share data the connection needs (daily summaries and heart rate). Connect Oura again and allow them.');
  }
  if (error instanceof OuraHttpError && error.status === 401) {
    return new SourceConnectionError('provider_credential_error', 'Oura refused labflow\'s fresh access token. Connect Oura again.');
  }
  return error;
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}
