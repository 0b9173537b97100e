import multipart from '@fastify/multipart';
import { type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';

/** Marks a route that takes multipart/form-data uploads (every other route refuses multipart). */
export const AcceptsMultipart = () => RouteConfig({ multipart: true });

const MULTIPART = /^multipart\/form-data\b/i;

type RouteHook = (...args: never[]) => unknown;

/**
 * multipart/form-data for the routes marked @AcceptsMultipart and for no other: @fastify/multipart
 * adds its content-type parser to every route, so an onRequest hook answers other routes'
 * multipart bodies 415 (they take JSON only). Uploads stream past the JSON body limit: each route caps its
 * own files (`request.parts({ limits })`).
 */
export async function registerMultipart(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  // @fastify/multipart adds an async onRequest hook (a 'close' listener per request) and an async
  // onResponse hook to every route, to delete the temporary files of saveRequestFiles; only a route
  // marked @AcceptsMultipart can have any (labflow streams its parts and saves none), so its hooks
  // are given to those routes alone: on the others they cost a listener and ~4 promises a request.
  const hooks: Array<{ name: 'onRequest' | 'onResponse'; hook: RouteHook }> = [];
  const addHook = fastify.addHook;
  fastify.addHook = ((name: string, hook: RouteHook) => {
    if (name !== 'onRequest' && name !== 'onResponse') return addHook.call(fastify, name as never, hook as never);
    hooks.push({ name, hook });
    return fastify;
  }) as unknown as typeof fastify.addHook;
  try {
    await app.register(multipart as never, { throwFileSizeLimit: true });
  } finally {
    fastify.addHook = addHook;
  }
  fastify.addHook('onRoute', (route) => {
    if (!(route.config as { multipart?: boolean } | undefined)?.multipart) return;
    const own = route as unknown as Record<string, RouteHook | RouteHook[] | undefined>;
    for (const { name, hook } of hooks) own[name] = [...[own[name] ?? []].flat(), hook];
  });
  fastify
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
