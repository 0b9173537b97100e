import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, FakeFailures, FakeGrants, listenLocally, opaqueToken, readForm, redirect, sendJson, unit, withQuery } from './fake-provider-http';
import type { FakeAuthorizationDecision, FakeBearerRefusal, FakeGrant } from './fake-provider-http';

/**
 * A local stand-in for the Oura Ring cloud (OAuth2 + API v2), for tests that cannot reach Oura.
 *
 * It follows Oura's published material (sources in the comments: the official OpenAPI document,
 * cloud.ouraring.com/docs/authentication and /docs/error-handling). Where Oura documents nothing,
 * the choice made here is called out with "UNDOCUMENTED" so the integration is not built on a guess:
 *   - date ranges (`start_date`/`end_date`): both bounds exclusive on `day` — the strictest reading
 *     of conflicting field reports, so only a client that pads its window by a day each side (and
 *     filters by `day` itself) passes; such a client works against every reported variant.
 *   - heart-rate ranges (`start_datetime`/`end_datetime`): both bounds inclusive, so windows that
 *     share a boundary overlap by one sample and the client must de-duplicate on `timestamp`.
 *
 * Everything lives in memory; every server is independent (tests may run several at once).
 */

// ---------------------------------------------------------------------------------------------
// Document shapes (OpenAPI components: PublicHeartRateRow, PublicModifiedSleepModel,
// PublicDailySleep, PublicDailyActivity, PersonalInfoResponse)
// ---------------------------------------------------------------------------------------------

/** Oura's `PublicSample`: `items[i]` was recorded at `timestamp + i * interval` seconds. */
export interface FakeOuraSample {
  interval: number;
  items: Array<number | null>;
  timestamp: string;
}

export type FakeOuraHeartRateSource = 'awake' | 'rest' | 'sleep' | 'session' | 'live' | 'workout';

/** One 5-minute heart-rate sample (`PublicHeartRateRow`); `timestamp` is UTC, `timestamp_unix` in ms. */
export interface FakeOuraHeartRate {
  bpm: number;
  source: FakeOuraHeartRateSource;
  timestamp: string;
  timestamp_unix: number;
}

export interface FakeOuraReadiness {
  contributors: {
    activity_balance: number | null;
    body_temperature: number | null;
    hrv_balance: number | null;
    previous_day_activity: number | null;
    previous_night: number | null;
    recovery_index: number | null;
    resting_heart_rate: number | null;
    sleep_balance: number | null;
    sleep_regularity: number | null;
  };
  score: number | null;
  temperature_deviation: number | null;
  temperature_trend_deviation: number | null;
}

/** One sleep period (`PublicModifiedSleepModel`). Durations are in seconds. */
export interface FakeOuraSleep {
  id: string;
  /** The day the sleep belongs to: the day it ends on. */
  day: string;
  bedtime_start: string;
  bedtime_end: string;
  type: 'deleted' | 'sleep' | 'long_sleep' | 'late_nap' | 'rest' | null;
  period: number;
  low_battery_alert: boolean;
  time_in_bed: number;
  total_sleep_duration: number | null;
  awake_time: number | null;
  light_sleep_duration: number | null;
  rem_sleep_duration: number | null;
  deep_sleep_duration: number | null;
  /** Seconds from going to bed to falling asleep. */
  latency: number | null;
  /** Percent of time in bed spent asleep, [1, 100]. */
  efficiency: number | null;
  restless_periods: number | null;
  average_heart_rate: number | null;
  lowest_heart_rate: number | null;
  average_hrv: number | null;
  average_breath: number | null;
  /** bpm every 300 s from bedtime_start. */
  heart_rate: FakeOuraSample | null;
  /** HRV (ms) every 300 s from bedtime_start; null while awake. */
  hrv: FakeOuraSample | null;
  /** One character per 5 minutes: '1' deep, '2' light, '3' REM, '4' awake. */
  sleep_phase_5_min: string | null;
  sleep_phase_30_sec: string | null;
  /** One character per 30 seconds: '1' no motion, '2' restless, '3' tossing and turning, '4' active. */
  movement_30_sec: string | null;
  readiness: FakeOuraReadiness | null;
  readiness_score_delta: number | null;
  sleep_score_delta: number | null;
  sleep_algorithm_version: 'v1' | 'v2' | null;
  sleep_analysis_reason: 'foreground_sleep_analysis' | 'bedtime_edit' | null;
  ring_id: string | null;
}

/** `PublicDailySleep`: the day's sleep score. */
export interface FakeOuraDailySleep {
  id: string;
  day: string;
  score: number | null;
  contributors: {
    deep_sleep: number | null;
    efficiency: number | null;
    latency: number | null;
    rem_sleep: number | null;
    restfulness: number | null;
    timing: number | null;
    total_sleep: number | null;
  };
  timestamp: string;
}

