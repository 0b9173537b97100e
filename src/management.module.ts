import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ManagementKeyGuard } from './auth/guards';
import { HTTP_GLOBALS, type HttpAppOptions } from './common/http-app';
import type { LabflowConfig } from './config/config';
import { CoreModule } from './core.module';
import { HealthModule } from './probes/health.module';
import { MetricsEndpointModule } from './probes/metrics.controller';
import { ContinuousQueriesManagementModule } from './management/continuous-queries/continuous-queries.module';
import { CustomCredentialsModule } from './management/custom-credentials/custom-credentials.module';
import { EtlPipelinesModule } from './management/etl-pipelines/etl-pipelines.module';
import { Hl7MessagesManagementModule } from './management/hl7-messages/hl7-messages.module';
import { ManagementKeysModule } from './management/keys/management-keys.module';
import { MetricsModule } from './management/metrics/metrics.module';
import { CodecController } from './temporal/codec.controller';
import { OrgsController } from './management/orgs.controller';
import { OrgsRepository } from './management/orgs.repository';
import { OrgsService } from './management/orgs.service';
import { ManagementRateLimitGuard } from './rate-limits/rate-limit.guard';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { StrandedOrdersModule } from './management/stranded-orders/stranded-orders.module';
import { TeamApiKeysModule } from './management/team-api-keys/team-api-keys.module';
import { TeamsModule } from './management/teams/teams.module';
import { WebhooksModule } from './management/webhooks/webhooks.module';

export const MANAGEMENT_DOCUMENT: HttpAppOptions = {
  title: 'labflow management API',
  description: 'Orgs, teams, keys, webhooks and event destinations. Authenticate with a management key.',
  security: { name: 'management-key', header: 'X-Management-Key' },
  service: 'management',
};

/**
 * The management API ({management_url}): management keys only, Scale plan only (the guard).
 * Authorization per route is in src/management/common/access.ts. This root module sits beside app.module.ts:
 * it wires the management modules with the core ones, as app.module.ts does for the API.
 */
@Module({})
export class ManagementModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return {
      module: ManagementModule,
      imports: [
        CoreModule.forRoot(config),
        // Every management route reads or writes Postgres only.
        HealthModule.forRoot({ needs: ['postgres'] }),
        MetricsEndpointModule.forRoot(config),
        TeamsModule,
        ManagementKeysModule,
        TeamApiKeysModule,
        WebhooksModule,
        EtlPipelinesModule,
        CustomCredentialsModule,
        StrandedOrdersModule,
        ContinuousQueriesManagementModule,
        Hl7MessagesManagementModule,
        MetricsModule,
        RateLimitsModule,
      ],
      controllers: [OrgsController, CodecController],
      // Rate limits first: a limited request is refused before its key is looked up.
      providers: [
        ...HTTP_GLOBALS,
        { provide: APP_GUARD, useClass: ManagementRateLimitGuard },
        { provide: APP_GUARD, useClass: ManagementKeyGuard },
        OrgsRepository,
        OrgsService,
      ],
    };
  }
}
