import pino, { type DestinationStream, type Logger } from 'pino';
import type { LabflowConfig } from '../config/config';
import { isSecretKey, REDACTED, redactSecrets, redactUrl } from './redaction';

export type { Logger } from 'pino';

/** Which labflow process a log line comes from (the `service` field of every line). */
export type LogService = 'api' | 'management' | 'worker';

export interface LoggerOptions {
  service: LogService;
  /** Where lines go (tests capture them); default stdout, or pino-pretty with LOG_FORMAT=pretty. */
  destination?: DestinationStream;
}

/** Keys whose serializers below build their output from a few safe fields (so they are not walked). */
const SERIALIZED_KEYS = new Set(['req', 'res']);

/** The logged object with secrets redacted, the serialized keys left to their serializers. */
function redactLogObject(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    if (SERIALIZED_KEYS.has(key)) continue;
    const field = object[key];
    const redacted = isSecretKey(key) ? REDACTED : redactSecrets(field, 1);
    if (redacted !== field) (copy ??= { ...object })[key] = redacted;
  }
  return copy ?? object;
}

export interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  headers?: Record<string, unknown>;
}

/**
 * What a request line says about the request: method, URL (sensitive path and query parameters
 * redacted, redaction.ts), client address and user agent. Never headers with credentials, never the body.
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

/** Where each JSON logger of createLogger writes, and its service: for the request line (requestLineWriter). */
const jsonLoggers = new WeakMap<Logger, { destination: DestinationStream; service: LogService }>();

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
    serializers: { req: requestSerializer, res: responseSerializer, err: (error: Error) => redactSecrets(pino.stdSerializers.err(error)) },
    formatters: { level: (label) => ({ level: label }), log: redactLogObject },
  };
  if (!options.destination && config.logFormat === 'pretty') {
    // Formatters that change the level's shape are not allowed with a transport.
    return pino({
      ...pinoOptions,
      formatters: { log: redactLogObject },
      transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } },
    });
  }
  // Asynchronous writes: a request never waits for stdout (a slow log shipper or disk). Lines not
  // yet written are flushed when the process exits (pino's exit hook); only a SIGKILL can lose the
  // few in flight.
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  const logger = pino(pinoOptions, destination);
  jsonLoggers.set(logger, { destination, service: options.service });
  return logger;
}

/** What the `request completed` line says of one answered request. */
export interface CompletedRequest {
  requestId: string;
  req: LoggedRequest;
  statusCode: number;
  /** Milliseconds from the request's arrival to its answer. */
  responseTime: number;
}

/**
 * The writer of the `request completed` line every answered request logs, for a logger of
 * createLogger that writes JSON; null for another (pretty) logger, which logs it through pino.
 * It writes the line pino writes for `request.log.info({ req, res, responseTime }, 'request
 * completed')` on the request's child logger — the same fields in the same order, the same time
 * format, the URL redacted by the same serializer (test/unit/request-line.test.ts compares them)
 * — with one JSON.stringify, to the logger's own destination (so the lines stay in order with
 * pino's). Through pino (child bindings, serializers, the formatter's walk, its per-field JSON)
 * the line cost more than the rest of the logging and metrics of a cheap read: bench:reads, in
 * paired slices, GET /v2/user/{id} went from 0.47 to 0.55 of its floor with the line off.
 */
export function requestLineWriter(logger: Logger): ((request: CompletedRequest) => void) | null {
  const target = jsonLoggers.get(logger);
  if (!target) return null;
  const { destination, service } = target;
  return (request) => {
    if (!logger.isLevelEnabled('info')) return;
    const line = {
      level: 'info',
      time: new Date().toISOString(),
      service,
      requestId: request.requestId,
      req: requestSerializer(request.req),
      res: { statusCode: request.statusCode },
      responseTime: request.responseTime,
      msg: 'request completed',
    };
    destination.write(`${JSON.stringify(line)}\n`);
  };
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