/** `PublicDailyActivity`: a 24-hour period starting at 4 a.m. Times in seconds, calories in kcal. */
export interface FakeOuraDailyActivity {
  id: string;
  day: string;
  score: number | null;
  active_calories: number;
  total_calories: number;
  target_calories: number;
  steps: number;
  /** Metres. */
  equivalent_walking_distance: number;
  target_meters: number;
  meters_to_target: number;
  average_met_minutes: number;
  /** One character per 5 minutes from 04:00: '0' non-wear, '1' rest, '2' inactive, '3' low, '4' medium, '5' high. */
  class_5_min: string | null;
  contributors: {
    meet_daily_targets: number | null;
    move_every_hour: number | null;
    recovery_time: number | null;
    stay_active: number | null;
    training_frequency: number | null;
    training_volume: number | null;
  };
  high_activity_met_minutes: number;
  high_activity_time: number;
  medium_activity_met_minutes: number;
  medium_activity_time: number;
  low_activity_met_minutes: number;
  low_activity_time: number;
  sedentary_met_minutes: number;
  sedentary_time: number;
  resting_time: number;
  non_wear_time: number;
  inactivity_alerts: number;
  /** MET every 60 s from 04:00. */
  met: FakeOuraSample;
  timestamp: string;
}

export interface FakeOuraPersonalInfo {
  id: string;
  age: number | null;
  weight: number | null;
  height: number | null;
  biological_sex: string | null;
  email: string | null;
}

export interface FakeOuraUserData {
  heartrate: FakeOuraHeartRate[];
  sleep: FakeOuraSleep[];
  dailySleep: FakeOuraDailySleep[];
  dailyActivity: FakeOuraDailyActivity[];
}

export interface FakeOuraOptions {
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlSeconds?: number;
  pageSize?: number;
}

export interface FakeOuraRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** The Oura user whose bearer token the request carried, if it carried a known one. */
  userId?: string;
}

/** The scopes Oura's authorize page knows (docs/authentication; the OpenAPI spells SpO2 `spo2Daily`). */
export const OURA_SCOPES = ['email', 'personal', 'daily', 'heartrate', 'workout', 'tag', 'session', 'spo2', 'spo2Daily'] as const;

// ---------------------------------------------------------------------------------------------
// Internal state
// ---------------------------------------------------------------------------------------------

interface User {
  id: string;
  email: string;
  age: number;
  weight: number;
  height: number;
  biologicalSex: 'male' | 'female';
  data: FakeOuraUserData;
}

/** A consent with the scopes it granted. */
interface Grant extends FakeGrant {
  scopes: string[];
}

/** Oura's consent page lets the user switch requested scopes off: `scopes`, when given, are the ones left on. */
interface AuthorizationDecision extends FakeAuthorizationDecision {
  scopes?: string[];
}

/** Where a paginated listing stopped; the opaque next_token points at one of these. */
interface Cursor {
  userId: string;
  collection: ListCollection;
  from: string | null;
  to: string | null;
  offset: number;
}

type ListCollection = 'heartrate' | 'sleep' | 'daily_sleep' | 'daily_activity';

/** Which scope each collection needs (OpenAPI tag descriptions; the scope list in docs/authentication). */
const REQUIRED_SCOPE: Record<ListCollection, string> = {
  heartrate: 'heartrate',
  sleep: 'daily',
  daily_sleep: 'daily',
  daily_activity: 'daily',
};

/** The 401 title and detail for each way a bearer token fails (docs/error-handling). */
const BEARER_REFUSALS: Record<FakeBearerRefusal, [title: string, detail: string]> = {
  missing: ['Invalid Token', 'Token not provided.'],
  unknown: ['Invalid Access Token', 'Access token not provided or is invalid.'],
  revoked: ['Token Already Used Or Revoked', 'Token already used or revoked.'],
  expired: ['Expired Token', 'Token has expired.'],
};

/** docs/authentication: "The authorization code is valid for 10 minutes". */
const CODE_TTL_MS = 10 * 60 * 1000;
const FIVE_MINUTES_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** An RFC 7807 problem (docs/error-handling), optionally with RFC 6749 `error` fields for OAuth endpoints. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly oauthError?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${title}${detail ? `: ${detail}` : ''}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

export class FakeOura {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly requests: FakeOuraRequest[] = [];

  private readonly accessTokenTtlSeconds: number;
  private readonly pageSize: number;
  private readonly users = new Map<string, User>();
  private readonly decisions: AuthorizationDecision[] = [];
  private readonly grants = new FakeGrants<Grant>();
  private readonly failures = new FakeFailures();
  private readonly cursors = new Map<string, Cursor>();

  private constructor(
    private readonly server: Server,
    options: FakeOuraOptions,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.clientId = options.clientId ?? 'oura-client-id';
    this.clientSecret = options.clientSecret ?? 'oura-client-secret';
    // docs/authentication: server-side-flow access tokens live 24 hours (expires_in 86400).
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 86_400;
    this.pageSize = options.pageSize ?? 50;
  }

