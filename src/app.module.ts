import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TeamApiKeyGuard } from './auth/guards';
import { TeamKeyCache } from './auth/team-key-cache';
import { HTTP_GLOBALS, type HttpAppOptions } from './common/http-app';
import type { LabflowConfig } from './config/config';
import { AppointmentsModule } from './appointments/appointments.module';
import { CoreModule } from './core.module';
import { EventsModule } from './events/events.module';
import { FhirModule } from './fhir/fhir.module';
import { HealthModule } from './probes/health.module';
import type { Dependency } from './probes/readiness';
import { ConnectionsModule } from './connections/connections.module';
import { HealthDataModule } from './health-data/health-data.module';
import { MetricsEndpointModule } from './probes/metrics.controller';
import { InsuranceModule } from './insurance/insurance.module';
import { LabTestsModule } from './lab-tests/lab-tests.module';
import { LabReportsModule } from './lab-reports/lab-reports.module';
import { OrdersModule } from './orders/orders.module';
import { PortalModule } from './portal/portal.module';
import { WebhookPortalModule } from './webhook-portal/webhook-portal.module';
import { RemindersModule } from './reminders/reminders.module';
import { TeamModule } from './team/team.module';
import { LinkModule } from './link/link.module';
import { MobileModule } from './mobile/mobile.module';
import { ApiRateLimitGuard } from './rate-limits/rate-limit.guard';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { UsersModule } from './users/users.module';

export const API_DOCUMENT: HttpAppOptions = {
  title: 'labflow API',
  description: 'Junction-compatible lab-testing and health-data API. Authenticate with a team API key.',
  security: { name: 'team-api-key', header: 'x-service-api-key' },
  service: 'api',
};

/** What the API cannot serve without: orders start workflows, appointments cache in Redis, sandbox partners schedule on BullMQ. */
const API_NEEDS: Dependency[] = ['postgres', 'redis', 'temporal'];

/** The main API ({base_url}): every route needs a team API key unless marked @Public. */
@Module({})
export class ApiModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        CoreModule.forRoot(config),
        HealthModule.forRoot({ needs: API_NEEDS }),
        MetricsEndpointModule.forRoot(config),
        UsersModule,
        InsuranceModule,
        LabTestsModule,
        EventsModule,
        OrdersModule,
        AppointmentsModule,
        HealthDataModule,
        ConnectionsModule,
        LabReportsModule,
        PortalModule,
        WebhookPortalModule,
        RemindersModule,
        TeamModule,
        LinkModule,
        MobileModule,
        RateLimitsModule,
        FhirModule,
      ],
      // Rate limits first: a limited request is refused before its key is looked up.
      providers: [...HTTP_GLOBALS, TeamKeyCache, { provide: APP_GUARD, useClass: ApiRateLimitGuard }, { provide: APP_GUARD, useClass: TeamApiKeyGuard }],
    };
  }
}
