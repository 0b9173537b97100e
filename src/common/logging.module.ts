import { type DynamicModule, type INestApplicationContext, Module } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import type { Logger } from './logger';
import { currentRequestLogger } from './request-context';

/** Root of a labflow process's Nest app: its own root module plus nestjs-pino over the process logger. */
@Module({})
class LoggedRoot {}

/**
 * nestjs-pino's PinoLogger, writing with the HTTP request's logger (so its request id) inside a
 * request and with the process logger elsewhere. The request comes from labflow's request context
 * (the preHandler hook of http-app.ts), not from nestjs-pino's LoggerModule, whose middleware ran
 * @fastify/middie and an AsyncLocalStorage of its own on every request (~13% of the API's CPU on
 * GET /v2/user/{id}).
 */
class RequestPinoLogger extends PinoLogger {
  override get logger(): Logger {
    return currentRequestLogger() ?? super.logger;
  }
}

/**
 * Wraps a process's root module so Nest's `Logger` (and Nest's own messages) write to `logger`;
 * inside an HTTP request they carry its request id (the request's logger, see RequestPinoLogger).
 * Create the app with `bufferLogs: true`, then call `useProcessLogger(app)`.
 */
export function withProcessLogger(module: DynamicModule, logger: Logger): DynamicModule {
  const params = { pinoHttp: { logger } };
  const nestLogger = new NestPinoLogger(new RequestPinoLogger(params), params);
  return { module: LoggedRoot, imports: [module], providers: [{ provide: NestPinoLogger, useValue: nestLogger }] };
}

/** Routes the app's Nest logging into the process logger (flushes what was buffered during start). */
export function useProcessLogger(app: INestApplicationContext): void {
  app.useLogger(app.get(NestPinoLogger));
}

/** Nest's logger of the app, for the process's own messages (listening on, roles started). */
export function processLogger(app: INestApplicationContext): NestPinoLogger {
  return app.get(NestPinoLogger);
}