  static async start(options: FakeOuraOptions = {}): Promise<FakeOura> {
    let fake: FakeOura | null = null;
    const server = await listenLocally((req, res) => (fake as unknown as FakeOura).handle(req, res));
    fake = new FakeOura(server, options);
    return fake;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** The settings that point labflow's Oura client at this stand-in. */
  labflowEnv(): Record<string, string> {
    return { OURA_CLIENT_ID: this.clientId, OURA_CLIENT_SECRET: this.clientSecret, OURA_AUTHORIZE_URL: `${this.url}/oauth/authorize`, OURA_API_URL: this.url };
  }

  // ----- test controls -------------------------------------------------------------------------

  addUser(options: { email?: string } = {}): string {
    const n = this.users.size + 1;
    const id = pseudoUuid(`user|${n}`);
    const u = (what: string) => unit(id, 'profile', what);
    this.users.set(id, {
      id,
      email: options.email ?? `oura-user-${n}@example.com`,
      age: 25 + Math.floor(u('age') * 35),
      weight: round(55 + u('weight') * 40, 1),
      height: round(1.55 + u('height') * 0.4, 2),
      biologicalSex: u('sex') < 0.5 ? 'female' : 'male',
      data: { heartrate: [], sleep: [], dailySleep: [], dailyActivity: [] },
    });
    return id;
  }

  /** Queues the outcome of the next visit to /oauth/authorize (visits consume decisions in order). */
  nextAuthorization(decision: AuthorizationDecision): void {
    this.decisions.push({ ...decision });
  }

  /**
   * Deterministic data for the UTC days [fromDay, fromDay + days): heart rate every 5 minutes, one
   * long_sleep per night (the one ending on that day, so the first starts the evening before), the
   * daily_sleep score and daily_activity. Re-seeding a day replaces its documents.
   */
  seedDays(userId: string, fromDay: string, days: number): void {
    const user = this.user(userId);
    const seeded = Array.from({ length: days }, (_, i) => addDays(parseDay(fromDay), i));
    // One night more than the days: a day's activity (04:00 to 04:00) reaches into the next night.
    const nights = [...seeded, addDays(parseDay(fromDay), days)].map((day) => planNight(user.id, day));
    const model = new DayModel(user, nights);
    const inSeeded = (day: string) => seeded.includes(day);

    const data = user.data;
    data.heartrate = data.heartrate.filter((row) => !inSeeded(row.timestamp.slice(0, 10)));
    data.sleep = data.sleep.filter((doc) => !inSeeded(doc.day));
    data.dailySleep = data.dailySleep.filter((doc) => !inSeeded(doc.day));
    data.dailyActivity = data.dailyActivity.filter((doc) => !inSeeded(doc.day));
    for (const day of seeded) {
      data.heartrate.push(...model.heartRate(day));
      const sleep = model.sleep(nights.find((night) => night.day === day)!);
      data.sleep.push(sleep);
      data.dailySleep.push(model.dailySleep(sleep));
      data.dailyActivity.push(model.dailyActivity(day));
    }
    data.heartrate.sort((a, b) => a.timestamp_unix - b.timestamp_unix);
    for (const docs of [data.sleep, data.dailySleep, data.dailyActivity]) docs.sort((a, b) => a.day.localeCompare(b.day));
  }

  /** The user's stored documents, live: what the API serves (mutate them to simulate changes). */
  data(userId: string): FakeOuraUserData {
    return this.user(userId).data;
  }

  /**
   * Tokens of a grant made outside labflow (another app of the same OAuth client, as a team
   * migrating its connections holds them): the token response Oura gave that app.
   */
  grantOutside(userId: string, scopes: string[] = ['daily', 'heartrate']): { access_token: string; refresh_token: string; expires_in: number } {
    this.user(userId);
    return this.issue({ userId, scopes, revoked: false }) as { access_token: string; refresh_token: string; expires_in: number };
  }

  /** Whether the refresh token was used (Oura's are single-use). */
  refreshTokenUsed(refreshToken: string): boolean {
    return this.grants.refreshTokenUsed(refreshToken);
  }

  /** Every access token issued so far answers 401 (tokens issued later are fresh). */
  expireAccessTokens(): void {
    this.grants.expireAccessTokens();
  }

  /** The user withdraws consent: their access tokens answer 401, refresh tokens `invalid_grant`. */
  revoke(userId: string): void {
    this.grants.revoke(userId);
  }

  /** The next `times` requests to `path` (any path, e.g. /v2/usercollection/heartrate or /oauth/token) answer `status`. */
  failNext(path: string, status: number, times = 1): void {
    this.failures.failNext(path, status, times);
  }

  // ----- HTTP ----------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const userId = this.grants.bearerToken(req.headers.authorization)?.grant.userId;
    res.on('finish', () => {
      this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: res.statusCode, ...(userId ? { userId } : {}) });
    });
    try {
      this.injectFailure(url.pathname);
      if (url.pathname === '/oauth/authorize' && method === 'GET') return this.authorize(url, res);
      if (url.pathname === '/oauth/token' && method === 'POST') return sendJson(res, 200, await this.token(req), { 'cache-control': 'no-store' });
      if (url.pathname === '/oauth/revoke') return this.revokeToken(url, res);
      if (url.pathname.startsWith('/v2/usercollection/') && method === 'GET') return sendJson(res, 200, this.userCollection(req, url));
      throw new HttpProblem(404, 'Not Found', `${method} ${url.pathname}`);
    } catch (error) {
      const problem = error instanceof HttpProblem ? error : new HttpProblem(500, 'Internal Server Error', String(error));
      sendProblem(res, problem);
    }
  }

  private injectFailure(path: string): void {
    const status = this.failures.take(path);
    if (status === null) return;
    if (status !== 429) throw new HttpProblem(status, status >= 500 ? 'Internal Server Error' : 'Injected Failure');
    // The OpenAPI overview: a 429 carries Retry-After (integer seconds) and the X-RateLimit-* headers.
    throw new HttpProblem(429, 'Request Rate Limit Exceeded', 'Too many requests', undefined, {
      'retry-after': '1',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-window': '300',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 1),
      'x-ratelimit-tier': 'access_token',
    });
  }

  // ----- OAuth2 (docs/authentication, the server-side flow) -------------------------------------

  /**
   * GET /oauth/authorize?response_type=code&client_id&redirect_uri&state&scope (space-separated).
   * Problems with the client or redirect_uri are shown to the user (400, no redirect), as OAuth
   * requires; the user's decision goes back to redirect_uri as ?code&scope&state or ?error=access_denied&state.
   */
  private authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId) throw new HttpProblem(400, 'Invalid Client ID', 'Invalid client_id.', 'invalid_client');
    const redirectUri = q.get('redirect_uri');
    // Oura lets an app with exactly one registered redirect URI omit it; the fake registers none, so it is required.
    if (!redirectUri) throw new HttpProblem(400, 'Missing Redirect URI Parameter', 'Missing redirect_uri parameter.', 'invalid_request');
    const state = q.get('state');
    const back = (params: Record<string, string>) => redirect(res, withQuery(redirectUri, { ...params, ...(state === null ? {} : { state }) }));

    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    // "If this parameter is not given, the user will be prompted to give access to all available scopes."
    const requested = q
      .get('scope')
      ?.split(/[\s+]+/)
      .filter(Boolean) ?? [...OURA_SCOPES];
    if (requested.some((scope) => !(OURA_SCOPES as readonly string[]).includes(scope))) return back({ error: 'invalid_scope' });

    const decision = this.decisions.shift();
    if (!decision) throw new HttpProblem(500, 'FakeOura: no nextAuthorization() queued for this visit to /oauth/authorize');
    this.user(decision.userId);
    if (decision.deny) return back({ error: 'access_denied' });
    // The user can switch off scopes on the consent page, never add unrequested ones.
    const scopes = decision.scopes ? requested.filter((scope) => decision.scopes!.includes(scope)) : requested;
    const code = this.grants.mintCode({ userId: decision.userId, scopes, revoked: false }, redirectUri, CODE_TTL_MS);
    back({ code, scope: scopes.join(' ') });
  }

  /**
   * POST /oauth/token, form-encoded: grant_type=authorization_code (code, redirect_uri) or
   * grant_type=refresh_token (refresh_token); the client authenticates with client_id/client_secret
   * in the form or with HTTP Basic. Refresh tokens are single-use (docs/error-handling: "If you are
   * trying to use a refresh token, note that it can only be used once"): each refresh returns a new pair.
   */
  private async token(req: IncomingMessage): Promise<Record<string, unknown>> {
    const form = await readForm(
      req,
      () => new HttpProblem(400, 'Invalid Request', 'The token endpoint takes an application/x-www-form-urlencoded body.', 'invalid_request'),
    );
    this.authenticateClient(req, form);
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return this.issue(this.redeemCode(form));
    if (grantType === 'refresh_token') return this.issue(this.redeemRefreshToken(form));
    throw new HttpProblem(400, 'Invalid Grant Type', 'grant_type must be either authorization_code or refresh_token.', 'unsupported_grant_type');
  }

  private authenticateClient(req: IncomingMessage, form: URLSearchParams): void {
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (id !== this.clientId || secret !== this.clientSecret) {
      throw new HttpProblem(
        401,
        'Invalid Client',
        'Client authentication failed.',
        'invalid_client',
        basic ? { 'www-authenticate': 'Basic realm="oura"' } : {},
      );
    }
  }

  private redeemCode(form: URLSearchParams): Grant {
    const code = this.grants.redeemableCode(form.get('code'));
    if (!code) {
      throw new HttpProblem(400, 'Invalid Grant', 'Authorization code is invalid, expired or already used.', 'invalid_grant');
    }
    const redirectUri = form.get('redirect_uri');
    if (!redirectUri) throw new HttpProblem(400, 'Missing Redirect URI Payload', 'redirect_uri missing.', 'invalid_request');
    if (redirectUri !== code.redirectUri)
      throw new HttpProblem(400, 'Redirect URI Does Not Match', 'redirect_uri does not match the authorization request.', 'invalid_grant');
    return this.grants.use(code);
  }

  private redeemRefreshToken(form: URLSearchParams): Grant {
    const token = this.grants.usableRefreshToken(form.get('refresh_token'));
    if (!token)
      throw new HttpProblem(400, 'Token Already Used Or Revoked', 'Refresh token already used or revoked; it can only be used once.', 'invalid_grant');
    return this.grants.use(token);
  }

  /** The documented token response: token_type, access_token, expires_in, refresh_token (no scope). */
  private issue(grant: Grant): Record<string, unknown> {
    const accessToken = this.grants.mintAccessToken(grant, this.accessTokenTtlSeconds);
    return { token_type: 'bearer', access_token: accessToken, expires_in: this.accessTokenTtlSeconds, refresh_token: this.grants.mintRefreshToken(grant) };
  }

  /** GET|POST /oauth/revoke?access_token=… (docs/authentication): ends the whole grant, refresh tokens included. */
  private revokeToken(url: URL, res: ServerResponse): void {
    const token = this.grants.accessToken(url.searchParams.get('access_token') ?? '');
    if (!token) throw new HttpProblem(400, 'Invalid Access Token', 'Access token not provided or is invalid.', 'invalid_token');
    token.grant.revoked = true;
    sendJson(res, 200, {});
  }

  // ----- API v2 --------------------------------------------------------------------------------

  private userCollection(req: IncomingMessage, url: URL): unknown {
    const grant = this.authenticateBearer(req);
    const [collection, documentId, ...rest] = url.pathname.slice('/v2/usercollection/'.length).split('/');
    if (rest.length > 0) throw new HttpProblem(404, 'Not Found');
    if (collection === 'personal_info' && documentId === undefined) return this.personalInfo(grant);
    if (!isListCollection(collection)) throw new HttpProblem(404, 'Not Found', `Unknown collection ${collection}`);
    const scope = REQUIRED_SCOPE[collection];
    if (!grant.scopes.includes(scope)) throw new HttpProblem(403, 'Missing Scopes', `Missing required scopes: ${scope}`);
    if (documentId !== undefined) return this.singleDocument(grant.userId, collection, documentId);
    return this.list(grant.userId, collection, url.searchParams);
  }

  private authenticateBearer(req: IncomingMessage): Grant {
    return this.grants.authenticate(req.headers.authorization, (why) => {
      const [title, detail] = BEARER_REFUSALS[why];
      return new HttpProblem(401, title, detail, undefined, { 'www-authenticate': 'Bearer error="invalid_token"' });
    });
  }

  /**
   * The OpenAPI "Personal Info Routes": the id comes with any access token (no scope needed); age,
   * weight, height and biological_sex need `personal`, email needs `email` (null without them).
   */
  private personalInfo(grant: Grant): FakeOuraPersonalInfo {
    const user = this.user(grant.userId);
    const personal = grant.scopes.includes('personal');
    return {
      id: user.id,
      age: personal ? user.age : null,
      weight: personal ? user.weight : null,
      height: personal ? user.height : null,
      biological_sex: personal ? user.biologicalSex : null,
      email: grant.scopes.includes('email') ? user.email : null,
    };
  }

  private singleDocument(userId: string, collection: ListCollection, documentId: string): unknown {
    if (collection === 'heartrate') throw new HttpProblem(404, 'Not Found');
    const found = (this.documents(userId, collection) as Array<{ id: string }>).find((doc) => doc.id === documentId);
    if (!found) throw new HttpProblem(404, 'Not Found', `No ${collection} document ${documentId}`);
    return found;
  }

  /** `{ data, next_token }`, `pageSize` documents a page, next_token null on the last page. */
  private list(userId: string, collection: ListCollection, query: URLSearchParams): { data: unknown[]; next_token: string | null } {
    const cursor = this.cursorFor(userId, collection, query);
    const matching = this.matching(cursor);
    const data = matching.slice(cursor.offset, cursor.offset + this.pageSize);
    const nextOffset = cursor.offset + data.length;
    if (nextOffset >= matching.length) return { data, next_token: null };
    const nextToken = opaqueToken();
    this.cursors.set(nextToken, { ...cursor, offset: nextOffset });
    return { data, next_token: nextToken };
  }

  /** A next_token carries the original filter, so later pages need (and read) nothing else. */
  private cursorFor(userId: string, collection: ListCollection, query: URLSearchParams): Cursor {
    const nextToken = query.get('next_token');
    if (nextToken) {
      const cursor = this.cursors.get(nextToken);
      if (!cursor || cursor.userId !== userId || cursor.collection !== collection) {
        throw new HttpProblem(400, 'Query Parameter Validation Error', 'Invalid next_token.');
      }
      return cursor;
    }
    if (collection === 'heartrate') {
      return { userId, collection, from: datetimeParam(query, 'start_datetime'), to: datetimeParam(query, 'end_datetime'), offset: 0 };
    }
    return { userId, collection, from: dateParam(query, 'start_date'), to: dateParam(query, 'end_date'), offset: 0 };
  }

  private matching(cursor: Cursor): unknown[] {
    if (cursor.collection === 'heartrate') {
      // UNDOCUMENTED: both datetime bounds inclusive (see the file comment).
      const from = cursor.from === null ? -Infinity : Date.parse(cursor.from);
      const to = cursor.to === null ? Infinity : Date.parse(cursor.to);
      return this.user(cursor.userId)
        .data.heartrate.filter((row) => row.timestamp_unix >= from && row.timestamp_unix <= to)
        .sort((a, b) => a.timestamp_unix - b.timestamp_unix);
    }
    // UNDOCUMENTED: both day bounds exclusive (see the file comment).
    return (this.documents(cursor.userId, cursor.collection) as Array<{ day: string }>)
      .filter((doc) => (cursor.from === null || doc.day > cursor.from) && (cursor.to === null || doc.day < cursor.to))
      .sort((a, b) => a.day.localeCompare(b.day));
  }

  private documents(userId: string, collection: Exclude<ListCollection, 'heartrate'>): unknown[] {
    const data = this.user(userId).data;
    return { sleep: data.sleep, daily_sleep: data.dailySleep, daily_activity: data.dailyActivity }[collection];
  }

  private user(userId: string): User {
    const user = this.users.get(userId);
    if (!user) throw new Error(`FakeOura: unknown user ${userId}`);
    return user;
  }
}

