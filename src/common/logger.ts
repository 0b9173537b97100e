import pino, { type DestinationStream, type Logger } from 'pino';
import type { LabflowConfig } from '../config/config';

export type { Logger } from 'pino';

/** Which labflow process a log line comes from (the `service` field of every line). */
export type LogService = 'api' | 'management' | 'worker';

export interface LoggerOptions {
  service: LogService;
  /** Where lines go (tests capture them); default stdout, or pino-pretty with LOG_FORMAT=pretty. */
  destination?: DestinationStream;
}

const REDACTED = '[redacted]';

/**
 * Query parameters whose values never reach a log line: the signature of requisition links
 * (`?expires=…&signature=…` opens a patient's PDF without a key) and anything named like a token,
 * key, secret or code.
 */
const SECRET_QUERY_KEY = /sig|token|key|secret|code|pass|auth|session/i;

/** Headers that carry credentials: never logged, whatever object they appear in. */
const SECRET_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-service-api-key', 'x-vital-api-key', 'x-management-key', 'x-labflow-signature', 'proxy-authorization'];

/**
 * Fields that hold PHI or secrets, redacted at the top level of a logged object and one level
 * down (pino's `redact`; request and response bodies are never logged in the first place).
 */
const SECRET_FIELDS = [
  'patient_details',
  'patient_address',
  'first_name',
  'last_name',
  'dob',
  'email',
  'phone_number',
  'address',
  'secret',
  'previous_secret',
  'webhook_secret',
  'signature',
  'api_key',
  'password',
  'token',
];

export const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((header) => [`req.headers["${header}"]`, `res.headers["${header}"]`, `headers["${header}"]`, `*.headers["${header}"]`]),
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
];

/** The URL as logged: path kept, the values of credential-like query parameters replaced. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      const rawKey = separator < 0 ? pair : pair.slice(0, separator);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey);
      } catch {
        // a malformed escape: judge the raw key
      }
      return separator >= 0 && SECRET_QUERY_KEY.test(key) ? `${rawKey}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  headers?: Record<string, unknown>;
}

/**
 * What a request line says about the request: method, path (query redacted), client address and
 * user agent. Never headers with credentials, never the body.
 */
function requestSerializer(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    remoteAddress: req.ip,
    userAgent: typeof req.headers?.['user-agent'] === 'string' ? req.headers['user-agent'] : undefined,
  };
}

function responseSerializer(reply: { statusCode?: number }) {
  return { statusCode: reply.statusCode };
}

/**
 * The one logger of a labflow process (API, management API, worker): JSON lines on stdout, or
 * pino-pretty with LOG_FORMAT=pretty; level LOG_LEVEL. Fastify logs requests through it, Nest's
 * `Logger` goes to it (nestjs-pino), the Temporal runtime's logs are routed into it
 * (src/temporal/runtime.ts), and the background workers (relay, delivery, sandbox callbacks) take it.
 */
export function createLogger(config: Pick<LabflowConfig, 'logLevel' | 'logFormat'>, options: LoggerOptions): Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { req: requestSerializer, res: responseSerializer, err: pino.stdSerializers.err },
    formatters: { level: (label) => ({ level: label }) },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  if (config.logFormat === 'pretty') {
    // Formatters that change the level's shape are not allowed with a transport.
    const { formatters: _formatters, ...prettyOptions } = pinoOptions;
    return pino({
      ...prettyOptions,
      transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } },
    });
  }
  return pino(pinoOptions);
}

/** The least a background component needs to report trouble (a pino logger, Nest's Logger, console). */
export interface WarnLogger {
  warn(message: string): void;
}

/**
 * An `on('error')` listener for a client that reconnects by itself (ioredis, BullMQ, amqplib):
 * the first occurrence of an error is logged at warn level, repeats of the same message within
 * `intervalMs` are only counted, and the count is reported with the next line of that message.
 * A Redis outage then yields one line per interval instead of one per reconnect attempt.
 */
export function errorListener(logger: WarnLogger, source: string, intervalMs = 30_000): (error: Error) => void {
  const seen = new Map<string, { at: number; suppressed: number }>();
  return (error: Error) => {
    // Duck-typed: errors from another realm (a test's VM context) fail `instanceof Error`.
    const message = typeof error?.message === 'string' ? error.message : String(error);
    const now = Date.now();
    const last = seen.get(message);
    if (last && now - last.at < intervalMs) {
      last.suppressed += 1;
      return;
    }
    if (seen.size > 100) seen.clear();
    seen.set(message, { at: now, suppressed: 0 });
    const repeated = last && last.suppressed > 0 ? ` (repeated ${last.suppressed} times since the last report)` : '';
    logger.warn(`${source}: ${message}${repeated}`);
  };
}
