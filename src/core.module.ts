import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Client, Connection } from '@temporalio/client';
import Redis from 'ioredis';
import { BullMqSandboxCallbacks, DisabledSandboxCallbacks, SANDBOX_CALLBACKS } from './adapters/sandbox-callbacks/sandbox-callbacks';
import { ApiKeysService } from './auth/api-keys.service';
import { PhiCipher } from './common/crypto';
import { MetricsRegistry } from './common/metrics/registry';
import { errorListener } from './common/logger';
import { LABFLOW_CONFIG, type LabflowConfig } from './config/config';
import { REDIS, TEMPORAL_CLIENT } from './core.tokens';
import { dataSourceOptions } from './db/data-source';
import { overSocket } from './db/database-socket';
import { labflowDataConverter } from './temporal/payload-codec';
import { tracingClientInterceptors } from './temporal/tracing';
import { requestIdClientInterceptor } from './temporal/request-id-interceptors';

/**
 * What every labflow process shares: the parsed configuration, the Postgres data source, the
 * Temporal client, Redis, the PHI cipher and key verification. Imported once by each root module.
 */
@Global()
@Module({})
export class CoreModule implements OnApplicationShutdown {
  constructor(
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(SANDBOX_CALLBACKS) private readonly sandboxCallbacks: BullMqSandboxCallbacks | DisabledSandboxCallbacks,
  ) {}

  static forRoot(config: LabflowConfig): DynamicModule {
    const providers = [
      { provide: LABFLOW_CONFIG, useValue: config },
      { provide: PhiCipher, useFactory: () => new PhiCipher(config.phiEncryptionKey, config.phiPreviousKeys) },
      {
        provide: TEMPORAL_CLIENT,
        // Lazy: the API starts (and reports unhealthy) even while Temporal is still coming up.
        useFactory: () =>
          new Client({
            connection: Connection.lazy(config.temporal.connection),
            namespace: config.temporal.namespace,
            dataConverter: labflowDataConverter(config),
            // Lists: each concern adds its own (tracing; the request id of workflows started, signalled or updated for a request).
            interceptors: { workflow: [...tracingClientInterceptors(), requestIdClientInterceptor] },
          }),
      },
      {
        provide: REDIS,
        useFactory: () => {
          // Reconnects by itself; while Redis is down, commands fail at once (no offline queue)
          // and /health reports it, instead of requests hanging. Nothing to flush on close: a
          // shutdown while Redis is away must not wait ioredis's default 2 s disconnectTimeout
          // for the socket of the failed attempt, which has closed already (that timer is
          // cleared only by a 'close' that came before it was set).
          const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, disconnectTimeout: 200 });
          redis.on('error', errorListener(new Logger('redis'), 'Redis'));
          return redis;
        },
      },
      ApiKeysService,
      // This app's Prometheus registry (HTTP metrics, scrape-time gauges).
      MetricsRegistry,
      {
        // Sandbox partner callbacks (delayed BullMQ jobs; sent by the worker role `sandbox`).
        provide: SANDBOX_CALLBACKS,
        useFactory: () =>
          config.sandboxCallbacks.enabled
            ? new BullMqSandboxCallbacks(config.redisUrl, config.sandboxCallbacks.queueName, new Logger('sandbox-callbacks'))
            : new DisabledSandboxCallbacks(),
      },
    ];
    return {
      module: CoreModule,
      imports: [TypeOrmModule.forRoot(dataSourceOptions(overSocket(config.databaseUrl, config.databaseSocket), config.databasePoolMax))],
      providers,
      exports: [LABFLOW_CONFIG, PhiCipher, TEMPORAL_CLIENT, REDIS, ApiKeysService, SANDBOX_CALLBACKS, MetricsRegistry],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.temporal.connection.close();
    this.redis.disconnect();
    if (this.sandboxCallbacks instanceof BullMqSandboxCallbacks) await this.sandboxCallbacks.close();
  }
}
