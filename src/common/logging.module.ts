import { type DynamicModule, type INestApplicationContext, Module } from '@nestjs/common';
import { Logger as NestPinoLogger, LoggerModule } from 'nestjs-pino';
import type { Logger } from './logger';

/** Root of a labflow process's Nest app: its own root module plus nestjs-pino over the process logger. */
@Module({})
class LoggedRoot {}

/**
 * Wraps a process's root module so Nest's `Logger` (and Nest's own messages) write to `logger`;
 * inside an HTTP request they carry its request id (nestjs-pino reuses Fastify's request logger).
 * Create the app with `bufferLogs: true`, then call `useProcessLogger(app)`.
 */
export function withProcessLogger(module: DynamicModule, logger: Logger): DynamicModule {
  return { module: LoggedRoot, imports: [module, LoggerModule.forRoot({ pinoHttp: { logger }, useExisting: true })] };
}

/** Routes the app's Nest logging into the process logger (flushes what was buffered during start). */
export function useProcessLogger(app: INestApplicationContext): void {
  app.useLogger(app.get(NestPinoLogger));
}

/** Nest's logger of the app, for the process's own messages (listening on, roles started). */
export function processLogger(app: INestApplicationContext): NestPinoLogger {
  return app.get(NestPinoLogger);
}