// ---------------------------------------------------------------------------------------------
// Believable, deterministic data
// ---------------------------------------------------------------------------------------------

/** A night's sleep, ending on `day`, as 5-minute phases from bedtime. */
interface Night {
  day: string;
  startMs: number;
  endMs: number;
  phases: string;
}

/** Bed between 21:30 and 23:25 the evening before, up between 06:00 and 07:55 (UTC), on 5-minute marks. */
function planNight(userId: string, day: string): Night {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  const startMs = midnight - 150 * 60_000 + FIVE_MINUTES_MS * Math.floor(unit(userId, day, 'bed') * 24);
  const endMs = midnight + 6 * 3_600_000 + FIVE_MINUTES_MS * Math.floor(unit(userId, day, 'up') * 24);
  return { day, startMs, endMs, phases: sleepPhases(userId, day, (endMs - startMs) / FIVE_MINUTES_MS) };
}

/**
 * '4' awake while falling asleep, then ~90-minute cycles (light, deep, light, REM) with deep sleep
 * front-loaded and REM growing towards morning, the odd brief awakening, awake at the end.
 */
function sleepPhases(userId: string, day: string, slots: number): string {
  const latency = 1 + Math.floor(unit(userId, day, 'latency') * 4);
  let phases = '';
  for (let i = 0; i < slots; i++) {
    if (i < latency || i === slots - 1) phases += '4';
    else if (unit(userId, day, 'wake', i) < 0.03) phases += '4';
    else {
      const cycle = Math.floor((i - latency) / 18);
      const position = (i - latency) % 18;
      const deep = Math.max(0, 7 - 2 * cycle);
      const rem = Math.min(6, 1 + Math.floor(cycle * 1.5));
      phases += position < 3 ? '2' : position < 3 + deep ? '1' : position >= 18 - rem ? '3' : '2';
    }
  }
  return phases;
}

