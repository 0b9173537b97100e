import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { runProcess } from './common/process';
import { loadConfig } from './config/config';
import { WorkerModule } from './temporal/worker.module';
import { createLabflowWorker } from './temporal/worker';

/**
 * The Temporal worker. SIGINT/SIGTERM (handled by the Temporal runtime) make it stop polling and
 * drain running activities; then connections close and the process exits.
 */
runProcess('worker', async () => {
  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: ['error', 'warn', 'log'],
  });
  const { worker, connection } = await createLabflowWorker(app, config);
  console.log(`[labflow] worker polling task queue "${config.temporal.taskQueue}" in namespace "${config.temporal.namespace}"`);
  try {
    await worker.run();
  } finally {
    await connection.close();
    await app.close();
    console.log('[labflow] worker stopped');
  }
});
