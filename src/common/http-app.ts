import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, LogController as FastifyLogController } from 'fastify';
import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { LabflowConfig } from '../config/config';
import { ApiExceptionFilter, toErrorResponse } from './exception-filter';
import { registerBodyParsers } from './body-parsers';
import { MultipartFastifyAdapter } from './multipart';
import { httpRequestMetrics, type RecordRequest } from './metrics/http-metrics';
import { MetricsRegistry } from './metrics/registry';
import { createLogger, type Logger, type LogService, requestLineWriter } from './logger';
import { processLogger, useProcessLogger, withProcessLogger } from './logging.module';
import { REQUEST_ID_HEADER, requestIdFrom, runInRequest } from './request-context';
import { noteRoute } from './redaction';
import { buildOpenApiDocument } from './openapi';
import { traceHttpRequests } from './tracing/http-spans';
import { activeTracing } from './tracing/tracing';

/**
 * Fastify's LogController class, taken from the Fastify that @nestjs/platform-fastify runs on
 * (Fastify accepts only an instance of its own class; fastify is not a direct dependency).
 */
const { LogController } = createRequire(require.resolve('@nestjs/platform-fastify'))('fastify') as { LogController: typeof FastifyLogController };

/**
 * Global providers every HTTP app registers: the `{detail}` error filter. Validation (ZodRequestPipe)
 * is scoped to the body, query and path parameters by labflow's @Body, @Query and @Param
 * (request-params.ts), not a global pipe Nest would also run over @CurrentTeam() and the like.
 */
export const HTTP_GLOBALS = [{ provide: APP_FILTER, useClass: ApiExceptionFilter }];

export interface HttpAppOptions {
  title: string;
  description: string;
  /** Header and name of the security scheme the OpenAPI document declares. */
  security: { name: string; header: string };
  /** The `service` field of this app's log lines. */
  service: LogService;
}

export interface HttpAppLogging {
  /** The process's logger; default a new one from the configuration (tests pass one that captures). */
  logger?: Logger;
}

/**
 * Builds a NestJS app on Fastify the way both labflow APIs need it: body limit (413 beyond it),
 * trailing slashes tolerated, every error as `{detail}`, OpenAPI at /openapi.json and /docs.
 */