/** Derives every document of a user's days from their nights, so the collections agree with each other. */
class DayModel {
  constructor(
    private readonly user: User,
    private readonly nights: Night[],
  ) {}

  heartRate(day: string): FakeOuraHeartRate[] {
    const midnight = Date.parse(`${day}T00:00:00Z`);
    return Array.from({ length: DAY_MS / FIVE_MINUTES_MS }, (_, i) => {
      const t = midnight + i * FIVE_MINUTES_MS;
      const source: FakeOuraHeartRateSource = this.phaseAt(t) ? 'sleep' : this.isWorkout(t) ? 'workout' : 'awake';
      return { bpm: this.bpmAt(t), source, timestamp: isoSeconds(t), timestamp_unix: t };
    });
  }

  sleep(night: Night): FakeOuraSleep {
    const seconds = (phase: string) => count(night.phases, phase) * 300;
    const slots = night.phases.length;
    const times = Array.from({ length: slots }, (_, i) => night.startMs + i * FIVE_MINUTES_MS);
    const bpms = times.map((t) => this.bpmAt(t));
    const hrvs = times.map((t, i) => (night.phases[i] === '4' ? null : this.hrvAt(t, night.phases[i]!)));
    const movement = this.movement(night);
    const total = seconds('1') + seconds('2') + seconds('3');
    const u = (what: string) => unit(this.user.id, night.day, what);
    return {
      id: pseudoUuid(`${this.user.id}|sleep|${night.day}`),
      day: night.day,
      bedtime_start: isoSeconds(night.startMs),
      bedtime_end: isoSeconds(night.endMs),
      type: 'long_sleep',
      period: 0,
      low_battery_alert: false,
      time_in_bed: slots * 300,
      total_sleep_duration: total,
      awake_time: seconds('4'),
      light_sleep_duration: seconds('2'),
      rem_sleep_duration: seconds('3'),
      deep_sleep_duration: seconds('1'),
      latency: night.phases.search(/[123]/) * 300,
      efficiency: Math.round((100 * total) / (slots * 300)),
      restless_periods: (movement.match(/[34]+/g) ?? []).length,
      average_heart_rate: round(mean(bpms), 3),
      lowest_heart_rate: Math.min(...bpms),
      average_hrv: Math.round(mean(hrvs.filter((v): v is number => v !== null))),
      average_breath: Math.round((13 + u('breath') * 3) * 8) / 8,
      heart_rate: { interval: 300, items: bpms, timestamp: isoMillis(night.startMs) },
      hrv: { interval: 300, items: hrvs, timestamp: isoMillis(night.startMs) },
      sleep_phase_5_min: night.phases,
      sleep_phase_30_sec: [...night.phases].map((phase) => phase.repeat(10)).join(''),
      movement_30_sec: movement,
      readiness: this.readiness(night.day),
      readiness_score_delta: null,
      sleep_score_delta: null,
      sleep_algorithm_version: 'v2',
      sleep_analysis_reason: 'foreground_sleep_analysis',
      ring_id: null,
    };
  }

