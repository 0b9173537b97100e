import 'reflect-metadata';
import { API_DOCUMENT, ApiModule } from './app.module';
import { serveHttpApp } from './common/http-app';
import { runProcess } from './common/process';
import { startTracing } from './common/tracing/tracing';
import { loadConfig } from './config/config';

/** The main API on port 8000. */
runProcess('api', async () => {
  const config = loadConfig();
  startTracing('labflow-api', config.tracing);
  await serveHttpApp(ApiModule.forRoot(config), config, API_DOCUMENT, config.api.port);
});
