import multipart from '@fastify/multipart';
import { type NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';

/** Marks a route that takes multipart/form-data uploads (every other route refuses multipart). */
export const AcceptsMultipart = () => RouteConfig({ multipart: true });

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
    .addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.url === undefined || (request.routeOptions.config as { multipart?: boolean }).multipart) return;
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) return;
      await reply.code(415).header('content-type', 'application/json; charset=utf-8').send({ detail: 'Unsupported content type; send application/json.' });
    });
}