  dailySleep(sleep: FakeOuraSleep): FakeOuraDailySleep {
    const start = Date.parse(sleep.bedtime_start);
    const midpointHours = (start + (Date.parse(sleep.bedtime_end) - start) / 2 - Date.parse(`${sleep.day}T00:00:00Z`)) / 3_600_000;
    const contributors = {
      deep_sleep: score(((sleep.deep_sleep_duration ?? 0) / 5400) * 100),
      efficiency: score((sleep.efficiency ?? 0) + 5),
      latency: score(100 - Math.max(0, (sleep.latency ?? 0) / 60 - 10) * 3),
      rem_sleep: score(((sleep.rem_sleep_duration ?? 0) / 6300) * 100),
      restfulness: score(100 - (sleep.restless_periods ?? 0) * 2),
      timing: score(100 - Math.abs(midpointHours - 3) * 15),
      total_sleep: score(((sleep.total_sleep_duration ?? 0) / 28_800) * 100),
    };
    const weighted =
      0.35 * contributors.total_sleep +
      0.1 * contributors.efficiency +
      0.15 * contributors.restfulness +
      0.1 * contributors.rem_sleep +
      0.1 * contributors.deep_sleep +
      0.1 * contributors.latency +
      0.1 * contributors.timing;
    return {
      id: pseudoUuid(`${this.user.id}|daily_sleep|${sleep.day}`),
      day: sleep.day,
      score: score(weighted),
      contributors,
      timestamp: `${sleep.day}T00:00:00+00:00`,
    };
  }

