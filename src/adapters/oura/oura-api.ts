/**
 * Oura's API v2 (`/v2/usercollection/*`) as labflow reads it: a collection's documents between
 * two dates or instants, every page (Oura pages with an opaque `next_token`).
 */
import { getJson, sendOk } from '../sources/provider-http';

/** A heart-rate sample (`/v2/usercollection/heartrate`). */
export interface OuraHeartRate {
  bpm: number;
  source: string;
  timestamp: string;
}

/** A series Oura embeds in a document: `items[i]` at `timestamp + i × interval` seconds. */
export interface OuraSeries {
  interval: number;
  items: Array<number | null>;
  timestamp: string;
}

/** A sleep period (`/v2/usercollection/sleep`); durations in seconds. */
export interface OuraSleep {
  id: string;
  day: string;
  bedtime_start: string;
  bedtime_end: string;
  type: string;
  time_in_bed: number;
  total_sleep_duration: number | null;
  awake_time: number | null;
  light_sleep_duration: number | null;
  rem_sleep_duration: number | null;
  deep_sleep_duration: number | null;
  efficiency: number | null;
  latency: number | null;
  average_heart_rate: number | null;
  lowest_heart_rate: number | null;
  average_hrv: number | null;
  average_breath: number | null;
  /** One character a 5 minutes from bedtime_start: 1 deep, 2 light, 3 REM, 4 awake. */
  sleep_phase_5_min?: string | null;
  hrv?: OuraSeries | null;
  /** The readiness Oura computed from the night; its temperature deviation is Junction's temperature_delta. */
  readiness?: { temperature_deviation: number | null } | null;
}

/** The day's sleep score (`/v2/usercollection/daily_sleep`). */
export interface OuraDailySleep {
  id: string;
  day: string;
  score: number | null;
}

/** The day's activity (`/v2/usercollection/daily_activity`); activity times in seconds, distance in metres. */
export interface OuraDailyActivity {
  id: string;
  day: string;
  timestamp: string;
  active_calories: number | null;
  total_calories: number | null;
  steps: number | null;
  equivalent_walking_distance: number | null;
  low_activity_time: number | null;
  medium_activity_time: number | null;
  high_activity_time: number | null;
}

export interface OuraPersonalInfo {
  id: string;
}

/** Pages of one collection at most: a window of a month is a few pages; more means a loop. */
const MAX_PAGES = 500;

export class OuraApi {
  constructor(private readonly apiUrl: string) {}

  personalInfo(accessToken: string): Promise<OuraPersonalInfo> {
    return this.get<OuraPersonalInfo>(accessToken, '/v2/usercollection/personal_info', {});
  }

  heartRate(accessToken: string, from: Date, to: Date): Promise<OuraHeartRate[]> {
    return this.list<OuraHeartRate>(accessToken, 'heartrate', { start_datetime: from.toISOString(), end_datetime: to.toISOString() });
  }

  /** Documents of the days `startDay` to `endDay` (YYYY-MM-DD, both included). */
  byDay<T>(accessToken: string, collection: 'sleep' | 'daily_sleep' | 'daily_activity', startDay: string, endDay: string): Promise<T[]> {
    return this.list<T>(accessToken, collection, { start_date: startDay, end_date: endDay });
  }

  /** Ends the grant the access token belongs to (Oura's `GET /oauth/revoke?access_token=`). */
  revoke(accessToken: string): Promise<void> {
    return sendOk('Oura', this.apiUrl, '/oauth/revoke', { query: { access_token: accessToken } });
  }

  private async list<T>(accessToken: string, collection: string, params: Record<string, string>): Promise<T[]> {
    const documents: T[] = [];
    let nextToken: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query: Record<string, string> = nextToken ? { ...params, next_token: nextToken } : params;
      const body = await this.get<{ data: T[]; next_token: string | null }>(accessToken, `/v2/usercollection/${collection}`, query);
      documents.push(...body.data);
      nextToken = body.next_token ?? null;
      if (!nextToken) return documents;
    }
    throw new Error(`Oura ${collection}: more than ${MAX_PAGES} pages for one window`);
  }

  private get<T>(accessToken: string, path: string, query: Record<string, string>): Promise<T> {
    return getJson<T>('Oura', this.apiUrl, path, query, accessToken);
  }
}
