import { createHash, createHmac, randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  closeServer,
  FakeFailures,
  FakeGrants,
  listenLocally,
  OAuthProblem as HttpProblem,
  opaqueToken,
  redeemAuthorizationCode,
  redirect,
  sendJson,
  sendOAuthProblem,
  tokenRequest,
  unit,
  withQuery,
} from './fake-provider-http';
import type { FakeAccessToken, FakeAuthorizationDecision, FakeBearerRefusal, FakeGrant } from './fake-provider-http';

/**
 * A local stand-in for the WHOOP API v2 (OAuth2 at /oauth/oauth2, data under /developer/v2), for
 * tests that cannot reach api.prod.whoop.com. One host serves both, as WHOOP's does.
 *
 * It follows WHOOP's published material; each rule names its source:
 *   [openapi]  WHOOP's OpenAPI document for API v2 (title "WHOOP API", version 2.0.0): the paths,
 *              their query parameters and scopes, and every record schema (Sleep, Recovery,
 *              WorkoutV2, Cycle, UserBasicProfile, UserBodyMeasurement and the paginated responses)
 *   [oauth]    developer.whoop.com/docs/developing/oauth: the authorize and token URLs, `state`
 *   [refresh]  /docs/tutorials/refresh-token-javascript and refresh-token-postman: the refresh form
 *              (scope=offline), the token response (expires_in 3600, scope, token_type "bearer"),
 *              and that a refresh token comes only when the `offline` scope was asked for
 *   [rate]     /docs/developing/rate-limiting: 100 requests a minute, 10,000 a day, X-RateLimit-* headers
 *
 * Where nothing authoritative is at hand, the choice made here is called out with "UNDOCUMENTED"
 * and is the strictest reasonable reading, so a client that passes here works against every variant:
 *   - time filters: [openapi]'s own words, read literally. `start` keeps the records that happened
 *     after it or were under way at it (inclusive: a record ending exactly at `start` is kept);
 *     `end` keeps those that began before it (exclusive) and, when left out, is now. A record that
 *     spans a window seam therefore comes back in both windows, so a client must upsert by id, and
 *     one that assumed "by start time only" sees extra records, never fewer. Recoveries have no
 *     time of their own: they are matched by their cycle's span (the spec ties a Recovery to "this
 *     physiological cycle") and ordered by their sleep's start, as [openapi] says.
 *   - pagination: a nextToken answers only with the start and end it was issued for (400 if they
 *     differ or are left out): the spec does not say whether the token carries the filter, so the
 *     client must repeat its whole query. Query parameters other than limit, start, end and
 *     nextToken answer 400 (the response field is `next_token` but the parameter is `nextToken`;
 *     a client that sends `next_token` would otherwise loop on the first page forever).
 *   - date-time parameters: RFC 3339 (OpenAPI `format: date-time`), so seconds and a UTC offset
 *     are required; an unencoded '+' arrives as a space and answers 400.
 *   - a token that lacks the route's scope answers 401 `insufficient_scope`: [openapi] lists 401
 *     ("Invalid authorization") and never 403 for these routes.
 *   - authorization codes: single use, valid for 60 seconds; the exchange must repeat the
 *     authorize request's redirect_uri.
 *   - refresh tokens: single use; each refresh answers a new pair and the used one then answers
 *     400 invalid_grant. A refresh must carry scope=offline ([refresh] always sends it); other
 *     scopes in it may only repeat granted ones. Access tokens issued before stay valid until
 *     they expire.
 *   - DELETE /v2/user/access ends every grant the member gave this client, refresh tokens
 *     included, as revoke() does: [openapi] says it revokes "the access token granted by the
 *     user" and that the client then gets no more webhooks for the member, i.e. the member's link
 *     to the client ends, not one token.
 *   - client authentication: client_id and client_secret in the form body, as [oauth] and
 *     [refresh] show; HTTP Basic is not taken.
 *   - error bodies: WHOOP documents none, so they are RFC 6749 `{ error, error_description }`
 *     everywhere and a client should branch on the status alone.
 *   - records: `v1_id` and `sport_id` are left out ([openapi]: they "will not exist past
 *     09/01/2025"), so a client cannot come to need them.
 *
 * Everything lives in memory; every server is independent (tests may run several at once).
 */

// ---------------------------------------------------------------------------------------------
// Record shapes ([openapi] components; field names exactly as WHOOP spells them)
// ---------------------------------------------------------------------------------------------

export type WhoopScoreState = 'SCORED' | 'PENDING_SCORE' | 'UNSCORABLE';

/** `SleepStageSummary`: durations in milliseconds. */
export interface WhoopSleepStageSummary {
  total_in_bed_time_milli: number;
  total_awake_time_milli: number;
  total_no_data_time_milli: number;
  total_light_sleep_time_milli: number;
  total_slow_wave_sleep_time_milli: number;
  total_rem_sleep_time_milli: number;
  sleep_cycle_count: number;
  disturbance_count: number;
}

/** `SleepNeeded`: the parts add up to the sleep needed before this sleep; the nap part is zero or negative. */
export interface WhoopSleepNeeded {
  baseline_milli: number;
  need_from_sleep_debt_milli: number;
  need_from_recent_strain_milli: number;
  need_from_recent_nap_milli: number;
}

/** `SleepScore`: only the stage summary and sleep need are required; the percentages "may not be reported". */
export interface WhoopSleepScore {
  stage_summary: WhoopSleepStageSummary;
  sleep_needed: WhoopSleepNeeded;
  respiratory_rate?: number;
  sleep_performance_percentage?: number;
  sleep_consistency_percentage?: number;
  sleep_efficiency_percentage?: number;
}

/** `Sleep`. Times are UTC (`2024-03-01T06:35:12.345Z`); `timezone_offset` is the member's (`-05:00`). */
export interface WhoopSleepRecord {
  id: string;
  cycle_id: number;
  v1_id?: number;
  user_id: number;
  created_at: string;
  updated_at: string;
  start: string;
  end: string;
  timezone_offset: string;
  nap: boolean;
  score_state: WhoopScoreState;
  /** Only when score_state is SCORED. */
  score?: WhoopSleepScore;
}

