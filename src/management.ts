import 'reflect-metadata';
import { serveHttpApp } from './common/http-app';
import { runProcess } from './common/process';
import { startTracing } from './common/tracing/tracing';
import { loadConfig } from './config/config';
import { MANAGEMENT_DOCUMENT, ManagementModule } from './management.module';

/** The management API on port 8001. */
runProcess('management API', async () => {
  const config = loadConfig();
  startTracing('labflow-management', config.tracing);
  await serveHttpApp(ManagementModule.forRoot(config), config, MANAGEMENT_DOCUMENT, config.management.port);
});