  /** The activity day runs from 04:00 to 04:00; every total is summed from the per-minute METs. */
  dailyActivity(day: string): FakeOuraDailyActivity {
    const start = Date.parse(`${day}T04:00:00Z`);
    const classes = Array.from({ length: DAY_MS / FIVE_MINUTES_MS }, (_, i) => this.activityClass(start + i * FIVE_MINUTES_MS)).join('');
    const minuteClass = (minute: number) => classes[Math.floor(minute / 5)]!;
    const mets = Array.from({ length: 1440 }, (_, m) => this.metAt(start + m * 60_000, minuteClass(m)));
    const metMinutes = (cls: string) => Math.round(mets.reduce((sum, met, m) => (minuteClass(m) === cls ? sum + met : sum), 0));
    const steps = Math.round(mets.reduce((sum, _met, m) => sum + this.stepsPerMinute(start + m * 60_000, minuteClass(m)), 0));
    const activeCalories = Math.round(mets.reduce((sum, met) => sum + (Math.max(0, met - 1) * this.user.weight) / 60, 0));
    const walked = Math.round(steps * 0.75);
    const alerts = Math.min(3, (classes.match(/2{12,}/g) ?? []).length);
    const u = (what: string) => unit(this.user.id, day, what);
    const contributors = {
      meet_daily_targets: score(60 + u('targets') * 40),
      move_every_hour: score(100 - alerts * 15),
      recovery_time: score(70 + u('recovery') * 30),
      stay_active: score(55 + u('stay') * 45),
      training_frequency: score(60 + u('frequency') * 40),
      training_volume: score(60 + u('volume') * 40),
    };
    return {
      id: pseudoUuid(`${this.user.id}|daily_activity|${day}`),
      day,
      score: score(mean(Object.values(contributors))),
      active_calories: activeCalories,
      total_calories: activeCalories + Math.round(this.user.weight * 24),
      target_calories: 450,
      steps,
      equivalent_walking_distance: walked,
      target_meters: 9000,
      meters_to_target: Math.max(0, 9000 - walked),
      average_met_minutes: round(mean(mets), 3),
      class_5_min: classes,
      contributors,
      high_activity_met_minutes: metMinutes('5'),
      high_activity_time: count(classes, '5') * 300,
      medium_activity_met_minutes: metMinutes('4'),
      medium_activity_time: count(classes, '4') * 300,
      low_activity_met_minutes: metMinutes('3'),
      low_activity_time: count(classes, '3') * 300,
      sedentary_met_minutes: metMinutes('2'),
      sedentary_time: count(classes, '2') * 300,
      resting_time: count(classes, '1') * 300,
      non_wear_time: count(classes, '0') * 300,
      inactivity_alerts: alerts,
      met: { interval: 60, items: mets, timestamp: isoMillis(start) },
      timestamp: `${day}T04:00:00+00:00`,
    };
  }

  /** The sleep phase at `t`, if `t` falls in a night. */
  private phaseAt(t: number): string | undefined {
    const night = this.nights.find((n) => t >= n.startMs && t < n.endMs);
    return night?.phases[Math.floor((t - night.startMs) / FIVE_MINUTES_MS)];
  }

  /** Every other day (by hash), a 45-minute workout from 18:00 UTC. */
  private isWorkout(t: number): boolean {
    const day = isoSeconds(t).slice(0, 10);
    const minutes = (t - Date.parse(`${day}T00:00:00Z`)) / 60_000;
    return unit(this.user.id, day, 'workout') < 0.5 && minutes >= 18 * 60 && minutes < 18 * 60 + 45;
  }

  /** Lowest in the middle of the night, higher in REM and awake; a daytime curve; high in workouts. */
  private bpmAt(t: number): number {
    const noise = unit(this.user.id, 'bpm', t);
    const phase = this.phaseAt(t);
    if (phase) {
      const night = this.nights.find((n) => t >= n.startMs && t < n.endMs)!;
      const progress = (t - night.startMs) / (night.endMs - night.startMs);
      const adjust = { '1': -3, '2': 0, '3': 4, '4': 8 }[phase] ?? 0;
      return Math.round(56 - 6 * Math.sin(Math.PI * progress) + adjust + noise * 4 - 2);
    }
    if (this.isWorkout(t)) return Math.round(125 + noise * 30);
    const hour = (t % DAY_MS) / 3_600_000;
    return Math.round(70 + 8 * Math.sin((2 * Math.PI * (hour - 9)) / 24) + noise * 16 - 8);
  }

