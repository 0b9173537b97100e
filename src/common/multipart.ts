import multipart from '@fastify/multipart';
import { type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';

/** Marks a route that takes multipart/form-data uploads (every other route refuses multipart). */
export const AcceptsMultipart = () => RouteConfig({ multipart: true });

const MULTIPART = /^multipart\/form-data\b/i;

/**
 * multipart/form-data for the routes marked @AcceptsMultipart and for no other: @fastify/multipart
 * adds its content-type parser to every route, so an onRequest hook answers other routes'
 * multipart bodies 415 (they take JSON only). Uploads stream past the JSON body limit: each route caps its
 * own files (`request.parts({ limits })`).
 */
export async function registerMultipart(app: NestFastifyApplication): Promise<void> {
  await app.register(multipart as never, { throwFileSizeLimit: true });
  app
    .getHttpAdapter()
    .getInstance()
    // A callback hook that looks at the content type first: a request without a multipart body
    // (every read) costs one header lookup, not a promise and two routeOptions objects (Fastify
    // builds one per read of request.routeOptions).
    .addHook('onRequest', (request, reply, done) => {
      const contentType = request.headers['content-type'];
      if (contentType === undefined || !MULTIPART.test(contentType)) return done();
      const route = request.routeOptions;
      if (route.url === undefined || (route.config as { multipart?: boolean }).multipart) return done();
      void reply.code(415).header('content-type', 'application/json; charset=utf-8').send({ detail: 'Unsupported content type; send application/json.' });
    });
}
