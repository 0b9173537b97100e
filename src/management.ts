import 'reflect-metadata';
import { createHttpApp } from './common/http-app';
import { runProcess } from './common/process';
import { loadConfig } from './config/config';
import { ManagementModule } from './management/management.module';

/** The management API on port 8001. */
runProcess('management API', async () => {
  const config = loadConfig();
  const app = await createHttpApp(ManagementModule.forRoot(config), config, {
    title: 'labflow management API',
    description: 'Orgs, teams, keys, webhooks and event destinations. Authenticate with a management key.',
    security: { name: 'management-key', header: 'X-Management-Key' },
  });
  await app.listen({ port: config.management.port, host: config.api.host });
  console.log(`[labflow] management API listening on http://${config.api.host}:${config.management.port}`);
});
