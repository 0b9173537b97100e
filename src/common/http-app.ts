import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { APP_FILTER, APP_PIPE, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import type { LabflowConfig } from '../config/config';
import { ApiExceptionFilter, toErrorResponse } from './exception-filter';
import { registerMultipart } from './multipart';
import { instrumentHttp } from './metrics/http-metrics';
import { MetricsRegistry } from './metrics/registry';
import { toOpenApi30Nullables } from './schemas';
import { traceHttpRequests } from './tracing/http-spans';
import { activeTracing } from './tracing/tracing';
import { ZodRequestPipe } from './validation';

/** Global providers every HTTP app registers: zod validation and the `{detail}` error filter. */
export const HTTP_GLOBALS = [
  { provide: APP_PIPE, useClass: ZodRequestPipe },
  { provide: APP_FILTER, useClass: ApiExceptionFilter },
];

export interface HttpAppOptions {
  title: string;
  description: string;
  /** Header and name of the security scheme the OpenAPI document declares. */
  security: { name: string; header: string };
}

/**
 * Builds a NestJS app on Fastify the way both labflow APIs need it: body limit (413 beyond it),
 * trailing slashes tolerated, every error as `{detail}`, OpenAPI at /openapi.json and /docs.
 */
export async function createHttpApp(module: DynamicModule, config: LabflowConfig, options: HttpAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    // client_user_id may be 255 characters, and it travels in a path parameter.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    logger: config.logRequests ? { level: config.logLevel } : false,
    // Errors the router raises (a malformed URL) and broken HTTP (unknown method, headers too
    // large) would otherwise get Fastify's own body; they get `{detail}` like everything else.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const { status, body } = toErrorResponse(error);
      void reply.status(status).send(body);
    },
    clientErrorHandler: answerBrokenHttp,
  });
  // Routes marked @LargeBody (health-data ingestion) take larger bodies than the rest.
  adapter.getInstance().addHook('onRoute', (route) => {
    if ((route.config as { largeBody?: boolean } | undefined)?.largeBody) route.bodyLimit = config.healthData.bodyLimitBytes;
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: config.env === 'test' ? ['error', 'warn'] : ['error', 'warn', 'log'],
    bufferLogs: false,
  });
  app.enableShutdownHooks();
  await registerMultipart(app);
  if (config.metrics.enabled) instrumentHttp(app.getHttpAdapter().getInstance(), app.get(MetricsRegistry).registry);
  const tracing = activeTracing();
  if (tracing) {
    traceHttpRequests(adapter.getInstance());
    // The last requests' spans leave before the process does.
    adapter.getInstance().addHook('onClose', async () => tracing.flush().catch(() => undefined));
  }
  setupOpenApi(app, options);
  return app;
}

/** Raw answer for requests too broken to reach Fastify's routing (still `{detail}` JSON). */
function answerBrokenHttp(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
  const body = JSON.stringify({ detail: status === 431 ? 'Request headers are too large.' : 'Malformed HTTP request.' });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function setupOpenApi(app: INestApplication, options: HttpAppOptions): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle(options.title)
      .setDescription(options.description)
      .setVersion('0.4.554')
      .addApiKey({ type: 'apiKey', in: 'header', name: options.security.header }, options.security.name)
      .build(),
  );
  SwaggerModule.setup('docs', app, toOpenApi30Nullables(cleanupOpenApiDoc(document)), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
}

/** Starts one of labflow's HTTP apps on its port (the entry points of API and management API). */
export async function serveHttpApp(module: DynamicModule, config: LabflowConfig, options: HttpAppOptions, port: number): Promise<void> {
  const app = await createHttpApp(module, config, options);
  await app.listen({ port, host: config.api.host });
  console.log(`[labflow] ${options.title} listening on http://${config.api.host}:${port}`);
}
