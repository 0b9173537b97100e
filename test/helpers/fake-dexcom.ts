import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  closeServer,
  FakeFailures,
  FakeGrants,
  listenLocally,
  OAuthProblem as HttpProblem,
  redeemAuthorizationCode,
  redirect,
  sendJson,
  sendOAuthProblem,
  tokenRequest,
  unit,
  withQuery,
} from './fake-provider-http';
import type { FakeAuthorizationDecision, FakeBearerRefusal, FakeGrant } from './fake-provider-http';

/**
 * A local stand-in for the Dexcom API v3 (OAuth2 at /v2/oauth2, data at /v3/users/self), for tests
 * that cannot reach api.dexcom.com.
 *
 * It follows Dexcom's published documentation on developer.dexcom.com; each rule names its page:
 *   [auth]      /docs/dexcom/authentication                       the login URL, its parameters, client credentials
 *   [overview]  /docs/dexcomv3/endpoint-overview                  endpoints, 60,000 calls/app/hour then HTTP 429, systemTime vs displayTime
 *   [egvs]      /docs/dexcomv3/operation/getEstimatedGlucoseValuesV3   startDate/endDate, the EGV record, UTC offsets by displayDevice
 *   [dataRange] /docs/dexcomv3/operation/getDataRangeV3           the response, lastSyncTime
 *   [swagger]   /docs/_bundle/swaggerV3.json                      the token response examples (expires_in 7200, token_type "Bearer")
 *   [v2egvs]    /docs/dexcomv2/operation/getEstimatedGlucoseValuesV2, [v2dataRange] /docs/dexcomv2/operation/getDataRange
 *
 * The stored copies of [auth] and [overview] end before their later sections (token exchange,
 * refresh, the query-window rules), so those rules rest on what is visible plus what labflow's own
 * client already assumes (src/adapters/sources/oauth2-client.ts). Where nothing authoritative is at
 * hand, the choice made here is called out with "UNDOCUMENTED" and is the strictest reasonable
 * reading, so a client that passes here works against every variant:
 *   - window bounds: both startDate and endDate EXCLUSIVE on systemTime. A client that chains
 *     windows end-to-start loses the record on the seam; one that overlaps its windows and
 *     de-duplicates on recordId works whether Dexcom's bounds are inclusive, half-open or exclusive.
 *   - the window: at most 30 days (the limit the v3 overview is reported to state) and startDate
 *     strictly before endDate, both exactly `YYYY-MM-DDThh:mm:ss` (the documented example form),
 *     read as UTC system time; anything else is a 400.
 *   - record order: newest first (as the only documented example, [v2egvs], lists them), so the
 *     client must sort.
 *   - refresh tokens: single use; every refresh answers a new pair ([swagger]'s refresh example
 *     carries a new refresh_token) and the used one then answers 400 invalid_grant.
 *   - a refresh must carry the redirect_uri (labflow's client sends it for Dexcom); when the grant
 *     came through the login page it must be that consent's redirect_uri.
 *   - authorization codes: single use, valid for 60 seconds.
 *   - error bodies: Dexcom documents none, so they are RFC 6749 `{ error, error_description }`
 *     everywhere and a client should branch on the status alone. A 429 carries no Retry-After or
 *     rate-limit headers: [overview] documents only the status.
 *
 * Everything lives in memory; every server is independent (tests may run several at once).
 */

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

export interface FakeDexcomRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** the Dexcom user whose bearer token it carried, if known */
  userId?: string;
}

/** One EGV record as [egvs] spells it (`com.dexcom.partner.api.models.proto.v3.egv.EGV`), in mg/dL. */
export interface FakeDexcomEgv {
  /** A UUID, unique per record for the client. */
  recordId: string;
  /** UTC by the device clock; `+00:00` on records from the phone apps, no offset from receivers. */
  systemTime: string;
  /** The device's wall clock; with its UTC offset on records from the phone apps, none from receivers. */
  displayTime: string;
  transmitterId: string | null;
  transmitterTicks: number;
  /** null when the reading is out of the sensor's range (`status` high or low). */
  value: number | null;
  status: 'unknown' | 'high' | 'low' | 'ok' | null;
  trend: string | null;
  trendRate: number | null;
  unit: 'mg/dL';
  rateUnit: 'mg/dL/min';
  displayDevice: string;
  transmitterGeneration: string;
}

