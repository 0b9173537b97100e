import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { FastifyAdapter, RouteConfig } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';

/** Marks a route that takes multipart/form-data uploads (every other route refuses multipart). */
export const AcceptsMultipart = () => RouteConfig({ multipart: true });

const MULTIPART = /^multipart\/form-data\b/i;

function acceptsMultipart(handler: unknown): boolean {
  const config =
    typeof handler === 'function' ? (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as { multipart?: boolean } | undefined) : undefined;
  return config?.multipart === true;
}

/**
 * Nest's Fastify adapter, with the routes marked @AcceptsMultipart registered in an encapsulated
 * Fastify context of their own in which @fastify/multipart is registered (`registerMultipartScope`):
 * its content-type parser, request decorators (`request.parts()`) and per-request hooks (an async
 * onRequest adding a `close` listener, an async onResponse: they delete the temporary files of
 * saveRequestFiles) exist for those routes and no other: every other route answers a multipart
 * body 415 (it takes JSON only), and its requests pay none of the plugin's hooks. Uploads stream past the JSON body limit: each route
 * caps its own files (`request.parts({ limits })`).
 *
 * The scope is a child of the root instance made after every root hook is added (Fastify copies a
 * parent's hooks into a child when the child is made), so its routes run the same request-id,
 * context, log-line, metrics and tracing hooks as the rest; the error handler Nest sets later is
 * the root's, which a child reads through.
 */
export class MultipartFastifyAdapter extends FastifyAdapter {
  private multipartScope: FastifyInstance | null = null;

  /** Makes the encapsulated context of multipart routes: after every root hook, before the routes (app.init). */
  async registerMultipartScope(): Promise<void> {
    const root = this.getInstance() as unknown as FastifyInstance;
    await root.register(async (scope) => {
      await scope.register(multipart, { throwFileSizeLimit: true });
      this.multipartScope = scope;
    });
    // A multipart body on another route has no parser there: Fastify's 415 would say "Unsupported
    // Media Type"; this one says what to send, before any guard. A callback that looks at the
    // content type first: a read has none. (Fastify adds hooks in its plugin queue, so a hook added
    // here reaches the scope too: the route's mark decides.)
    root.addHook('onRequest', (request, reply, done) => {
      const contentType = request.headers['content-type'];
      if (contentType === undefined || !MULTIPART.test(contentType)) return done();
      const route = request.routeOptions;
      if (route.url === undefined || (route.config as { multipart?: boolean }).multipart) return done();
      void reply.code(415).header('content-type', 'application/json; charset=utf-8').send({ detail: 'Unsupported content type; send application/json.' });
    });
  }

  override post(...args: unknown[]) {
    return this.inScopeIfMultipart('post', args);
  }

  override put(...args: unknown[]) {
    return this.inScopeIfMultipart('put', args);
  }

  override patch(...args: unknown[]) {
    return this.inScopeIfMultipart('patch', args);
  }

  /**
   * Nest's own route registration (versioning, constraints, route config and all), aimed at the
   * multipart scope for a marked handler: the adapter seen through an object whose `instance` is
   * the scope.
   */
  private inScopeIfMultipart(method: 'post' | 'put' | 'patch', args: unknown[]) {
    const register = FastifyAdapter.prototype[method] as (...args: unknown[]) => ReturnType<FastifyAdapter['post']>;
    if (!acceptsMultipart(args[args.length - 1])) return register.apply(this, args);
    if (!this.multipartScope) throw new Error('A route accepts multipart before registerMultipartScope() ran');
    return register.apply(Object.create(this, { instance: { value: this.multipartScope } }) as this, args);
  }
}
