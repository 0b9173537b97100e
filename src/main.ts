import 'reflect-metadata';
import { createHttpApp } from './common/http-app';
import { loadConfig } from './config/config';
import { ApiModule } from './app.module';
import { runProcess } from './common/process';

/** The main API on port 8000. */
runProcess('api', async () => {
  const config = loadConfig();
  const app = await createHttpApp(ApiModule.forRoot(config), config, {
    title: 'labflow API',
    description: 'Junction-compatible lab-testing and health-data API. Authenticate with a team API key.',
    security: { name: 'team-api-key', header: 'x-service-api-key' },
  });
  await app.listen({ port: config.api.port, host: config.api.host });
  console.log(`[labflow] API listening on http://${config.api.host}:${config.api.port}`);
});