export interface FakeDexcomOptions {
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlSeconds?: number;
}

export type FakeDexcomDisplayDevice = 'receiver' | 'iOS' | 'android';

// ---------------------------------------------------------------------------------------------
// Internal state
// ---------------------------------------------------------------------------------------------

interface User {
  id: string;
  displayDevice: FakeDexcomDisplayDevice;
  /** Minutes east of UTC of the display device's clock (displayTime = systemTime + this). */
  displayOffsetMinutes: number;
  transmitterId: string;
  /** Seconds the transmitter had counted at 2020-01-01T00:00:00Z. */
  tickBase: number;
  /** Every stored EGV with its systemTime in epoch ms, oldest first. */
  egvs: Array<{ at: number; record: FakeDexcomEgv }>;
}

/** A consent with the redirect_uri it was given for: a refresh must repeat it (see the file comment). */
interface Grant extends FakeGrant {
  /** The redirect_uri of the consent; null for grants made outside labflow. */
  redirectUri: string | null;
}

/** The 401 error_description for each way a bearer token fails ([overview] documents only the status). */
const BEARER_REFUSALS: Record<FakeBearerRefusal, string> = {
  missing: 'No bearer token.',
  unknown: 'Unknown access token.',
  revoked: 'The user revoked access.',
  expired: 'The access token has expired.',
};

/** [auth]: `scope=offline_access` is the scope of the login URL; no other is offered. */
const DEXCOM_SCOPE = 'offline_access';
/** UNDOCUMENTED in the stored copy of [auth]: codes live one minute and work once (see the file comment). */
const CODE_TTL_MS = 60 * 1000;
/** UNDOCUMENTED in the stored copies: the longest startDate..endDate window (see the file comment). */
const MAX_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const FIVE_MINUTES_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const TICKS_EPOCH_MS = Date.UTC(2020, 0, 1);
/** [egvs]/[dataRange]: the documented example form of startDate, endDate and lastSyncTime. */
const DEXCOM_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
/** Display clocks of the users, by the order they were added: US Pacific, US Eastern, Central Europe, India. */
const DISPLAY_OFFSETS_MINUTES = [-420, -300, 60, 330];

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

export class FakeDexcom {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly requests: FakeDexcomRequest[] = [];

  private readonly accessTokenTtlSeconds: number;
  private readonly users = new Map<string, User>();
  private readonly decisions: FakeAuthorizationDecision[] = [];
  private readonly grants = new FakeGrants<Grant>();
  private readonly failures = new FakeFailures();

  private constructor(
    private readonly server: Server,
    options: FakeDexcomOptions,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.clientId = options.clientId ?? 'dexcom-client-id';
    this.clientSecret = options.clientSecret ?? 'dexcom-client-secret';
    // [swagger]: the token responses answer "expires_in": 7200 (two hours, in seconds).
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 7200;
  }

