import multipart from '@fastify/multipart';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * multipart/form-data for the routes named (file uploads) and for no other: @fastify/multipart
 * adds its content-type parser to every route, so an onRequest hook answers other routes' multipart
 * bodies 415 as before. Uploads stream past the JSON body limit: each route caps its own files
 * (`request.parts({ limits })`).
 */
export async function registerMultipart(app: NestFastifyApplication, routes: readonly string[]): Promise<void> {
  await app.register(multipart as never, { throwFileSizeLimit: true });
  const allowed = new Set(routes);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (request, reply) => {
      const route = request.routeOptions.url;
      if (route === undefined || allowed.has(route)) return;
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')) return;
      await reply
        .code(415)
        .header('content-type', 'application/json; charset=utf-8')
        .send({ detail: 'Unsupported content type; send application/json.' });
    });
}