export async function createHttpApp(
  module: DynamicModule,
  config: LabflowConfig,
  options: HttpAppOptions,
  logging: HttpAppLogging = {},
): Promise<NestFastifyApplication> {
  const logger = logging.logger ?? createLogger(config, { service: options.service });
  // Routes marked @AcceptsMultipart go to an encapsulated context with @fastify/multipart (multipart.ts).
  const adapter = new MultipartFastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    // The client address (request.ip) the per-address rate limits count by, behind proxies labflow is told to believe.
    trustProxy: config.trustProxy,
    // client_user_id may be 255 characters, and it travels in a path parameter.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // One logger for Fastify's request lines and Nest's messages (logging.module.ts).
    loggerInstance: logger,
    // Fastify's own request lines are two per request; labflow writes one (logRequestCompletions).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // The request id: a well-formed incoming x-request-id, otherwise a new UUID (request-context.ts).
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => requestIdFrom(request.headers[REQUEST_ID_HEADER]),
    // Errors the router raises (a malformed URL) and broken HTTP (unknown method, headers too
    // large) would otherwise get Fastify's own body; they get `{detail}` like everything else.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const { status, body } = toErrorResponse(error);
      void reply.status(status).send(body);
    },
    clientErrorHandler: answerBrokenHttp,
    // No Nest middleware (app.use, MiddlewareConsumer) in labflow: without @fastify/middie, no
    // per-request hook for it. One added later would not run; use a Fastify hook instead.
    skipMiddie: true,
  });
  // Routes marked @LargeBody (health-data ingestion) take larger bodies than the rest.
  adapter.getInstance().addHook('onRoute', (route) => {
    if ((route.config as { largeBody?: boolean } | undefined)?.largeBody) route.bodyLimit = config.healthData.bodyLimitBytes;
  });
  // Every route pattern is noted: those with sensitive path parameters (`/portal/launch/:token`)
  // get their values redacted in logs and spans, matched or not (redaction.ts).
  adapter.getInstance().addHook('onRoute', (route) => noteRoute(route.url));
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // The route handler (guards, pipes, controller) runs in the request's context, so the workflows
  // it starts and the events it writes carry its id, and Nest's Logger writes with the request's
  // logger (request-context.ts, logging.module.ts). A preHandler hook, not onRequest: body parsing
  // in between runs in the socket's async context, not the request's.
  // (request.log is a child of `logger`, a pino Logger: Fastify types it by its interface only.)
  adapter.getInstance().addHook('preHandler', (request, _reply, done) => runInRequest(request.id, request.log as Logger, done));
  const app = await NestFactory.create<NestFastifyApplication>(withProcessLogger(module, logger), adapter, {
    bufferLogs: true,
    // labflow's own JSON and form parsers (body-parsers.ts): empty JSON bodies, raw bytes kept for signatures.
    bodyParser: false,
  });
  useProcessLogger(app);
  app.enableShutdownHooks();
  await registerBodyParsers(app);
  recordCompletions(
    adapter.getInstance() as unknown as FastifyInstance,
    config.logRequests ? logger : null,
    config.metrics.enabled ? httpRequestMetrics(app.get(MetricsRegistry).registry) : null,
  );
  const tracing = activeTracing();
  if (tracing) {
    traceHttpRequests(adapter.getInstance());
    // The last requests' spans leave before the process does.
    adapter.getInstance().addHook('onClose', async () => tracing.flush().catch(() => undefined));
  }
  // Last: the multipart routes' context copies the root's hooks as they are now.
  await adapter.registerMultipartScope();
  setupOpenApi(app, options);
  return app;
}

/**
 * What every answered request leaves, in one onResponse hook: its `request completed` line (with
 * LOG_REQUESTS) and its HTTP metrics (with METRICS_ENABLED), both with the same elapsed time.
 *
 * The line (method, path with credentials redacted, client, status, milliseconds) is one per
 * request, where Fastify writes an `incoming request` line as well: half the log volume, and the
 * line that matters carries everything (a request that never completes is visible in the metrics
 * and traces, and its errors are logged where they happen).
 */
function recordCompletions(fastify: FastifyInstance, logger: Logger | null, recordMetrics: RecordRequest | null): void {
  if (!logger && !recordMetrics) return;
  const writeLine = logger && requestLineWriter(logger);
  fastify.addHook('onResponse', (request, reply, done) => {
    const { statusCode } = reply;
    const responseTime = reply.elapsedTime;
    if (recordMetrics) recordMetrics(request, statusCode, responseTime);
    if (writeLine) writeLine({ requestId: request.id, req: request, statusCode, responseTime });
    else if (logger) request.log.info({ req: request, res: reply, responseTime }, 'request completed');
    done();
  });
}

/** Raw answer for requests too broken to reach Fastify's routing (still `{detail}` JSON). */
function answerBrokenHttp(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const [status, reason] = error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const body = JSON.stringify({ detail: status === 431 ? 'Request headers are too large.' : 'Malformed HTTP request.' });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The document is built on the first request for it (/openapi.json, /openapi.yaml, /docs), then
 * kept: building it walks every route's schemas, about a CPU-second an app, which every start of an
 * app never asked for it (most test stacks) would spend.
 */
function setupOpenApi(app: INestApplication, options: HttpAppOptions): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app, options), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}

/** Starts one of labflow's HTTP apps on its port (the entry points of API and management API). */
export async function serveHttpApp(module: DynamicModule, config: LabflowConfig, options: HttpAppOptions, port: number): Promise<void> {
  const app = await createHttpApp(module, config, options);
  await app.listen({ port, host: config.api.host });
  processLogger(app).log(`${options.title} listening on http://${config.api.host}:${port}`);
}
