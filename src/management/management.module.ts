import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ManagementKeyGuard } from '../auth/guards';
import { HTTP_GLOBALS } from '../common/http-app';
import type { LabflowConfig } from '../config/config';
import { CoreModule } from '../core.module';
import { HealthModule } from '../health/health.module';
import { OrgsController } from './orgs.controller';

/** The management API ({management_url}): management keys only, Scale plan only. */
@Module({})
export class ManagementModule {
  static forRoot(config: LabflowConfig): DynamicModule {
    return {
      module: ManagementModule,
      imports: [CoreModule.forRoot(config), HealthModule],
      controllers: [OrgsController],
      providers: [...HTTP_GLOBALS, { provide: APP_GUARD, useClass: ManagementKeyGuard }],
    };
  }
}
