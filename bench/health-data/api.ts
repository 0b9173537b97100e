/**
 * The API alone in its own process for bench/health-data/run.ts (so the load generator and the
 * server never share an event loop): prints `READY <url>` once it listens.
 */
import 'reflect-metadata';
import { API_DOCUMENT, ApiModule } from '../../src/app.module';
import { createHttpApp } from '../../src/common/http-app';
import { loadConfig } from '../../src/config/config';

void (async () => {
  const config = loadConfig({ ...process.env, LOG_REQUESTS: 'false' });
  const app = await createHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('not listening on TCP');
  console.log(`READY http://127.0.0.1:${address.port}`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
})();
