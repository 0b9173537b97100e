import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ManagementKeyGuard } from '../auth/guards';
import { HTTP_GLOBALS, type HttpAppOptions } from '../common/http-app';
import type { LabflowConfig } from '../config/config';
import { CoreModule } from '../core.module';
import { HealthModule } from '../health/health.module';
import { CustomCredentialsModule } from './custom-credentials/custom-credentials.module';
import { EtlPipelinesModule } from './etl-pipelines/etl-pipelines.module';
import { ManagementKeysModule } from './keys/management-keys.module';
import { MetricsModule } from './metrics/metrics.module';
import { CodecController } from '../temporal/codec.controller';
import { OrgsController } from './orgs.controller';
import { OrgsRepository } from './orgs.repository';
import { OrgsService } from './orgs.service';
import { StrandedOrdersModule } from './stranded-orders/stranded-orders.module';
import { TeamApiKeysModule } from './team-api-keys/team-api-keys.module';
import { TeamsModule } from './teams/teams.module';
import { WebhooksModule } from './webhooks/webhooks.module';

export const MANAGEMENT_DOCUMENT: HttpAppOptions = {
  title: 'labflow management API',
  description: 'Orgs, teams, keys, webhooks and event destinations. Authenticate with a management key.',
  security: { name: 'management-key', header: 'X-Management-Key' },
};

/**
 * The management API ({management_url}): management keys only, Scale plan only (the guard).
 * Authorization per route is in src/management/common/access.ts.
 */
@Module({})
export class ManagementModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return {
      module: ManagementModule,
      imports: [
        CoreModule.forRoot(config),
        HealthModule,
        TeamsModule,
        ManagementKeysModule,
        TeamApiKeysModule,
        WebhooksModule,
        EtlPipelinesModule,
        CustomCredentialsModule,
        StrandedOrdersModule,
        MetricsModule,
      ],
      controllers: [OrgsController, CodecController],
      providers: [...HTTP_GLOBALS, { provide: APP_GUARD, useClass: ManagementKeyGuard }, OrgsRepository, OrgsService],
    };
  }
}