  static async start(options: FakeDexcomOptions = {}): Promise<FakeDexcom> {
    let fake: FakeDexcom | null = null;
    const server = await listenLocally((req, res) => (fake as unknown as FakeDexcom).handle(req, res));
    fake = new FakeDexcom(server, options);
    return fake;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** The settings that point labflow's Dexcom client at this stand-in. */
  labflowEnv(): Record<string, string> {
    return { DEXCOM_CLIENT_ID: this.clientId, DEXCOM_CLIENT_SECRET: this.clientSecret, DEXCOM_API_URL: this.url };
  }

  // ----- test controls -------------------------------------------------------------------------

  /**
   * A new Dexcom user; answers its userId as Dexcom spells it: [egvs] "unique on a per-Dexcom
   * account, per-Client basis", 64 hex characters in [dataRange]'s example. 'receiver' (the
   * default) writes times without UTC offsets, 'iOS' and 'android' with them ([egvs] Notes).
   */
  addUser(options: { displayDevice?: FakeDexcomDisplayDevice } = {}): string {
    const n = this.users.size + 1;
    const id = hex(`${this.clientId}|user|${n}`);
    this.users.set(id, {
      id,
      displayDevice: options.displayDevice ?? 'receiver',
      displayOffsetMinutes: DISPLAY_OFFSETS_MINUTES[(n - 1) % DISPLAY_OFFSETS_MINUTES.length]!,
      // An opaque string to the client ([egvs]: "string or null"); never parse it.
      transmitterId: hex(`${this.clientId}|transmitter|${n}`),
      tickBase: Math.floor(unit(id, 'ticks') * 1_000_000),
      egvs: [],
    });
    return id;
  }

  /**
   * Deterministic EGVs every 5 minutes for [from, to) (epoch ms, systemTime): believable values
   * 70–250 mg/dL (meals, the night), and each UTC day one two-reading episode out of the sensor's
   * range (value null, status 'high' after dinner or 'low' in the night), as [egvs] allows.
   * Re-seeding replaces the user's EGVs in [from, to); a given instant always gets the same reading.
   */
  seedEgvs(userId: string, from: number, to: number): void {
    const user = this.user(userId);
    if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) throw new Error(`FakeDexcom: bad seed range ${from}..${to}`);
    const seeded: Array<{ at: number; record: FakeDexcomEgv }> = [];
    for (let at = from; at < to; at += FIVE_MINUTES_MS) {
      // Whole seconds, as systemTime is written: the window filter then sees what the client sees.
      const second = Math.floor(at / 1000) * 1000;
      seeded.push({ at: second, record: egvAt(user, second) });
    }
    user.egvs = [...user.egvs.filter((egv) => egv.at < from || egv.at >= to), ...seeded].sort((a, b) => a.at - b.at);
  }

  /** Every EGV stored for the user, oldest first (the records themselves: what the API serves). */
  egvs(userId: string): FakeDexcomEgv[] {
    return this.user(userId).egvs.map((egv) => egv.record);
  }

  /** Queues how the next visit to /v2/oauth2/login is decided (visits consume decisions in order). */
  nextAuthorization(decision: FakeAuthorizationDecision): void {
    this.decisions.push({ ...decision });
  }

  /**
   * Tokens of a grant made outside labflow (another app of the same OAuth client, as a team
   * migrating its connections holds them): the token response Dexcom gave that app.
   */
  grantOutside(userId: string): { access_token: string; refresh_token: string; expires_in: number } {
    this.user(userId);
    return this.issue({ userId, redirectUri: null, revoked: false });
  }

  /** Every access token issued so far answers 401 (tokens issued later are fresh). */
  expireAccessTokens(): void {
    this.grants.expireAccessTokens();
  }

  /** The user withdraws consent ([auth]: users "can revoke the access at any time"): access tokens answer 401, refresh tokens invalid_grant. */
  revoke(userId: string): void {
    this.grants.revoke(userId);
  }

  /** The next `times` requests to `path` (e.g. /v3/users/self/egvs or /v2/oauth2/token) answer `status`. */
  failNext(path: string, status: number, times = 1): void {
    this.failures.failNext(path, status, times);
  }

