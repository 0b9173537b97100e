import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { nonPublicRange, webhookUrlProblem } from './webhook-url';
import { parseRetryAfter } from './retry-policy';

/** Characters of the response body kept with an attempt. */
export const RESPONSE_EXCERPT_CHARS = 1000;
/** Bytes of a response body read at most (the rest is discarded). */
const RESPONSE_READ_LIMIT = 64 * 1024;

export const USER_AGENT = 'labflow-webhooks/1';

/**
 * How long an idle keep-alive connection is kept for the next delivery to its endpoint. Servers
 * close idle connections (Node's default after 5 s, load balancers after 60 s or more); a request
 * sent on a connection the receiver closes at that moment fails with ECONNRESET, a failed attempt
 * that also starts the endpoint's failing clock. Below the common 5 s; a shorter announced
 * `Keep-Alive: timeout=N` wins (Node's agent then keeps the socket N - 1 s), which it only
 * applies when the agent has a timeout of its own.
 */
export const IDLE_SOCKET_TIMEOUT_MS = 4_000;

/**
 * Standard Webhooks headers (and their svix-* twins, so `svix` receivers verify too): one
 * `v1,<base64 HMAC-SHA256>` per secret, space-separated (during a rotation both the new and the
 * previous secret sign). The signed content is `${id}.${timestamp}.${body}`.
 */
export function signatureHeaders(webhookId: string, timestamp: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const seconds = String(Math.floor(timestamp.getTime() / 1000));
  const signature = secrets
    .map((secret) => `v1,${createHmac('sha256', signingKey(secret)).update(`${webhookId}.${seconds}.${body}`, 'utf8').digest('base64')}`)
    .join(' ');
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': seconds,
    'webhook-signature': signature,
    'svix-id': webhookId,
    'svix-timestamp': seconds,
    'svix-signature': signature,
  };
}

/**
 * The HMAC key of a `whsec_<base64>` secret, decoded once per secret. The signature is what
 * standardwebhooks' `Webhook.sign` computes (its constructor still checks the secret), but with
 * node:crypto's HMAC instead of the package's pure-JavaScript SHA-256, several times slower per
 * delivery (test/unit/events.test.ts compares the two).
 */
const SECRET_PREFIX = 'whsec_';
const signingKeys = new Map<string, Buffer>();
function signingKey(secret: string): Buffer {
  let key = signingKeys.get(secret);
  if (!key) {
    new Webhook(secret);
    key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    // Endpoints are few; the bound only guards against a process that signs for very many.
    if (signingKeys.size >= 10_000) signingKeys.clear();
    signingKeys.set(secret, key);
  }
  return key;
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/**
 * A `lookup` for http(s).request (and amqplib's connect) that refuses hosts resolving to a
 * loopback, private, link-local or other non-public address (nonPublicRange): checked on the
 * addresses actually connected to, so a DNS answer that changed since the URL was accepted
 * (rebinding) cannot reach the internal network.
 */
export function publicOnlyLookup(resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      for (const { address } of list) {
        const range = nonPublicRange(address);
        if (range) return callback(new PrivateAddressError(`${hostname} resolves to non-public address ${address} (${range})`), '', 0);
      }
      if (list.length === 0) return callback(new PrivateAddressError(`${hostname} has no address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** This request's deadline, when shorter than the sender's `timeoutMs`. */
  timeoutMs?: number;
}

export interface PostResult {
  statusCode: number | null;
  retryAfterMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  latencyMs: number;
}

/** A webhook URL as requests to it need it, or why it is refused (WebhookSender.targetOf). */
type Target = { problem: string } | { problem: null; secure: boolean; options: http.RequestOptions };

/**
 * POSTs webhook bodies over keep-alive agents with a total deadline (connect + response + body).
 * Unless private addresses are allowed, literal non-public IPs and localhost are refused before
 * connecting and host names are checked after DNS resolution.
 */
export class WebhookSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly lookup: LookupFunction | undefined;
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly options: { timeoutMs: number; allowPrivate: boolean; maxSockets?: number; resolve?: typeof dnsLookup; idleSocketTimeoutMs?: number },
  ) {
    // `timeout` closes idle sockets (IDLE_SOCKET_TIMEOUT_MS); a request in flight is bounded by post()'s own deadline.
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSockets ?? 64,
      scheduling: 'lifo' as const,
      timeout: options.idleSocketTimeoutMs ?? IDLE_SOCKET_TIMEOUT_MS,
    };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
    this.lookup = options.allowPrivate ? undefined : publicOnlyLookup(options.resolve);
  }

  async post(request: WebhookPost): Promise<PostResult> {
    const started = performance.now();
    const finish = (partial: Omit<PostResult, 'latencyMs'>): PostResult => ({
      ...partial,
      latencyMs: Math.round(performance.now() - started),
    });
    const target = this.targetOf(request.url);
    if (target.problem !== null) return finish({ statusCode: null, retryAfterMs: null, responseExcerpt: null, error: `Refused: ${target.problem}` });
    const { secure, options } = target;
    const body = Buffer.from(request.body, 'utf8');
    const timeoutMs = Math.min(request.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs);
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const settle = (result: Omit<PostResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(finish(result));
      };
      const req = (secure ? https : http).request({
        ...options,
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': String(body.length) },
        ...(this.lookup ? { lookup: this.lookup } : {}),
      });
      const timer = setTimeout(() => {
        settle({ statusCode: null, retryAfterMs: null, responseExcerpt: null, error: `Timed out after ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ? `${error.code}: ` : '';
        settle({ statusCode: null, retryAfterMs: null, responseExcerpt: null, error: `${code}${error.message}` });
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= RESPONSE_READ_LIMIT) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_READ_LIMIT) res.destroy();
        });
        const done = () => {
          const statusCode = res.statusCode ?? 0;
          const retryAfter = res.headers['retry-after'];
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_READ_LIMIT).toString('utf8');
          settle({
            statusCode,
            retryAfterMs: parseRetryAfter(statusCode, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
            responseExcerpt: text.slice(0, RESPONSE_EXCERPT_CHARS),
            error: null,
          });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      req.end(body);
    });
  }

  /**
   * What a URL's requests need, worked out once per URL: every delivery to an endpoint has the
   * same URL, and parsing it twice per request (the check, then http.request's own parse of a
   * URL object) was a measurable part of a delivery's CPU. The check depends on the URL text
   * alone (the DNS answer is checked per connection, by `lookup`), so its answer can be kept;
   * the options are what http.request derives from a URL (`urlToHttpOptions`).
   */
  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const problem = webhookUrlProblem(url, this.options.allowPrivate);
      const parsed = problem ? null : new URL(url);
      target = parsed ? { problem: null, secure: parsed.protocol === 'https:', options: urlToHttpOptions(parsed) } : { problem: problem as string };
      // Endpoints are few; the bound only guards against a process that sends to very many URLs.
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
