/**
 * WHOOP's developer API v2 (`<api>/developer/v2/*`) as labflow reads it: a member's sleeps,
 * recoveries, workouts and physiological cycles of a window, every page, and their WHOOP id.
 * Times are UTC (`Z`); each record names the wearer's offset apart (`timezone_offset`, `-05:00`).
 */
import { getJson, sendOk } from '../sources/provider-http';

type ScoreState = 'SCORED' | 'PENDING_SCORE' | 'UNSCORABLE';

export interface WhoopSleep {
  id: string;
  cycle_id: number;
  start: string;
  end: string;
  timezone_offset: string;
  nap: boolean;
  score_state: ScoreState;
  score?: {
    stage_summary: {
      total_in_bed_time_milli: number;
      total_awake_time_milli: number;
      total_no_data_time_milli: number;
      total_light_sleep_time_milli: number;
      total_slow_wave_sleep_time_milli: number;
      total_rem_sleep_time_milli: number;
      sleep_cycle_count: number;
      disturbance_count: number;
    };
    respiratory_rate?: number;
    sleep_performance_percentage?: number;
    sleep_consistency_percentage?: number;
    sleep_efficiency_percentage?: number;
  };
}

export interface WhoopRecovery {
  cycle_id: number;
  sleep_id: string;
  score_state: ScoreState;
  score?: { recovery_score: number; resting_heart_rate: number; hrv_rmssd_milli: number; spo2_percentage?: number; skin_temp_celsius?: number };
}

export interface WhoopWorkout {
  id: string;
  start: string;
  end: string;
  timezone_offset: string;
  sport_name: string;
  sport_id?: number;
  score_state: ScoreState;
  score?: {
    strain: number;
    average_heart_rate: number;
    max_heart_rate: number;
    kilojoule: number;
    percent_recorded: number;
    distance_meter?: number;
    altitude_gain_meter?: number;
    zone_durations: Record<'zone_zero_milli' | 'zone_one_milli' | 'zone_two_milli' | 'zone_three_milli' | 'zone_four_milli' | 'zone_five_milli', number>;
  };
}

export interface WhoopCycle {
  id: number;
  start: string;
  /** Absent while the cycle is under way. */
  end?: string;
  timezone_offset: string;
  score_state: ScoreState;
  score?: { strain: number; kilojoule: number; average_heart_rate: number; max_heart_rate: number };
}

/** WHOOP's largest page (`limit`, at most 25). */
const PAGE_LIMIT = 25;
/** A window with more pages than this is WHOOP answering in a loop, not data. */
const MAX_PAGES = 1000;

export class WhoopApi {
  constructor(private readonly apiUrl: string) {}

  /** The member's WHOOP id. */
  async userId(accessToken: string): Promise<string> {
    return String((await getJson<{ user_id: number }>('WHOOP', this.apiUrl, '/developer/v2/user/profile/basic', {}, accessToken)).user_id);
  }

  /**
   * The records of one collection for [from, to), every page. WHOOP matches `start` inclusively
   * and `end` against the record's own span (a record that intersects it is included), so the
   * same record can come in two adjacent windows: callers store by id.
   */
  async list<T>(accessToken: string, collection: 'activity/sleep' | 'recovery' | 'activity/workout' | 'cycle', from: number, to: number): Promise<T[]> {
    const records: T[] = [];
    const window = { start: new Date(from).toISOString(), end: new Date(to).toISOString(), limit: String(PAGE_LIMIT) };
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query: Record<string, string> = nextToken ? { ...window, nextToken } : window;
      const body = await getJson<{ records: T[]; next_token?: string | null }>('WHOOP', this.apiUrl, `/developer/v2/${collection}`, query, accessToken);
      records.push(...body.records);
      nextToken = body.next_token ?? undefined;
      if (!nextToken) return records;
    }
    throw new Error(`WHOOP ${collection}: more than ${MAX_PAGES} pages for one window`);
  }

  /** Ends labflow's access for the member the token belongs to (`DELETE /developer/v2/user/access`). */
  revoke(accessToken: string): Promise<void> {
    return sendOk('WHOOP', this.apiUrl, '/developer/v2/user/access', { method: 'DELETE', accessToken });
  }
}
