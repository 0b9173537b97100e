import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Readable, Transform } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';

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
 * - `content-encoding: gzip` or `deflate` (the mobile SDKs gzip their uploads) inflated before
 *   either parser; another encoding is refused (415), a body that does not inflate too (400).
 * Each route's own body limit applies (the parsers set none), to the inflated bytes.
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
  fastify.addHook('preParsing', async (request, _reply, payload) => inflated(headerOf(request, 'content-encoding'), payload));
  await app.register(formbody as never);
}

/**
 * The body as its parser must read it: inflated when the client compressed it. Fastify checks the
 * content-length against `receivedEncodedLength` (the bytes that came over the wire) and the body
 * limit against the inflated bytes, so a small body that inflates beyond the limit is a 413.
 */
function inflated(encoding: string | undefined, payload: Readable): Readable {
  const name = encoding?.trim().toLowerCase();
  if (!name || name === 'identity') return payload;
  if (name !== 'gzip' && name !== 'x-gzip' && name !== 'deflate') {
    throw Object.assign(new Error(`Content-Encoding ${encoding} is not supported: send gzip, deflate or none.`), { statusCode: 415 });
  }
  const inflate: Transform & { receivedEncodedLength: number } = Object.assign(name === 'deflate' ? createInflate() : createGunzip(), {
    receivedEncodedLength: 0,
  });
  payload.on('data', (chunk: Buffer) => {
    inflate.receivedEncodedLength += chunk.length;
  });
  payload.on('error', (error) => inflate.destroy(error));
  inflate.on('error', (error: Error & { statusCode?: number }) => {
    error.statusCode ??= 400;
    error.message = `The ${name} body does not inflate: ${error.message}`;
  });
  return payload.pipe(inflate);
}