/** `RecoveryScore`: SpO2 and skin temperature only from 4.0 devices. */
export interface WhoopRecoveryScore {
  user_calibrating: boolean;
  recovery_score: number;
  resting_heart_rate: number;
  hrv_rmssd_milli: number;
  spo2_percentage?: number;
  skin_temp_celsius?: number;
}

/** `Recovery`: no id and no times of its own; it belongs to a cycle and comes from a sleep. */
export interface WhoopRecoveryRecord {
  cycle_id: number;
  sleep_id: string;
  user_id: number;
  created_at: string;
  updated_at: string;
  score_state: WhoopScoreState;
  score?: WhoopRecoveryScore;
}

/** `ZoneDurations`: milliseconds in each heart-rate zone. */
export interface WhoopZoneDurations {
  zone_zero_milli: number;
  zone_one_milli: number;
  zone_two_milli: number;
  zone_three_milli: number;
  zone_four_milli: number;
  zone_five_milli: number;
}

/** `WorkoutScore`: distance and altitude only when the workout sent them. */
export interface WhoopWorkoutScore {
  strain: number;
  average_heart_rate: number;
  max_heart_rate: number;
  kilojoule: number;
  percent_recorded: number;
  distance_meter?: number;
  altitude_gain_meter?: number;
  altitude_change_meter?: number;
  zone_durations: WhoopZoneDurations;
}

/** `WorkoutV2`. */
export interface WhoopWorkoutRecord {
  id: string;
  v1_id?: number;
  user_id: number;
  created_at: string;
  updated_at: string;
  start: string;
  end: string;
  timezone_offset: string;
  sport_name: string;
  score_state: WhoopScoreState;
  score?: WhoopWorkoutScore;
  sport_id?: number;
}

export interface WhoopCycleScore {
  strain: number;
  kilojoule: number;
  average_heart_rate: number;
  max_heart_rate: number;
}

/** `Cycle`: from falling asleep one night to falling asleep the next; no `end` while the member is in it. */
export interface WhoopCycleRecord {
  id: number;
  user_id: number;
  created_at: string;
  updated_at: string;
  start: string;
  end?: string;
  timezone_offset: string;
  score_state: WhoopScoreState;
  score?: WhoopCycleScore;
}

export interface WhoopUserBasicProfile {
  user_id: number;
  email: string;
  first_name: string;
  last_name: string;
}

export interface WhoopBodyMeasurement {
  height_meter: number;
  weight_kilogram: number;
  max_heart_rate: number;
}

export interface WhoopUserData {
  sleeps: WhoopSleepRecord[];
  recoveries: WhoopRecoveryRecord[];
  workouts: WhoopWorkoutRecord[];
  cycles: WhoopCycleRecord[];
}

export interface FakeWhoopRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** The WHOOP user id, when the request carried a live access token. */
  userId?: string;
}

export interface FakeWhoopOptions {
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlSeconds?: number;
  /** Records per page at most (never more than the request's `limit`); 25, the largest limit, by default. */
  pageSize?: number;
}

/** The token response ([refresh]); refresh_token only for grants with `offline`. */
export interface WhoopTokenResponse {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
  token_type: 'bearer';
}

/** [openapi]'s OAuth scopes plus `offline` ([refresh]: it brings the refresh token). */
export const WHOOP_SCOPES = ['read:recovery', 'read:cycles', 'read:workout', 'read:sleep', 'read:profile', 'read:body_measurement', 'offline'] as const;

// ---------------------------------------------------------------------------------------------
// Internal state
// ---------------------------------------------------------------------------------------------

/** What seedDays stored for one local day: its cycle and what belongs to it. */
interface SeededDay {
  day: string;
  cycle: WhoopCycleRecord;
  sleep: WhoopSleepRecord;
  recovery: WhoopRecoveryRecord;
  workout: WhoopWorkoutRecord | null;
  nap: WhoopSleepRecord | null;
}

interface User {
  id: string;
  numericId: number;
  timezoneOffset: string;
  offsetMinutes: number;
  profile: WhoopUserBasicProfile;
  body: WhoopBodyMeasurement;
  /** The sleep this member needs on an ordinary night, ms. */
  baselineNeedMs: number;
  days: Map<string, SeededDay>;
}

/** A consent with the scopes it granted (every scope asked for; `offline` brings refresh tokens). */
interface Grant extends FakeGrant {
  scopes: string[];
}

type Collection = 'sleep' | 'recovery' | 'workout' | 'cycle';

/** Where a listing stopped; the opaque nextToken points at one of these. */
interface Cursor {
  userId: string;
  collection: Collection;
  /** The start and end exactly as the first page's request sent them (null: left out). */
  start: string | null;
  end: string | null;
  startMs: number;
  endMs: number;
  offset: number;
}

/** One listed record with the span the time filter sees and the time it is ordered by. */
interface Listed {
  record: unknown;
  from: number;
  to: number;
  orderBy: number;
  id: string;
}

/** [openapi]: the collection routes (under /developer) and the scope each needs. */
const COLLECTIONS: Record<string, { collection: Collection; scope: string }> = {
  '/v2/activity/sleep': { collection: 'sleep', scope: 'read:sleep' },
  '/v2/recovery': { collection: 'recovery', scope: 'read:recovery' },
  '/v2/activity/workout': { collection: 'workout', scope: 'read:workout' },
  '/v2/cycle': { collection: 'cycle', scope: 'read:cycles' },
};

/** The 401 error_description for each way a bearer token fails ([openapi]: 401 "Invalid authorization", no body documented). */
const BEARER_REFUSALS: Record<FakeBearerRefusal, string> = {
  missing: 'No bearer token.',
  unknown: 'Unknown access token.',
  revoked: 'Access was revoked.',
  expired: 'The access token has expired.',
};

/** [openapi]: `limit` has maximum 25 and default 10 on every collection. */
const MAX_LIMIT = 25;
const DEFAULT_LIMIT = 10;
const LIST_PARAMETERS = new Set(['limit', 'start', 'end', 'nextToken']);
/** [oauth] as integrators quote it (the stored copy breaks off there): `state` of at least 8 characters. */
const MIN_STATE_LENGTH = 8;
/** UNDOCUMENTED: codes live one minute and work once (see the file comment). */
const CODE_TTL_MS = 60 * 1000;
const MINUTE_MS = 60 * 1000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIRST_NAMES = ['Avery', 'Jordan', 'Riley', 'Morgan', 'Casey', 'Quinn'];
const LAST_NAMES = ['Lindqvist', 'Okafor', 'Moreau', 'Tanaka', 'Alvarez', 'Novak'];

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

