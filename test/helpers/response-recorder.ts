import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * With OPENAPI_RESPONSES=<file>, every answer an e2e test stack gives is appended to that file as
 * a JSON line (which app, the route pattern, method, status, media type, body when it is text),
 * for test/check-openapi-answers.ts to check against the documents (docs/development.md,
 * "Documenting a route"). `npm test` records so during the e2e tier and checks after Jest.
 * Off otherwise: nothing is added to the apps.
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

/**
 * Whether this Jest project records: jest.config.js sets the global for the e2e project only. The
 * browser, workflow and capture tiers boot stacks too, and the check's own stack answers its
 * reads of the documents; none of those is what the recording is about.
 */
const recording = () => (globalThis as { labflowRecordAnswers?: boolean }).labflowRecordAnswers === true;

export function recordResponses(app: NestFastifyApplication, name: RecordedResponse['app']): void {
  const file = process.env.OPENAPI_RESPONSES;
  if (!file || !recording()) return;
  // One descriptor per app, each answer one write(2) in append mode: the lines of Jest's workers
  // (and of the apps in one worker) do not interleave, and no answer pays an open and a close.
  const fd = openSync(file, 'a');
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const contentType = reply.getHeader('content-type');
    const line: RecordedResponse = {
      app: name,
      method: request.method,
      route: request.routeOptions.url,
      status: reply.statusCode,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      body: typeof payload === 'string' ? payload : undefined,
    };
    writeSync(fd, `${JSON.stringify(line)}\n`);
    done(null, payload);
  });
  fastify.addHook('onClose', (_instance, done) => {
    closeSync(fd);
    done();
  });
}