  /** Whether the refresh token was used (they are single use here; see the file comment). */
  refreshTokenUsed(refreshToken: string): boolean {
    return this.grants.refreshTokenUsed(refreshToken);
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
      if (url.pathname === '/v2/oauth2/login' && method === 'GET') return this.login(url, res);
      if (url.pathname === '/v2/oauth2/token' && method === 'POST') return sendJson(res, 200, await this.token(req), { 'cache-control': 'no-store' });
      if (url.pathname === '/v3/users/self/egvs' && method === 'GET') return sendJson(res, 200, this.egvsResponse(req, url.searchParams));
      if (url.pathname === '/v3/users/self/dataRange' && method === 'GET') return sendJson(res, 200, this.dataRange(req, url.searchParams));
      throw new HttpProblem(404, 'not_found', `${method} ${url.pathname}`);
    } catch (error) {
      sendOAuthProblem(res, error);
    }
  }

  /** [overview]: "If the limit is exceeded, an HTTP 429 response will be returned" (no headers documented, so none). */
  private injectFailure(path: string): void {
    const status = this.failures.take(path);
    if (status === null) return;
    if (status === 429) throw new HttpProblem(429, 'too_many_requests', 'Request rate limit exceeded.');
    throw new HttpProblem(status, status >= 500 ? 'server_error' : 'injected_failure', `Injected ${status}.`);
  }

  // ----- OAuth2 ([auth]) -----------------------------------------------------------------------

  /**
   * GET /v2/oauth2/login?client_id&redirect_uri&response_type=code&scope=offline_access&state — the
   * Dexcom login and consent page ([auth] Step Two). A bad client_id or a missing redirect_uri is
   * shown to the user (400, no redirect), as OAuth requires; a wrong response_type or scope goes
   * back as ?error=unsupported_response_type|invalid_scope; the user's decision as ?code&state or
   * ?error=access_denied&state.
   */
  private login(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    if (q.get('client_id') !== this.clientId) throw new HttpProblem(400, 'invalid_client', 'Unknown client_id.');
    // [auth]: redirect_uri must match the one registered with the app; the fake registers none, so any is taken.
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri || !URL.canParse(redirectUri)) throw new HttpProblem(400, 'invalid_request', 'redirect_uri missing or not a URL.');
    const state = q.get('state');
    const back = (params: Record<string, string>) => redirect(res, withQuery(redirectUri, { ...params, ...(state === null ? {} : { state }) }));

    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    if (q.get('scope') !== DEXCOM_SCOPE) return back({ error: 'invalid_scope' });

    const decision = this.decisions.shift();
    if (!decision) throw new HttpProblem(500, 'server_error', 'FakeDexcom: no nextAuthorization() queued for this visit to /v2/oauth2/login');
    this.user(decision.userId);
    if (decision.deny) return back({ error: 'access_denied' });
    back({ code: this.grants.mintCode({ userId: decision.userId, redirectUri, revoked: false }, redirectUri, CODE_TTL_MS) });
  }

  /**
   * POST /v2/oauth2/token, application/x-www-form-urlencoded, with client_id and client_secret in
   * the body ([auth] lists them as the app's credentials; labflow sends them there):
   * grant_type=authorization_code (code, redirect_uri) or grant_type=refresh_token (refresh_token,
   * redirect_uri). HTTP Basic client authentication is not taken.
   */
  private async token(req: IncomingMessage): Promise<Record<string, unknown>> {
    const { form, grantType } = await tokenRequest(req, this);
    return this.issue(grantType === 'authorization_code' ? redeemAuthorizationCode(this.grants, form) : this.redeemRefreshToken(form));
  }

  private redeemRefreshToken(form: URLSearchParams): Grant {
    const value = form.get('refresh_token');
    const redirectUri = form.get('redirect_uri');
    if (!value || !redirectUri) throw new HttpProblem(400, 'invalid_request', 'refresh_token and redirect_uri are required.');
    const token = this.grants.usableRefreshToken(value);
    if (!token) throw new HttpProblem(400, 'invalid_grant', 'Refresh token is invalid, revoked or already used.');
    if (token.grant.redirectUri !== null && redirectUri !== token.grant.redirectUri) {
      throw new HttpProblem(400, 'invalid_grant', 'redirect_uri does not match the one the grant was made with.');
    }
    return this.grants.use(token);
  }

  /**
   * [swagger]'s token response: access_token, expires_in (seconds), token_type "Bearer",
   * refresh_token. (Its examples also show Keycloak's refresh_expires_in, not-before-policy and
   * session_state; they are left out so a client cannot come to need them.) Tokens are opaque.
   */
  private issue(grant: Grant): { access_token: string; expires_in: number; token_type: 'Bearer'; refresh_token: string } {
    const accessToken = this.grants.mintAccessToken(grant, this.accessTokenTtlSeconds);
    return { access_token: accessToken, expires_in: this.accessTokenTtlSeconds, token_type: 'Bearer', refresh_token: this.grants.mintRefreshToken(grant) };
  }

  // ----- API v3 --------------------------------------------------------------------------------

  /** [overview]: "All requests require a valid OAuth 2.0 bearer token". Missing, unknown, expired or revoked: 401. */
  private authenticate(req: IncomingMessage): User {
    const grant = this.grants.authenticate(
      req.headers.authorization,
      (why) => new HttpProblem(401, 'invalid_token', BEARER_REFUSALS[why], { 'www-authenticate': 'Bearer error="invalid_token"' }),
    );
    return this.user(grant.userId);
  }

  /**
   * GET /v3/users/self/egvs?startDate&endDate ([egvs]): both required. The records whose systemTime
   * lies strictly between them, newest first (UNDOCUMENTED choices: see the file comment).
   */
  private egvsResponse(req: IncomingMessage, query: URLSearchParams): { recordType: 'egv'; recordVersion: '3.0'; userId: string; records: FakeDexcomEgv[] } {
    const user = this.authenticate(req);
    const start = dateTimeParam(query, 'startDate', true)!;
    const end = dateTimeParam(query, 'endDate', true)!;
    if (start >= end) throw new HttpProblem(400, 'invalid_request', 'startDate must be before endDate.');
    if (end - start > MAX_WINDOW_MS) throw new HttpProblem(400, 'invalid_request', 'The time window between startDate and endDate may be at most 30 days.');
    const records = user.egvs
      .filter((egv) => egv.at > start && egv.at < end)
      .sort((a, b) => b.at - a.at)
      .map((egv) => egv.record);
    // [egvs]: "The size of the array will be zero if there are no egvs."
    return { recordType: 'egv', recordVersion: '3.0', userId: user.id, records };
  }

  /**
   * GET /v3/users/self/dataRange[?lastSyncTime] ([dataRange]): the earliest and latest EGV times
   * (after lastSyncTime, when given: "only return date ranges for new data AFTER that date time").
   * The fake keeps no calibrations or events: [v2dataRange] documents each range as nullable and
   * [dataRange]'s schema does not require them, so `events` answers null and `calibrations` is
   * left out, and `egvs` is null when there are none; a client must take absent and null alike.
   */
  private dataRange(req: IncomingMessage, query: URLSearchParams): Record<string, unknown> {
    const user = this.authenticate(req);
    // [dataRange] shows lastSyncTime both as 2022-01-01T17:00:00 and as 2019-08-24T14:15:22Z.
    const lastSync = dateTimeParam(query, 'lastSyncTime', false, true);
    const egvs = lastSync === null ? user.egvs : user.egvs.filter((egv) => egv.at > lastSync);
    const moment = (record: FakeDexcomEgv) => ({ systemTime: record.systemTime, displayTime: record.displayTime });
    return {
      recordType: 'dataRange',
      recordVersion: '3.0',
      userId: user.id,
      egvs: egvs.length === 0 ? null : { start: moment(egvs[0]!.record), end: moment(egvs[egvs.length - 1]!.record) },
      events: null,
    };
  }

  private user(userId: string): User {
    const user = this.users.get(userId);
    if (!user) throw new Error(`FakeDexcom: unknown user ${userId}`);
    return user;
  }
}

