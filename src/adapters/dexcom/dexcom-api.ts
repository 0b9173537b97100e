/**
 * Dexcom's API v3 (`/v3/users/self/*`) as labflow reads it: a user's estimated glucose values
 * (EGVs) in windows of at most 30 days, as Dexcom serves them, and the user's data range.
 */
import { instantAsUtc } from '../sources/iso-time';
import { getJson } from '../sources/provider-http';

/** An estimated glucose value (`/v3/users/self/egvs`). */
export interface DexcomEgv {
  recordId: string;
  /** UTC; with an offset when the record came from a phone app, without one from a receiver. */
  systemTime: string;
  /** The device's clock; with an offset from a phone app, the receiver's local time without one. */
  displayTime: string;
  /** Null with status `high` or `low` (beyond what the sensor reads). */
  value: number | null;
  status: string | null;
  unit: string;
  displayDevice: string;
}

interface EgvsAnswer {
  userId: string;
  records: DexcomEgv[];
}

interface DataRangeAnswer {
  userId: string;
}

/** The longest window one egvs request may ask for (Dexcom's endpoint overview). */
export const DEXCOM_MAX_WINDOW_MS = 30 * 86_400_000;

export class DexcomApi {
  constructor(private readonly apiUrl: string) {}

  /** The user's id at Dexcom (per Dexcom account and client). */
  async userId(accessToken: string): Promise<string> {
    return (await getJson<DataRangeAnswer>('Dexcom', this.apiUrl, '/v3/users/self/dataRange', {}, accessToken)).userId;
  }

  /**
   * The EGVs of [from, to), one request per 30 days at most, oldest window first. Dexcom does not
   * say whether a window's bounds are inclusive, and its query times are whole seconds: each
   * request reaches a second beyond both ends, and what comes back is cut to [from, to) and
   * de-duplicated by record id, so no record on a seam is lost or counted twice.
   */
  async egvs(accessToken: string, from: number, to: number): Promise<DexcomEgv[]> {
    const records = new Map<string, DexcomEgv>();
    for (let start = from; start < to; start += WINDOW_STEP_MS) {
      const end = Math.min(start + WINDOW_STEP_MS, to);
      const query = { startDate: dexcomTime(start - SECOND_MS), endDate: dexcomTime(end + SECOND_MS) };
      const answer = await getJson<EgvsAnswer>('Dexcom', this.apiUrl, '/v3/users/self/egvs', query, accessToken);
      for (const record of answer.records) {
        // Dexcom's system time is UTC, with or without an offset.
        const at = instantAsUtc(record.systemTime);
        if (at >= from && at < to) records.set(record.recordId, record);
      }
    }
    return [...records.values()];
  }
}

const SECOND_MS = 1000;
/** A request's window less the second added at each end (and the second its truncation may add), so it stays within 30 days. */
const WINDOW_STEP_MS = DEXCOM_MAX_WINDOW_MS - 3 * SECOND_MS;

/** Dexcom's query times: UTC system time, `YYYY-MM-DDThh:mm:ss`, no offset. */
function dexcomTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}
