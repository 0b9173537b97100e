import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { appendFileSync } from 'node:fs';

/**
 * With OPENAPI_RESPONSES=<file>, every answer a test stack gives is appended to that file as a
 * JSON line (which app, the route pattern, method, status, media type, body when it is text), for
 * test/check-openapi-answers.ts to check against the documents (docs/development.md,
 * "Documenting a route"). Off otherwise: nothing is added to the apps.
 */
export interface RecordedResponse {
  app: 'api' | 'management';
  method: string;
  /** The route pattern as Fastify has it (`/v2/user/:user_id`); absent for unmatched URLs. */
  route?: string;
  status: number;
  contentType?: string;
  /** The body as sent, when it was text (JSON, HTML); absent for streams and bytes. */
  body?: string;
}

export function recordResponses(app: NestFastifyApplication, name: RecordedResponse['app']): void {
  const file = process.env.OPENAPI_RESPONSES;
  if (!file) return;
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', (request, reply, payload, done) => {
      const contentType = reply.getHeader('content-type');
      const line: RecordedResponse = {
        app: name,
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        body: typeof payload === 'string' ? payload : undefined,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
      done(null, payload);
    });
}