// ---------------------------------------------------------------------------------------------
// Believable, deterministic readings
// ---------------------------------------------------------------------------------------------

/** The reading at systemTime `at` (epoch ms), the same whenever it is seeded. */
function egvAt(user: User, at: number): FakeDexcomEgv {
  const outOfRange = outOfRangeAt(user.id, at);
  const value = outOfRange ? null : Math.round(glucoseAt(user.id, at));
  // `+ 0` turns a rounded -0 into 0, as JSON would carry it.
  const rate = outOfRange ? null : Math.round(((glucoseAt(user.id, at) - glucoseAt(user.id, at - FIVE_MINUTES_MS)) / 5) * 10) / 10 + 0;
  const phone = user.displayDevice !== 'receiver';
  const display = at + user.displayOffsetMinutes * 60_000;
  return {
    recordId: pseudoUuid(`${user.id}|egv|${at}`),
    // [egvs] Notes: records from the phone apps have UTC offsets, records from receivers do not.
    systemTime: phone ? `${isoSeconds(at)}+00:00` : isoSeconds(at),
    displayTime: phone ? `${isoSeconds(display)}${offsetSuffix(user.displayOffsetMinutes)}` : isoSeconds(display),
    transmitterId: user.transmitterId,
    transmitterTicks: user.tickBase + Math.floor((at - TICKS_EPOCH_MS) / 1000),
    value,
    status: outOfRange ?? 'ok',
    trend: rate === null ? null : trendOf(rate),
    trendRate: rate,
    unit: 'mg/dL',
    rateUnit: 'mg/dL/min',
    displayDevice: user.displayDevice,
    transmitterGeneration: user.displayDevice === 'receiver' ? 'g6' : 'g7',
  };
}

