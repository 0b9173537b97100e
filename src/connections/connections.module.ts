import { Global, Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { HealthDataModule } from '../health-data/health-data.module';
import { CONNECTED_SOURCES } from '../users/connected-sources';
import { UsersModule } from '../users/users.module';
import { BulkOpsRepository } from './bulk-ops.repository';
import { ConnectionBulkOpsService } from './connection-bulk-ops.service';
import { ConnectionReconciler } from './connection-reconciler';
import { ConnectionSyncService } from './connection-sync.service';
import { ConnectionWorkflows } from './connection-workflows';
import { ConnectionsController } from './connections.controller';
import { ProviderWebhooksController } from './provider-webhooks.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { OuraSourceAdapter } from '../adapters/oura/oura-source.adapter';
import { DexcomSourceAdapter } from '../adapters/dexcom/dexcom-source.adapter';
import { WhoopSourceAdapter } from '../adapters/whoop/whoop-source.adapter';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { SandboxSourceAdapter } from './sandbox-source.adapter';
import { SOURCE_ADAPTER } from '../adapters/sources/source-adapter';
import { SourceRouter } from './source-router';

/**
 * Connected data sources (the sandbox's demo providers, and Oura, Dexcom and WHOOP where configured): one workflow per connection moves the
 * source's data in through health-data ingestion; the worker's ConnectionReconciler restarts one
 * that closed or vanished while its connection remains. Global only for CONNECTED_SOURCES: the users
 * module reads the user object's `connected_sources` through it without importing this module
 * (which imports users).
 */
@Global()
@Module({
  imports: [UsersModule, EventsModule, HealthDataModule],
  controllers: [ConnectionsController, ProviderWebhooksController],
  providers: [
    ConnectionsRepository,
    ConnectionsService,
    ConnectionReconciler,
    ConnectionSyncService,
    ConnectionWorkflows,
    BulkOpsRepository,
    ConnectionBulkOpsService,
    SandboxSourceAdapter,
    {
      // Real providers' clients where configured (production), the sandbox's generated data otherwise.
      provide: SOURCE_ADAPTER,
      inject: [LABFLOW_CONFIG, SandboxSourceAdapter],
      useFactory: (config: LabflowConfig, sandbox: SandboxSourceAdapter) =>
        new SourceRouter([
          ...(config.providers.oura ? [new OuraSourceAdapter(config.providers.oura)] : []),
          ...(config.providers.dexcom ? [new DexcomSourceAdapter(config.providers.dexcom)] : []),
          ...(config.providers.whoop ? [new WhoopSourceAdapter(config.providers.whoop)] : []),
          sandbox,
        ]),
    },
    { provide: CONNECTED_SOURCES, useExisting: ConnectionsService },
  ],
  exports: [
    ConnectionsService,
    ConnectionsRepository,
    ConnectionSyncService,
    ConnectionReconciler,
    ConnectionBulkOpsService,
    BulkOpsRepository,
    CONNECTED_SOURCES,
    SOURCE_ADAPTER,
  ],
})
export class ConnectionsModule {}
