import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Marks a route whose guard or handler needs the exact bytes of its JSON body (`rawBodyOf`), such
 * as partner webhooks whose signature covers the bytes sent, not a re-serialised parse.
 */
export const KeepsRawBody = () => RouteConfig({ rawBody: true });

/** The bytes of a JSON body as received, on routes marked @KeepsRawBody (else undefined). */
export function rawBodyOf(request: FastifyRequest): Buffer | undefined {
  return (request as FastifyRequest & { rawBody?: Buffer }).rawBody;
}

/**
 * The bytes a signature guard checks: the raw body of a route marked @KeepsRawBody (empty when it
 * had none). Throws on a route that is not marked: the body would go unchecked, a wiring mistake
 * refused loudly (`decorator` names the route decorator that marks and guards at once).
 */
export function signedBodyOf(request: FastifyRequest, decorator: string): Buffer {
  if (!(request.routeOptions.config as { rawBody?: boolean }).rawBody) {
    throw new Error(`${request.routeOptions.url}: use ${decorator} rather than the bare guard`);
  }
  return rawBodyOf(request) ?? Buffer.alloc(0);
}

/** A request header's value (the first, when it was sent more than once). */
export function headerOf(request: { headers: Record<string, string | string[] | undefined> }, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * labflow's body parsers, in place of Nest's (the app is created with `bodyParser: false`):
 * - `application/json` with Fastify's own secure parser (prototype poisoning refused), except that
 *   an empty body is no body rather than a 400: clients (and the reference API's) send
 *   `content-type: application/json` on GET, DELETE and bodiless POSTs. A route that needs a body
 *   still refuses it, with 422 from its validation. Routes marked @KeepsRawBody keep the bytes.
 * - `application/x-www-form-urlencoded` (the portal's plain HTML forms) by @fastify/formbody.
 * Each route's own body limit applies (the parsers set none).
 */
export async function registerBodyParsers(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if ((request.routeOptions.config as { rawBody?: boolean } | undefined)?.rawBody) {
      (request as FastifyRequest & { rawBody?: Buffer }).rawBody = body;
    }
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    // Fastify's parser takes a Buffer as well (its types say string); it answers through done.
    void parseJson(request, body as unknown as string, done);
  });
  await app.register(formbody as never);
}