/**
 * mg/dL, clamped to 70–250: a per-user baseline, meals at 07:30, 12:30 and 19:00 UTC peaking 45
 * minutes later, a slow drift and a little sensor noise. On a 'high' day dinner overshoots (to the
 * clamp, around the out-of-range readings); on a 'low' day the night dips to 70 around 03:00.
 */
function glucoseAt(userId: string, at: number): number {
  const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  let g = 95 + unit(userId, 'baseline') * 20;
  g += 8 * Math.sin((2 * Math.PI * at) / (7.3 * 3_600_000) + unit(userId, 'phase') * 6);
  // Yesterday's dinner still tails off after midnight, so the day before counts too.
  for (const mealDay of [dayStart - DAY_MS, dayStart]) {
    const day = new Date(mealDay).toISOString().slice(0, 10);
    for (const [meal, startMinute] of [
      ['breakfast', 450],
      ['lunch', 750],
      ['dinner', 1140],
    ] as const) {
      const amplitude = meal === 'dinner' && isHighDay(userId, mealDay) ? 190 : 45 + unit(userId, day, meal) * 60;
      g += amplitude * mealCurve((at - mealDay) / 60_000 - startMinute);
    }
  }
  if (!isHighDay(userId, dayStart)) g -= 70 * Math.exp(-((((at - dayStart) / 60_000 - 190) / 45) ** 2));
  g += (unit(userId, 'noise', at) - 0.5) * 6;
  return Math.min(250, Math.max(70, g));
}

/** Half the UTC days (by hash) run high after dinner; the others dip in the night. */
function isHighDay(userId: string, dayStart: number): boolean {
  return unit(userId, new Date(dayStart).toISOString().slice(0, 10), 'episode') < 0.5;
}

/** 0 before the meal, rising to 1 at 45 minutes, fading over the next three hours. */
function mealCurve(minutes: number): number {
  if (minutes <= 0) return 0;
  const x = minutes / 45;
  return x * Math.exp(1 - x);
}

/** Each UTC day: two readings out of range, 'high' at 19:45 on a high day, else 'low' at 03:05. */
function outOfRangeAt(userId: string, at: number): 'high' | 'low' | null {
  const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  const highDay = isHighDay(userId, dayStart);
  const episodeStart = dayStart + (highDay ? 19 * 60 + 45 : 3 * 60 + 5) * 60_000;
  if (at < episodeStart || at >= episodeStart + 2 * FIVE_MINUTES_MS) return null;
  return highDay ? 'high' : 'low';
}

/** [egvs] trend enumeration from the rate in mg/dL/min (the receiver's arrow bands). */
function trendOf(rate: number): string {
  if (rate > 3) return 'doubleUp';
  if (rate > 2) return 'singleUp';
  if (rate > 1) return 'fortyFiveUp';
  if (rate >= -1) return 'flat';
  if (rate >= -2) return 'fortyFiveDown';
  if (rate >= -3) return 'singleDown';
  return 'doubleDown';
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/**
 * A query date-time in epoch ms (UTC system time), or null when absent and not required. Only the
 * documented `YYYY-MM-DDThh:mm:ss` form is taken (with `Z` too when `allowZ`); anything else is a 400.
 */
function dateTimeParam(query: URLSearchParams, name: string, required: boolean, allowZ = false): number | null {
  const raw = query.get(name);
  if (raw === null || raw === '') {
    if (required) throw new HttpProblem(400, 'invalid_request', `${name} is required.`);
    return null;
  }
  const value = allowZ && raw.endsWith('Z') ? raw.slice(0, -1) : raw;
  const ms = Date.parse(`${value}Z`);
  if (!DEXCOM_DATE_TIME.test(value) || Number.isNaN(ms) || isoSeconds(ms) !== value) {
    throw new HttpProblem(400, 'invalid_request', `${name} must be a date-time as YYYY-MM-DDThh:mm:ss (UTC): ${raw}`);
  }
  return ms;
}

/** 64 hex characters derived from `seed` (the shape of Dexcom's per-client user ids). */
function hex(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** A UUID-shaped id derived from `seed`, so seeded ids are the same on every run. */
function pseudoUuid(seed: string): string {
  const h = hex(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** 2024-03-01T06:35:00: the documented form, without offset. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** +05:30, -07:00, +00:00. */
function offsetSuffix(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
