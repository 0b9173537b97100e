import { decodeJwt } from 'jose';
import { gzipSync } from 'node:zlib';

/**
 * A phone running Junction's mobile SDKs, making their calls as their sources do (docs/mobile.md):
 * the sign-in token decoded (base64 `{public_key, user_token}`, the user read from the JWT's
 * `uid`) and exchanged form-encoded at `POST /v1/token` on the auth host; every other call with
 * `authorization: Bearer <access token>`, JSON in snake_case, dates ISO 8601 in whole seconds
 * (Swift's `.iso8601`); uploads gzip-encoded in chunks of at most 10,000 samples; a 401 refreshes
 * the tokens (`grant_type=refresh_token`) and retries the call once. Every call is kept in `calls`.
 */
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The SDKs' largest upload chunk. */
export const CHUNK_SAMPLES = 10_000;

export interface SdkCall {
  method: string;
  path: string;
  status: number;
}

export interface SdkAnswer {
  status: number;
  body: any;
}

/** The envelope of `POST /v2/timeseries/…` and `/v2/summary/…` without its data. */
export interface UploadEnvelope {
  stage: 'daily' | 'historical';
  start_date?: string;
  end_date?: string;
  time_zone: string;
  provider: string;
}

export class MobileSdkClient {
  readonly calls: SdkCall[] = [];
  private accessToken = '';
  private refreshToken = '';

  private constructor(
    private readonly apiUrl: string,
    private authUrl: string,
    readonly userId: string,
  ) {}

  /** Signs in with a sign-in token, as the SDK's `signIn(token:)` does. */
  static async signIn(signInToken: string, urls: { api: string; auth: string }): Promise<MobileSdkClient> {
    const envelope = JSON.parse(Buffer.from(signInToken, 'base64').toString('utf8')) as { public_key: string; user_token: string };
    const client = new MobileSdkClient(urls.api, urls.auth, String(decodeJwt(envelope.user_token).uid));
    await client.token({ grant_type: TOKEN_EXCHANGE, subject_token: envelope.user_token, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' });
    return client;
  }

  /** The access token now held: for a test's call that the SDK itself would not make. */
  get bearer(): string {
    return this.accessToken;
  }

  /** Where the next token requests go (the auth host). */
  useAuthHost(url: string): void {
    this.authUrl = url;
  }

  connect(provider: string): Promise<SdkAnswer> {
    return this.send('POST', `/v2/link/provider/manual/${provider}`, { user_id: this.userId });
  }

  syncState(provider: string, body: { tzinfo: string; request_start_date?: string; request_end_date?: string; granted_permissions?: string[] }) {
    return this.send('POST', `/v2/user/${this.userId}/sdk_sync_state/${provider}`, body);
  }

  startHistoricalStage(body: { range_start: string; range_end: string; backfill_type: string }): Promise<SdkAnswer> {
    return this.send('POST', `/v2/user/${this.userId}/sdk_start_historical_stage/apple_health_kit`, body);
  }

  reportSyncProgress(body: { sync_progress: object; device_info: object }): Promise<SdkAnswer> {
    return this.send('POST', `/v2/user/${this.userId}/sdk_sync_progress/apple_health_kit`, body);
  }

  /**
   * Uploads samples in chunks of CHUNK_SAMPLES, gzip-encoded, as iOS's `TaggedPayload`:
   * `is_final_chunk` always (a daily chunk's is true), the stage's dates only in the historical stage.
   */
  async uploadTimeseries(resource: string, envelope: UploadEnvelope, samples: object[], sdk: 'ios' | 'android' = 'ios'): Promise<SdkAnswer[]> {
    const answers: SdkAnswer[] = [];
    for (let at = 0; at < samples.length; at += CHUNK_SAMPLES) {
      const data = samples.slice(at, at + CHUNK_SAMPLES);
      // Android's TimeseriesPayload has no is_final_chunk.
      const chunk = { ...envelope, data, ...(sdk === 'ios' ? { is_final_chunk: at + CHUNK_SAMPLES >= samples.length } : {}) };
      answers.push(await this.send('POST', `/v2/timeseries/${this.userId}/${resource}`, chunk, true));
    }
    return answers;
  }

  /** A summary upload: a list (sleep, activity, workouts) or, as iOS sends body and profile, one object. */
  uploadSummary(resource: string, envelope: UploadEnvelope, data: object[] | object): Promise<SdkAnswer> {
    return this.send('POST', `/v2/summary/${resource}/${this.userId}`, { ...envelope, data, is_final_chunk: true }, true);
  }

  /** A call with the access token; on a 401, one refresh and one retry. */
  private async send(method: string, path: string, body: object, gzip = false): Promise<SdkAnswer> {
    let answer = await this.attempt(method, path, body, gzip);
    if (answer.status === 401) {
      await this.token({ grant_type: 'refresh_token', refresh_token: this.refreshToken });
      answer = await this.attempt(method, path, body, gzip);
    }
    return answer;
  }

  private async attempt(method: string, path: string, body: object, gzip: boolean): Promise<SdkAnswer> {
    const json = JSON.stringify(body);
    const response = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.accessToken}`,
        'content-type': 'application/json',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      body: gzip ? gzipSync(json) : json,
    });
    this.calls.push({ method, path, status: response.status });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  private async token(form: Record<string, string>): Promise<void> {
    const response = await fetch(`${this.authUrl}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    this.calls.push({ method: 'POST', path: '/v1/token', status: response.status });
    const body = (await response.json()) as { access_token: string; refresh_token: string; detail?: unknown };
    if (response.status !== 200) throw new Error(`POST /v1/token answered ${response.status}: ${JSON.stringify(body.detail)}`);
    this.accessToken = body.access_token;
    this.refreshToken = body.refresh_token;
  }
}

/** ISO 8601 in whole seconds with `Z`, as Swift's `.iso8601` strategy writes a Date. */
export const swiftDate = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * vital-ios `LocalQuantitySample` as its JSONEncoder writes it (`.convertToSnakeCase`, nil
 * optionals left out): `{value, start_date, end_date, source_bundle?, product_type?, type?, unit, metadata?}`.
 */
export function iosQuantitySample(
  value: number,
  unit: string,
  startMs: number,
  endMs = startMs,
  from: { source_bundle?: string; product_type?: string; type?: string; metadata?: Record<string, string> } = {},
): object {
  return {
    value,
    start_date: swiftDate(startMs),
    end_date: swiftDate(endMs),
    source_bundle: from.source_bundle ?? 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E',
    product_type: from.product_type ?? 'Watch7,1',
    ...(from.type ? { type: from.type } : {}),
    unit,
    metadata: from.metadata ?? { _DMO: 'Watch', _DMA: 'Apple Inc.' },
  };
}

/** An `Instant` as vital-android's InstantJsonAdapter writes it (`Instant.toString()`: milliseconds only when there are some). */
const javaInstant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * vital-android `LocalQuantitySample` as Moshi writes it: an `id`, the unit in Android's spelling,
 * `type` the source type, nulls left out.
 */
export function androidQuantitySample(value: number, unit: string, startMs: number, endMs = startMs, type = 'watch'): object {
  return {
    id: `${startMs}-${unit}`,
    value,
    unit,
    start_date: javaInstant(startMs),
    end_date: javaInstant(endMs),
    source_bundle: 'com.sec.android.app.shealth',
    type,
    metadata: {},
  };
}
