import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from './redaction';

/**
 * Every error leaves labflow as `{detail}` with a 4xx, or a 500 `{detail}` without internals.
 * Errors raised by Fastify before a route runs (bad JSON, oversized body, wrong content type)
 * carry a `statusCode` and are answered the same way.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = toErrorResponse(exception);
    if (!(exception instanceof HttpException) && status >= 500) {
      this.logger.error(`${request.method} ${redactUrl(request.url)}: ${describeError(exception)}`);
    }
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}

export function toErrorResponse(exception: unknown): { status: number; body: { detail: unknown } } {
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    if (typeof response === 'object' && response !== null && 'detail' in response) {
      return { status, body: { detail: (response as { detail: unknown }).detail } };
    }
    if (typeof response === 'string') return { status, body: { detail: response } };
    // Nest's own exceptions carry {message, error, statusCode}; others (e.g. the health check's
    // 503) carry a report worth keeping beside the detail.
    const { message, ...report } = response as Record<string, unknown>;
    if (typeof report.error === 'string') delete report.error;
    delete report.statusCode;
    const detail = message ?? exception.message;
    return { status, body: { detail: Array.isArray(detail) ? detail.join('; ') : String(detail), ...report } };
  }
  const fastifyStatus = (exception as { statusCode?: unknown })?.statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    return { status: fastifyStatus, body: { detail: fastifyDetail(exception as Error & { code?: string }) } };
  }
  return { status: 500, body: { detail: 'Internal server error.' } };
}

function fastifyDetail(error: Error & { code?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return `Malformed JSON body: ${error.message}`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send application/json.';
    default:
      return error.message;
  }
}

function describeError(exception: unknown): string {
  return exception instanceof Error ? (exception.stack ?? exception.message) : String(exception);
}
