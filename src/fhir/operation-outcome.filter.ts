import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../common/exception-filter';
import { redactUrl } from '../common/redaction';
import { FHIR_JSON } from './fhir-bundle';
import { FhirError, issueCodeOf, operationOutcome } from './fhir-errors';

/**
 * Errors of the FHIR API as OperationOutcome (application/fhir+json), scoped to its controller:
 * its own FhirErrors as they are, every other error (the API key guard's 401, a rate limit's
 * 429, a 500) with the status and `{detail}` text the rest of the API would give.
 */
@Catch()
export class OperationOutcomeFilter implements ExceptionFilter {
  private readonly logger = new Logger('fhir');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof FhirError) {
      void reply.status(exception.getStatus()).header('content-type', FHIR_JSON).send(exception.getResponse());
      return;
    }
    const { status, body } = toErrorResponse(exception);
    if (!(exception instanceof HttpException) && status >= 500) {
      const request = host.switchToHttp().getRequest<FastifyRequest>();
      this.logger.error(
        `${request.method} ${redactUrl(request.url)}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
      );
    }
    const text = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
    void reply
      .status(status)
      .header('content-type', FHIR_JSON)
      .send(operationOutcome(issueCodeOf(status), text));
  }
}