  private hrvAt(t: number, phase: string): number {
    const base = phase === '1' ? 60 : phase === '3' ? 40 : 48;
    return Math.round(base + unit(this.user.id, 'hrv', t) * 20 - 10);
  }

  /** Ten 30-second characters per 5-minute phase: still in deep sleep, more motion in light/REM, active awake. */
  private movement(night: Night): string {
    return [...night.phases]
      .map((phase, slot) =>
        Array.from({ length: 10 }, (_, i) => {
          const u = unit(this.user.id, night.day, 'move', slot * 10 + i);
          if (phase === '1') return '1';
          if (phase === '4') return u < 0.5 ? '3' : '4';
          return u < 0.9 ? '1' : '2';
        }).join(''),
      )
      .join('');
  }

  private readiness(day: string): FakeOuraReadiness {
    const c = (what: string) => score(65 + unit(this.user.id, day, 'readiness', what) * 35);
    const contributors = {
      activity_balance: c('activity_balance'),
      body_temperature: c('body_temperature'),
      hrv_balance: c('hrv_balance'),
      previous_day_activity: c('previous_day_activity'),
      previous_night: c('previous_night'),
      recovery_index: c('recovery_index'),
      resting_heart_rate: c('resting_heart_rate'),
      sleep_balance: c('sleep_balance'),
      sleep_regularity: c('sleep_regularity'),
    };
    return {
      contributors,
      score: score(mean(Object.values(contributors))),
      temperature_deviation: round(unit(this.user.id, day, 'temp') * 0.6 - 0.3, 2),
      temperature_trend_deviation: round(unit(this.user.id, day, 'trend') * 0.4 - 0.2, 2),
    };
  }

  /** Asleep is rest, the workout is high, a short non-wear gap at 07:30, the rest of the day mostly inactive. */
  private activityClass(t: number): string {
    if (this.phaseAt(t)) return '1';
    if (this.isWorkout(t)) return '5';
    const minuteOfDay = (t % DAY_MS) / 60_000;
    if (minuteOfDay >= 7 * 60 + 30 && minuteOfDay < 7 * 60 + 50) return '0';
    const u = unit(this.user.id, 'class', t);
    return u < 0.78 ? '2' : u < 0.95 ? '3' : '4';
  }

  private metAt(t: number, cls: string): number {
    const u = unit(this.user.id, 'met', t);
    const [low, high] = ({ '0': [0, 0], '1': [0.9, 0.9], '2': [1, 1.3], '3': [1.8, 2.8], '4': [3, 5], '5': [6, 9] } as Record<string, [number, number]>)[cls]!;
    return round(low + u * (high - low), 1);
  }

  private stepsPerMinute(t: number, cls: string): number {
    const u = unit(this.user.id, 'steps', t);
    return ({ '2': 4 * u, '3': 20 + 30 * u, '4': 80 + 30 * u, '5': 130 + 30 * u } as Record<string, number>)[cls] ?? 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function isListCollection(name: string | undefined): name is ListCollection {
  return name !== undefined && Object.prototype.hasOwnProperty.call(REQUIRED_SCOPE, name);
}

/** start_date/end_date take a date or a date-time (OpenAPI); only the date part matters for `day`. */
function dateParam(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  if (value === null || value === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value.slice(0, 10)))) {
    throw new HttpProblem(400, 'Query Parameter Validation Error', `${name} is not a date: ${value}`);
  }
  return value.slice(0, 10);
}

/** Note a literal '+' in an offset arrives as a space unless the client encodes it (%2B), as Oura warns. */
function datetimeParam(query: URLSearchParams, name: string): string | null {
  const value = query.get(name);
  if (value === null || value === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new HttpProblem(400, 'Query Parameter Validation Error', `${name} is not a date-time: ${value}`);
  }
  return value;
}

/** RFC 7807 fields always; the RFC 6749 `error`/`error_description` too on OAuth errors (docs/error-handling). */
function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  const body: Record<string, unknown> = { status: problem.status, title: problem.title };
  if (problem.detail !== undefined) body.detail = problem.detail;
  if (problem.oauthError !== undefined) {
    body.error = problem.oauthError;
    body.error_description = problem.detail ?? problem.title;
  }
  sendJson(res, problem.status, body, problem.headers);
}

/** A UUID-shaped id derived from `seed`, so seeded ids are the same on every run. */
function pseudoUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function parseDay(day: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`FakeOura: not a YYYY-MM-DD day: ${day}`);
  return Date.parse(`${day}T00:00:00Z`);
}

function addDays(dayStartMs: number, days: number): string {
  return new Date(dayStartMs + days * DAY_MS).toISOString().slice(0, 10);
}

/** Oura writes document times with an explicit offset: 2024-03-01T06:35:00+00:00. */
function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

/** Sample timestamps carry milliseconds: 2024-03-01T06:35:00.000+00:00. */
function isoMillis(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}+00:00`;
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** A score or contributor: an integer in [1, 100]. */
function score(value: number): number {
  return Math.min(100, Math.max(1, Math.round(value)));
}
