import type { OuraConfig } from '../../config/config';
import type { OAuth2Client } from '../sources/oauth2-client';
import { type SourceAdapter, type SourceBatch, type SourceConnection, SourceConnectionError } from '../sources/source-adapter';
import { pullWithGrant } from '../sources/token-keeper';
import type { ApiEnvironment } from '../../tenancy/entities';
import { OuraApi, type OuraDailyActivity, type OuraDailySleep, type OuraSleep } from './oura-api';
import { OURA_RESOURCES, ouraBatches } from './oura-mapping';
import { ouraOAuth } from './oura-oauth';

const DAY_MS = 86_400_000;
/**
 * How far back each pull reaches before its window. Oura publishes a night or a day once the
 * ring has synced with the phone, often hours later, so a window that ended before then would
 * miss it for good; the overlap is stored under the same keys, so nothing is stored twice.
 */
const LOOKBACK_MS = 2 * DAY_MS;

/**
 * Real Oura rings of production teams' users (Oura API v2 with the tokens the user granted in
 * the Link flow): heart rate, the night's HRV and hypnogram, sleep and daily activity summaries.
 * Expired access tokens are refreshed, and the new pair kept, before they are used (token-keeper.ts); Oura refusing
 * the grant (revoked, refresh token spent) or a scope makes the connection's error, anything else
 * (429, 5xx, network) is a passing failure the workflow's step retries.
 */
export class OuraSourceAdapter implements SourceAdapter {
  private readonly api: OuraApi;
  private readonly oauth: OAuth2Client;

  constructor(config: OuraConfig) {
    this.api = new OuraApi(config.apiUrl);
    this.oauth = ouraOAuth(config);
  }

  serves(provider: string, environment: ApiEnvironment): boolean {
    return provider === 'oura' && environment === 'production';
  }

  resources(): ReadonlyArray<Omit<SourceBatch, 'data'>> {
    return OURA_RESOURCES;
  }

  pull(connection: SourceConnection, from: number, to: number): Promise<SourceBatch[]> {
    return pullWithGrant('Oura', connection, this.oauth, (accessToken) => this.fetch(accessToken, from, to), SCOPE_TAKEN_AWAY);
  }

  /** Deregistered: the grant ends at Oura too, so the tokens are worth nothing wherever a copy survives. */
  async revoke(connection: Pick<SourceConnection, 'credentials'>): Promise<void> {
    if (connection.credentials) await this.api.revoke(connection.credentials.accessToken);
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

/** Oura answers 403 for data whose scope the user took away. */
const SCOPE_TAKEN_AWAY = new SourceConnectionError(
  'required_scopes_not_granted',
  'Oura refused to share data the connection needs (daily summaries and heart rate). Connect Oura again and allow them.',
);

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}