export class FakeWhoop {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly requests: FakeWhoopRequest[] = [];

  private readonly accessTokenTtlSeconds: number;
  private readonly pageSize: number;
  private readonly users = new Map<string, User>();
  private readonly decisions: FakeAuthorizationDecision[] = [];
  private readonly grants = new FakeGrants<Grant>();
  private readonly failures = new FakeFailures();
  private readonly cursors = new Map<string, Cursor>();
  private readonly revokedByClient = new Set<string>();
  private readonly holds = new Map<string, { arrived: () => void; released: Promise<void> }>();

  private constructor(
    private readonly server: Server,
    options: FakeWhoopOptions,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.clientId = options.clientId ?? 'whoop-client-id';
    this.clientSecret = options.clientSecret ?? 'whoop-client-secret';
    // [refresh]: the token responses answer "expires_in": 3600 (an hour, in seconds).
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 3600;
    this.pageSize = options.pageSize ?? MAX_LIMIT;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) throw new Error(`FakeWhoop: pageSize must be a positive integer, not ${this.pageSize}`);
  }

  static async start(options: FakeWhoopOptions = {}): Promise<FakeWhoop> {
    let fake: FakeWhoop | null = null;
    const server = await listenLocally((req, res) => (fake as unknown as FakeWhoop).handle(req, res));
    fake = new FakeWhoop(server, options);
    return fake;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** The settings that point labflow's WHOOP client at this stand-in (one host: /oauth and /developer below it). */
  labflowEnv(): Record<string, string> {
    return { WHOOP_CLIENT_ID: this.clientId, WHOOP_CLIENT_SECRET: this.clientSecret, WHOOP_API_URL: this.url };
  }

  // ----- test controls -------------------------------------------------------------------------

  /**
   * A new WHOOP member; answers their user id, an integer ([openapi] `user_id`, int64) as a
   * string. The same n-th member gets the same id and data on every server. `timezoneOffset` is
   * written on their records as given: '+hh:mm', '-hh:mm' or 'Z' ([openapi] allows all three).
   */
  addUser(options: { timezoneOffset?: string } = {}): string {
    const timezoneOffset = options.timezoneOffset ?? '+00:00';
    const offset = /^([+-])(\d{2}):(\d{2})$/.exec(timezoneOffset);
    if (!offset && timezoneOffset !== 'Z') throw new Error(`FakeWhoop: timezone offset must be +hh:mm, -hh:mm or Z: ${timezoneOffset}`);
    const offsetMinutes = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0;
    const n = this.users.size + 1;
    const numericId = 10_000 + n * 137;
    const id = String(numericId);
    const u = (what: string) => unit(id, 'profile', what);
    const first = FIRST_NAMES[(n - 1) % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(n - 1) % LAST_NAMES.length]!;
    this.users.set(id, {
      id,
      numericId,
      timezoneOffset,
      offsetMinutes,
      profile: { user_id: numericId, email: `${first}.${last}.${n}@example.com`.toLowerCase(), first_name: first, last_name: last },
      body: {
        height_meter: round(1.6 + u('height') * 0.3, 4),
        weight_kilogram: round(55 + u('weight') * 40, 4),
        max_heart_rate: 185 + Math.floor(u('maxHr') * 15),
      },
      baselineNeedMs: Math.floor((7.25 + u('need') * 1.25) * 60 * MINUTE_MS),
      days: new Map(),
    });
    return id;
  }

  /**
   * Deterministic data for the member's local days [fromDay, fromDay + days). Each day has its
   * cycle, which starts when the member falls asleep the evening before and ends when they fall
   * asleep that evening (left open while that is still ahead); the night's sleep that opens it
   * (ending that morning; its stages and the missing data add up to the time in bed); the
   * recovery from that sleep; on days with an even day number a run in the early evening (with
   * distance and altitude); and on the first day an afternoon nap, which lowers the next night's
   * need. Re-seeding a day replaces its records; a day gets the same records on every run, save
   * the nap and its effect on the next night, which follow the first day of the call.
   */
  seedDays(userId: string, fromDay: string, days: number): void {
    const user = this.user(userId);
    if (!Number.isInteger(days) || days < 0) throw new Error(`FakeWhoop: days must be a non-negative integer, not ${days}`);
    const first = parseDay(fromDay);
    for (let i = 0; i < days; i++) {
      const day = dayString(first + i * DAY_MS);
      const napBefore = user.days.get(dayString(first + (i - 1) * DAY_MS))?.nap ?? null;
      user.days.set(day, seedDay(user, day, i === 0, napBefore));
    }
  }

  /**
   * Everything stored for the member, newest first as the API lists it. The arrays are new, the
   * records are the stored ones: change a record and the API serves the change.
   */
  data(userId: string): WhoopUserData {
    const user = this.user(userId);
    return {
      sleeps: this.listed(user, 'sleep').map((entry) => entry.record as WhoopSleepRecord),
      recoveries: this.listed(user, 'recovery').map((entry) => entry.record as WhoopRecoveryRecord),
      workouts: this.listed(user, 'workout').map((entry) => entry.record as WhoopWorkoutRecord),
      cycles: this.listed(user, 'cycle').map((entry) => entry.record as WhoopCycleRecord),
    };
  }

  /** Queues how the next visit to /oauth/oauth2/auth ends (visits consume decisions in order). */
  nextAuthorization(decision: FakeAuthorizationDecision): void {
    this.decisions.push({ ...decision });
  }

  /**
   * Tokens of a grant made outside labflow (another app of the same OAuth client, as a team
   * migrating its connections holds them), with every scope, `offline` included.
   */
  grantOutside(userId: string): { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: 'bearer' } {
    this.user(userId);
    const issued = this.issue({ userId, scopes: [...WHOOP_SCOPES], revoked: false });
    return { ...issued, refresh_token: issued.refresh_token! };
  }

  /** Every access token issued so far answers 401 (tokens issued later are fresh). */
  expireAccessTokens(): void {
    this.grants.expireAccessTokens();
  }

  /** The member revoked labflow's access in WHOOP: access tokens answer 401, refresh tokens and codes invalid_grant. */
  revoke(userId: string): void {
    this.grants.revoke(userId);
  }

  /** The next `times` requests to `path` (e.g. /developer/v2/activity/sleep or /oauth/oauth2/token) answer `status`. */
  failNext(path: string, status: number, times = 1): void {
    this.failures.failNext(path, status, times);
  }

  /**
   * The next request to `path` waits unanswered until `release()`; `reached` settles when it
   * arrives. A test holds a sync in the middle of its fetching this way.
   */
  holdNext(path: string): { reached: Promise<void>; release: () => void } {
    let release = () => {};
    let arrived = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    this.holds.set(path, { arrived, released });
    return { reached, release };
  }

  /** Whether the refresh token was used (they are single use here; see the file comment). */
  refreshTokenUsed(refreshToken: string): boolean {
    return this.grants.refreshTokenUsed(refreshToken);
  }

  /** Whether DELETE /developer/v2/user/access was called with one of the member's tokens. */
  accessRevokedByClient(userId: string): boolean {
    return this.revokedByClient.has(userId);
  }

  /**
   * WHOOP sends a webhook (model v2) about the member's record to `url`, as WHOOP does: the body
   * `{user_id, id, type, trace_id}`, signed `base64(HMAC-SHA256(client secret, timestamp + body))`
   * in X-WHOOP-Signature with the timestamp (ms) in X-WHOOP-Signature-Timestamp. `signWith` and
   * `timestampMs` forge a wrong secret or an old signature; `body` sends (signed) another body
   * than WHOOP's. Answers labflow's status and body.
   */
  async sendWebhook(
    url: string,
    event: { userId: string; id: string; type: string },
    options: { signWith?: string; timestampMs?: number; body?: unknown } = {},
  ): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(options.body ?? { user_id: this.user(event.userId).numericId, id: event.id, type: event.type, trace_id: randomUUID() });
    const timestamp = String(options.timestampMs ?? Date.now());
    const signature = createHmac('sha256', options.signWith ?? this.clientSecret)
      .update(timestamp + body)
      .digest('base64');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-whoop-signature': signature, 'x-whoop-signature-timestamp': timestamp },
      body,
    });
    return { status: response.status, body: await response.text() };
  }

  // ----- HTTP ----------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const userId = this.liveAccessToken(req)?.grant.userId;
    res.on('finish', () => {
      this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: res.statusCode, ...(userId ? { userId } : {}) });
    });
    const hold = this.holds.get(url.pathname);
    if (hold) {
      this.holds.delete(url.pathname);
      hold.arrived();
      await hold.released;
    }
    try {
      this.injectFailure(url.pathname);
      if (url.pathname === '/oauth/oauth2/auth' && method === 'GET') return this.authorize(url, res);
      if (url.pathname === '/oauth/oauth2/token' && method === 'POST') return sendJson(res, 200, await this.token(req), { 'cache-control': 'no-store' });
      if (url.pathname.startsWith('/developer/')) return this.developer(req, res, method, url);
      throw new HttpProblem(404, 'not_found', `${method} ${url.pathname}`);
    } catch (error) {
      sendOAuthProblem(res, error);
    }
  }

  /** [rate]: a 429 carries the X-RateLimit-* headers (here: the minute's 100 used up, reset in a second). */
  private injectFailure(path: string): void {
    const status = this.failures.take(path);
    if (status === null) return;
    if (status === 429) {
      throw new HttpProblem(429, 'too_many_requests', 'Request rate limit exceeded.', {
        'x-ratelimit-limit': '100, 100;window=60, 10000;window=86400',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1',
      });
    }
    throw new HttpProblem(status, status >= 500 ? 'server_error' : 'injected_failure', `Injected ${status}.`);
  }

  // ----- OAuth2 ([oauth], [refresh]) -----------------------------------------------------------

  /**
   * GET /oauth/oauth2/auth?client_id&redirect_uri&response_type=code&scope&state — WHOOP's sign-in
   * and consent page. A bad client_id or a missing redirect_uri is shown to the member (400, no
   * redirect), as OAuth requires; the rest goes back to redirect_uri as ?error=…&state: a wrong
   * response_type (unsupported_response_type), no scope or an unknown one (invalid_scope), a state
   * shorter than 8 characters (invalid_state). The member's decision goes back as ?code&state or
   * ?error=access_denied&state; a consent grants every scope asked for.
   */
  private authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId) throw new HttpProblem(400, 'invalid_client', 'Unknown client_id.');
    // [oauth]: the redirect URL must be registered with the app; the fake registers none, so any is taken.
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri || !URL.canParse(redirectUri)) throw new HttpProblem(400, 'invalid_request', 'redirect_uri missing or not a URL.');
    const state = q.get('state');
    const back = (params: Record<string, string>) => redirect(res, withQuery(redirectUri, { ...params, ...(state === null ? {} : { state }) }));

    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    const scopes = (q.get('scope') ?? '').split(/\s+/).filter(Boolean);
    if (scopes.length === 0 || scopes.some((scope) => !(WHOOP_SCOPES as readonly string[]).includes(scope))) return back({ error: 'invalid_scope' });
    if (state === null || state.length < MIN_STATE_LENGTH) return back({ error: 'invalid_state' });

    const decision = this.decisions.shift();
    if (!decision) throw new HttpProblem(500, 'server_error', 'FakeWhoop: no nextAuthorization() queued for this visit to /oauth/oauth2/auth');
    this.user(decision.userId);
    if (decision.deny) return back({ error: 'access_denied' });
    back({ code: this.grants.mintCode({ userId: decision.userId, scopes: [...new Set(scopes)], revoked: false }, redirectUri, CODE_TTL_MS) });
  }

  /**
   * POST /oauth/oauth2/token, application/x-www-form-urlencoded, with client_id and client_secret
   * in the body: grant_type=authorization_code (code, redirect_uri) or grant_type=refresh_token
   * (refresh_token, scope=offline).
   */
  private async token(req: IncomingMessage): Promise<WhoopTokenResponse> {
    const { form, grantType } = await tokenRequest(req, this);
    return this.issue(grantType === 'authorization_code' ? redeemAuthorizationCode(this.grants, form) : this.redeemRefreshToken(form));
  }

  private redeemRefreshToken(form: URLSearchParams): Grant {
    const value = form.get('refresh_token');
    const scopes = (form.get('scope') ?? '').split(/\s+/).filter(Boolean);
    if (!value) throw new HttpProblem(400, 'invalid_request', 'refresh_token is required.');
    if (!scopes.includes('offline')) throw new HttpProblem(400, 'invalid_request', 'A refresh asks for scope=offline.');
    const token = this.grants.usableRefreshToken(value);
    if (!token) throw new HttpProblem(400, 'invalid_grant', 'Refresh token is invalid, revoked or already used.');
    if (scopes.some((scope) => !token.grant.scopes.includes(scope))) throw new HttpProblem(400, 'invalid_scope', 'A refresh cannot widen the grant.');
    return this.grants.use(token);
  }

  /**
   * [refresh]'s token response: access_token, expires_in (seconds), refresh_token (only when the
   * grant has `offline`), scope (the granted scopes, space separated), token_type "bearer".
   */
  private issue(grant: Grant): WhoopTokenResponse {
    const accessToken = this.grants.mintAccessToken(grant, this.accessTokenTtlSeconds);
    const refreshToken = grant.scopes.includes('offline') ? this.grants.mintRefreshToken(grant) : undefined;
    return {
      access_token: accessToken,
      expires_in: this.accessTokenTtlSeconds,
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
      scope: grant.scopes.join(' '),
      token_type: 'bearer',
    };
  }

  // ----- API v2 ([openapi]) --------------------------------------------------------------------

  /** Every route under /developer takes a bearer token; each but DELETE /v2/user/access needs its scope. */
  private developer(req: IncomingMessage, res: ServerResponse, method: string, url: URL): void {
    const path = url.pathname.slice('/developer'.length);
    const grant = this.authenticate(req);
    const user = this.user(grant.userId);
    if (path === '/v2/user/access' && method === 'DELETE') {
      // [openapi]: "Successful request; no response body". UNDOCUMENTED: every grant of the member ends.
      this.revoke(user.id);
      this.revokedByClient.add(user.id);
      res.writeHead(204);
      res.end();
      return;
    }
    if (method !== 'GET') throw new HttpProblem(404, 'not_found', `${method} ${url.pathname}`);
    if (path === '/v2/user/profile/basic') {
      requireScope(grant, 'read:profile');
      return sendJson(res, 200, user.profile);
    }
    if (path === '/v2/user/measurement/body') {
      requireScope(grant, 'read:body_measurement');
      return sendJson(res, 200, user.body);
    }
    const listing = COLLECTIONS[path];
    if (listing) {
      requireScope(grant, listing.scope);
      return sendJson(res, 200, this.list(user, listing.collection, url.searchParams));
    }
    return sendJson(res, 200, this.single(grant, user, path, url.pathname));
  }

  /** A live access token (known, not expired, not revoked), or null. */
  private liveAccessToken(req: IncomingMessage): FakeAccessToken<Grant> | null {
    const token = this.grants.bearerToken(req.headers.authorization);
    return token && !token.grant.revoked && token.expiresAt > Date.now() ? token : null;
  }

  /** [openapi]: 401 "Invalid authorization" for a missing, unknown, expired or revoked access token. */
  private authenticate(req: IncomingMessage): Grant {
    return this.grants.authenticate(
      req.headers.authorization,
      (why) => new HttpProblem(401, 'invalid_token', BEARER_REFUSALS[why], { 'www-authenticate': 'Bearer error="invalid_token"' }),
    );
  }

  /**
   * GET a collection ([openapi] `{ records, next_token }`): the records the start/end filter keeps
   * (see the file comment), newest first, min(limit, pageSize) a page; next_token is left out on
   * the last page ("If the token is not present, there are no more records").
   */
  private list(user: User, collection: Collection, query: URLSearchParams): { records: unknown[]; next_token?: string } {
    for (const name of query.keys()) {
      if (!LIST_PARAMETERS.has(name))
        throw new HttpProblem(400, 'invalid_request', `Unknown query parameter ${name} (the collection takes limit, start, end and nextToken).`);
    }
    const limit = limitParam(query);
    const cursor = this.cursorFor(user.id, collection, query);
    const matching = this.listed(user, collection).filter((entry) => entry.to >= cursor.startMs && entry.from < cursor.endMs);
    const records = matching.slice(cursor.offset, cursor.offset + Math.min(limit, this.pageSize)).map((entry) => entry.record);
    const nextOffset = cursor.offset + records.length;
    if (nextOffset >= matching.length) return { records };
    const nextToken = opaqueToken();
    this.cursors.set(nextToken, { ...cursor, offset: nextOffset });
    return { records, next_token: nextToken };
  }

  /** The first page's filter, or the one the nextToken was issued for (which the request must repeat). */
  private cursorFor(userId: string, collection: Collection, query: URLSearchParams): Cursor {
    const start = query.get('start');
    const end = query.get('end');
    const nextToken = query.get('nextToken');
    if (nextToken !== null) {
      const cursor = this.cursors.get(nextToken);
      if (!cursor || cursor.userId !== userId || cursor.collection !== collection) throw new HttpProblem(400, 'invalid_request', 'Unknown nextToken.');
      if (cursor.start !== start || cursor.end !== end)
        throw new HttpProblem(400, 'invalid_request', 'A nextToken goes with the start and end of the request that returned it.');
      return cursor;
    }
    // [openapi]: without start, no lower bound; without end, "`end` will be set to `now`".
    const startMs = start === null ? -Infinity : dateTimeParam(start, 'start');
    const endMs = end === null ? Date.now() : dateTimeParam(end, 'end');
    if (startMs > endMs) throw new HttpProblem(400, 'invalid_request', 'start must not be after end.');
    return { userId, collection, start, end, startMs, endMs, offset: 0 };
  }

  /**
   * A collection's records newest first ([openapi]: sleeps, workouts and cycles "sorted by start
   * time in descending order", recoveries "by start time of the related sleep"), each with the
   * span the time filter sees: its own, a current cycle's running on, a recovery's its cycle's.
   */
  private listed(user: User, collection: Collection): Listed[] {
    const entries: Listed[] = [];
    for (const seeded of user.days.values()) {
      const cycleFrom = Date.parse(seeded.cycle.start);
      const cycleTo = seeded.cycle.end === undefined ? Infinity : Date.parse(seeded.cycle.end);
      const timed = (record: { id: string; start: string; end: string }): Listed => ({
        record,
        from: Date.parse(record.start),
        to: Date.parse(record.end),
        orderBy: Date.parse(record.start),
        id: record.id,
      });
      if (collection === 'sleep') {
        entries.push(timed(seeded.sleep));
        if (seeded.nap) entries.push(timed(seeded.nap));
      } else if (collection === 'workout') {
        if (seeded.workout) entries.push(timed(seeded.workout));
      } else if (collection === 'cycle') {
        entries.push({ record: seeded.cycle, from: cycleFrom, to: cycleTo, orderBy: cycleFrom, id: String(seeded.cycle.id) });
      } else {
        entries.push({ record: seeded.recovery, from: cycleFrom, to: cycleTo, orderBy: Date.parse(seeded.sleep.start), id: seeded.recovery.sleep_id });
      }
    }
    return entries.sort((a, b) => b.orderBy - a.orderBy || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * [openapi]'s single-record routes: /v2/activity/sleep/{sleepId}, /v2/activity/workout/{workoutId}
   * (UUIDs), /v2/cycle/{cycleId} and its /sleep and /recovery (integer ids). A malformed id is a
   * 400, an unknown one 404. The spec gives /v2/cycle/{cycleId}/sleep no scope at all; it takes
   * read:sleep here (UNDOCUMENTED).
   */
  private single(grant: Grant, user: User, path: string, fullPath: string): unknown {
    const days = [...user.days.values()];
    const byUuid = /^\/v2\/activity\/(sleep|workout)\/([^/]+)$/.exec(path);
    if (byUuid) {
      requireScope(grant, byUuid[1] === 'sleep' ? 'read:sleep' : 'read:workout');
      if (!UUID.test(byUuid[2]!)) throw new HttpProblem(400, 'invalid_request', `Not a UUID: ${byUuid[2]}`);
      const records = byUuid[1] === 'sleep' ? days.flatMap((d) => (d.nap ? [d.sleep, d.nap] : [d.sleep])) : days.flatMap((d) => (d.workout ? [d.workout] : []));
      const found = records.find((record) => record.id === byUuid[2]);
      if (!found) throw new HttpProblem(404, 'not_found', `No ${byUuid[1]} ${byUuid[2]}.`);
      return found;
    }
    const byCycle = /^\/v2\/cycle\/([^/]+)(?:\/(sleep|recovery))?$/.exec(path);
    if (byCycle) {
      const part = byCycle[2] as 'sleep' | 'recovery' | undefined;
      requireScope(grant, part === 'sleep' ? 'read:sleep' : part === 'recovery' ? 'read:recovery' : 'read:cycles');
      if (!/^\d+$/.test(byCycle[1]!)) throw new HttpProblem(400, 'invalid_request', `Not a cycle id: ${byCycle[1]}`);
      const seeded = days.find((d) => d.cycle.id === Number(byCycle[1]));
      if (!seeded) throw new HttpProblem(404, 'not_found', `No cycle ${byCycle[1]}.`);
      return part === 'sleep' ? seeded.sleep : part === 'recovery' ? seeded.recovery : seeded.cycle;
    }
    throw new HttpProblem(404, 'not_found', `GET ${fullPath}`);
  }

  private user(userId: string): User {
    const user = this.users.get(userId);
    if (!user) throw new Error(`FakeWhoop: unknown user ${userId}`);
    return user;
  }
}

// ---------------------------------------------------------------------------------------------
// Believable, deterministic days
// ---------------------------------------------------------------------------------------------

/** A night's sleep ending on the morning of `day`: in bed 22:00–23:40 the evening before, up 06:00–07:40 (local). */
function planNight(user: User, day: string): { startMs: number; endMs: number } {
  const midnight = localMidnight(user, day);
  const u = (what: string) => unit(user.id, day, 'night', what);
  return {
    startMs: midnight - 120 * MINUTE_MS + Math.floor(u('bed') * 100 * MINUTE_MS),
    endMs: midnight + 360 * MINUTE_MS + Math.floor(u('up') * 100 * MINUTE_MS),
  };
}

/** On days with an even day number, a 30–60 minute run starting 17:30–18:30 local. */
function planWorkout(user: User, day: string): { startMs: number; endMs: number } | null {
  if ((parseDay(day) / DAY_MS) % 2 !== 0) return null;
  const u = (what: string) => unit(user.id, day, 'workout', what);
  const startMs = localMidnight(user, day) + (17.5 * 60 + u('start') * 60) * MINUTE_MS;
  return { startMs: Math.floor(startMs), endMs: Math.floor(startMs + (30 + u('minutes') * 30) * MINUTE_MS) };
}

/** The day's strain on WHOOP's 0–21 scale: 4–9 on a rest day, the run's strain plus a little on a run day. */
function dayStrain(user: User, day: string): number {
  const u = unit(user.id, day, 'strain');
  return round(planWorkout(user, day) ? Math.min(21, workoutStrain(user, day) + 1 + u * 2) : 4 + u * 5, 6);
}

function workoutStrain(user: User, day: string): number {
  return round(8 + unit(user.id, day, 'workout', 'strain') * 7, 6);
}

function seedDay(user: User, day: string, withNap: boolean, napBefore: WhoopSleepRecord | null): SeededDay {
  const night = planNight(user, day);
  const nextNight = planNight(user, dayString(parseDay(day) + DAY_MS));
  const cycleId = user.numericId * 100_000 + parseDay(day) / DAY_MS;
  const workout = seedWorkout(user, day);
  const nap = withNap ? seedNap(user, day, cycleId) : null;
  const sleep = seedSleep(user, day, night, cycleId, napBefore);
  return {
    day,
    cycle: seedCycle(user, day, cycleId, night.startMs, nextNight.startMs, workout),
    sleep,
    recovery: seedRecovery(user, day, cycleId, sleep),
    workout,
    nap,
  };
}

/**
 * The night's sleep. The stages and the time without data add up to the time in bed (the spec
 * does not say so, and its own example falls 24 minutes short; UNDOCUMENTED, but the reading a
 * client can check). Efficiency is asleep over in bed; performance asleep over the need.
 */
function seedSleep(user: User, day: string, night: { startMs: number; endMs: number }, cycleId: number, napBefore: WhoopSleepRecord | null): WhoopSleepRecord {
  const u = (what: string) => unit(user.id, day, 'sleep', what);
  const inBed = night.endMs - night.startMs;
  const noData = u('gap') < 0.25 ? Math.floor((3 + u('gapLength') * 17) * MINUTE_MS) : 0;
  const recorded = inBed - noData;
  const awake = Math.round(recorded * (0.05 + u('awake') * 0.07));
  const slowWave = Math.round(recorded * (0.15 + u('sws') * 0.07));
  const rem = Math.round(recorded * (0.18 + u('rem') * 0.07));
  const light = recorded - awake - slowWave - rem;
  const asleep = light + slowWave + rem;
  const napAsleep = napBefore?.score ? asleepOf(napBefore.score.stage_summary) : 0;
  const needed: WhoopSleepNeeded = {
    baseline_milli: user.baselineNeedMs,
    need_from_sleep_debt_milli: Math.floor(u('debt') * 40 * MINUTE_MS),
    need_from_recent_strain_milli: Math.floor((dayStrain(user, dayString(parseDay(day) - DAY_MS)) / 21) * 25 * MINUTE_MS),
    need_from_recent_nap_milli: napAsleep === 0 ? 0 : -napAsleep,
  };
  const need = needed.baseline_milli + needed.need_from_sleep_debt_milli + needed.need_from_recent_strain_milli + needed.need_from_recent_nap_milli;
  const createdAt = night.endMs + Math.floor((2 + u('created') * 8) * MINUTE_MS);
  return {
    id: pseudoUuid(`${user.id}|sleep|${day}`),
    cycle_id: cycleId,
    user_id: user.numericId,
    created_at: iso(createdAt),
    updated_at: iso(createdAt + Math.floor((1 + u('updated') * 60) * MINUTE_MS)),
    start: iso(night.startMs),
    end: iso(night.endMs),
    timezone_offset: user.timezoneOffset,
    nap: false,
    score_state: 'SCORED',
    score: {
      stage_summary: {
        total_in_bed_time_milli: inBed,
        total_awake_time_milli: awake,
        total_no_data_time_milli: noData,
        total_light_sleep_time_milli: light,
        total_slow_wave_sleep_time_milli: slowWave,
        total_rem_sleep_time_milli: rem,
        sleep_cycle_count: Math.max(1, Math.round(asleep / (90 * MINUTE_MS))),
        disturbance_count: 4 + Math.floor(u('disturbances') * 12),
      },
      sleep_needed: needed,
      respiratory_rate: round(14 + u('respiration') * 3, 6),
      sleep_performance_percentage: Math.min(100, Math.round((asleep / need) * 100)),
      sleep_consistency_percentage: Math.round(60 + u('consistency') * 35),
      sleep_efficiency_percentage: round((asleep / inBed) * 100, 6),
    },
  };
}

/** A 20–40 minute nap at 14:00–15:00 local, mostly light sleep; too short for performance or consistency, which are left out. */
function seedNap(user: User, day: string, cycleId: number): WhoopSleepRecord {
  const u = (what: string) => unit(user.id, day, 'nap', what);
  const startMs = Math.floor(localMidnight(user, day) + (14 * 60 + u('start') * 60) * MINUTE_MS);
  const inBed = Math.floor((20 + u('minutes') * 20) * MINUTE_MS);
  const awake = Math.round(inBed * (0.1 + u('awake') * 0.1));
  const slowWave = Math.round(inBed * u('sws') * 0.08);
  const rem = Math.round(inBed * u('rem') * 0.04);
  const createdAt = startMs + inBed + Math.floor((2 + u('created') * 5) * MINUTE_MS);
  return {
    id: pseudoUuid(`${user.id}|nap|${day}`),
    cycle_id: cycleId,
    user_id: user.numericId,
    created_at: iso(createdAt),
    updated_at: iso(createdAt + Math.floor((1 + u('updated') * 10) * MINUTE_MS)),
    start: iso(startMs),
    end: iso(startMs + inBed),
    timezone_offset: user.timezoneOffset,
    nap: true,
    score_state: 'SCORED',
    score: {
      stage_summary: {
        total_in_bed_time_milli: inBed,
        total_awake_time_milli: awake,
        total_no_data_time_milli: 0,
        total_light_sleep_time_milli: inBed - awake - slowWave - rem,
        total_slow_wave_sleep_time_milli: slowWave,
        total_rem_sleep_time_milli: rem,
        sleep_cycle_count: 0,
        disturbance_count: Math.floor(u('disturbances') * 3),
      },
      sleep_needed: { baseline_milli: user.baselineNeedMs, need_from_sleep_debt_milli: 0, need_from_recent_strain_milli: 0, need_from_recent_nap_milli: 0 },
      respiratory_rate: round(14 + u('respiration') * 3, 6),
      sleep_efficiency_percentage: round(((inBed - awake) / inBed) * 100, 6),
    },
  };
}

/** The recovery from the night's sleep: higher HRV, higher recovery and lower resting heart rate go together. */
function seedRecovery(user: User, day: string, cycleId: number, sleep: WhoopSleepRecord): WhoopRecoveryRecord {
  const u = (what: string) => unit(user.id, day, 'recovery', what);
  const hrv = 30 + u('hrv') * 60;
  const createdAt = Date.parse(sleep.created_at) + Math.floor((1 + u('created') * 3) * MINUTE_MS);
  return {
    cycle_id: cycleId,
    sleep_id: sleep.id,
    user_id: user.numericId,
    created_at: iso(createdAt),
    updated_at: iso(createdAt + Math.floor((1 + u('updated') * 30) * MINUTE_MS)),
    score_state: 'SCORED',
    score: {
      user_calibrating: false,
      recovery_score: Math.min(99, Math.max(1, Math.round(((hrv - 30) / 60) * 80 + 10 + u('noise') * 10))),
      resting_heart_rate: Math.round(62 - ((hrv - 30) / 60) * 12 + u('rhr') * 3),
      hrv_rmssd_milli: round(hrv, 6),
      spo2_percentage: round(94.5 + u('spo2') * 3.5, 4),
      skin_temp_celsius: round(33 + u('skin') * 1.5, 4),
    },
  };
}

/** The run (sport "running", with GPS distance and altitude); the heart-rate zones add up to its length. */
function seedWorkout(user: User, day: string): WhoopWorkoutRecord | null {
  const plan = planWorkout(user, day);
  if (!plan) return null;
  const u = (what: string) => unit(user.id, day, 'workout', what);
  const duration = plan.endMs - plan.startMs;
  const minutes = duration / MINUTE_MS;
  const zone = (low: number, spread: number, what: string) => Math.round(duration * (low + u(what) * spread));
  const zones = {
    zero: zone(0.02, 0.02, 'z0'),
    one: zone(0.08, 0.04, 'z1'),
    two: zone(0.2, 0.08, 'z2'),
    three: zone(0.28, 0.08, 'z3'),
    four: zone(0.12, 0.06, 'z4'),
  };
  const averageHeartRate = Math.round(135 + u('hr') * 20);
  const createdAt = plan.endMs + Math.floor((1 + u('created') * 4) * MINUTE_MS);
  return {
    id: pseudoUuid(`${user.id}|workout|${day}`),
    user_id: user.numericId,
    created_at: iso(createdAt),
    updated_at: iso(createdAt + Math.floor((1 + u('updated') * 20) * MINUTE_MS)),
    start: iso(plan.startMs),
    end: iso(plan.endMs),
    timezone_offset: user.timezoneOffset,
    sport_name: 'running',
    score_state: 'SCORED',
    score: {
      strain: workoutStrain(user, day),
      average_heart_rate: averageHeartRate,
      max_heart_rate: Math.min(user.body.max_heart_rate - 5, averageHeartRate + 15 + Math.floor(u('maxHr') * 20)),
      // 8 to 12 kcal a minute.
      kilojoule: round(minutes * (33 + u('kj') * 17), 4),
      percent_recorded: 100,
      // 5:00 to 6:30 minutes a kilometre.
      distance_meter: round((minutes / (5 + u('pace') * 1.5)) * 1000, 4),
      altitude_gain_meter: round(10 + u('climb') * 60, 4),
      altitude_change_meter: round(u('altitude') * 10 - 5, 4),
      zone_durations: {
        zone_zero_milli: zones.zero,
        zone_one_milli: zones.one,
        zone_two_milli: zones.two,
        zone_three_milli: zones.three,
        zone_four_milli: zones.four,
        zone_five_milli: duration - zones.zero - zones.one - zones.two - zones.three - zones.four,
      },
    },
  };
}

/** The day's cycle, scored; left open (no `end`) while the next night's sleep is still ahead. */
function seedCycle(user: User, day: string, cycleId: number, startMs: number, endMs: number, workout: WhoopWorkoutRecord | null): WhoopCycleRecord {
  const u = (what: string) => unit(user.id, day, 'cycle', what);
  const open = endMs > Date.now();
  const createdAt = startMs + Math.floor((1 + u('created') * 4) * MINUTE_MS);
  return {
    id: cycleId,
    user_id: user.numericId,
    created_at: iso(createdAt),
    updated_at: iso(open ? createdAt : endMs + Math.floor((1 + u('updated') * 10) * MINUTE_MS)),
    start: iso(startMs),
    ...(open ? {} : { end: iso(endMs) }),
    timezone_offset: user.timezoneOffset,
    score_state: 'SCORED',
    score: {
      strain: dayStrain(user, day),
      kilojoule: round(7000 + u('kj') * 2500 + (workout?.score?.kilojoule ?? 0), 4),
      average_heart_rate: Math.round(60 + u('hr') * 12 + (workout ? 3 : 0)),
      max_heart_rate: workout?.score
        ? Math.min(user.body.max_heart_rate, workout.score.max_heart_rate + Math.floor(u('maxHr') * 4))
        : 120 + Math.floor(u('maxHr') * 25),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** The token must carry the route's scope; see the file comment for why this is a 401. */
function requireScope(grant: Grant, scope: string): void {
  if (!grant.scopes.includes(scope)) {
    throw new HttpProblem(401, 'insufficient_scope', `This route needs the ${scope} scope.`, {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    });
  }
}

/** [openapi]: an integer up to 25, 10 when left out. */
function limitParam(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new HttpProblem(400, 'invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}: ${raw}`);
  return limit;
}

/** An RFC 3339 date-time in epoch ms; anything else (no offset, no seconds, 30 February) is a 400. */
function dateTimeParam(raw: string, name: string): number {
  const match = RFC3339.exec(raw);
  const ms = Date.parse(raw);
  const calendar = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))).toISOString().slice(0, 10) : null;
  if (!match || Number.isNaN(ms) || calendar !== `${match[1]}-${match[2]}-${match[3]}`) {
    throw new HttpProblem(400, 'invalid_request', `${name} must be an RFC 3339 date-time with an offset (a '+' sent as %2B): ${raw}`);
  }
  return ms;
}

function asleepOf(stages: WhoopSleepStageSummary): number {
  return stages.total_light_sleep_time_milli + stages.total_slow_wave_sleep_time_milli + stages.total_rem_sleep_time_milli;
}

/** A UUID-shaped id derived from `seed`, so seeded ids are the same on every run. */
function pseudoUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function parseDay(day: string): number {
  const ms = Date.parse(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(ms) || dayString(ms) !== day) throw new Error(`FakeWhoop: not a YYYY-MM-DD day: ${day}`);
  return ms;
}

function dayString(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The instant the member's local `day` begins. */
function localMidnight(user: User, day: string): number {
  return parseDay(day) - user.offsetMinutes * MINUTE_MS;
}

/** WHOOP writes record times in UTC with milliseconds: 2022-04-24T11:25:44.774Z ([openapi] examples). */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
