import { Module } from '@nestjs/common';
import { NotificationsModule } from '../adapters/notifications/notifications.module';
import { AppointmentsModule } from '../appointments/appointments.module';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { OrdersModule } from '../orders/orders.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsersModule } from '../users/users.module';
import { PortalAccessService } from './portal-access.service';
import { PortalBrandService } from './portal-brand.service';
import { PortalLinksRepository } from './portal-links.repository';
import { PortalOrdersService } from './portal-orders.service';
import { PortalPageFilter } from './portal-page.filter';
import { PortalPagesController } from './portal-pages.controller';
import { PORTAL_TOKENS, PortalTokens } from './portal-tokens';
import { PortalUrlsController } from './portal-urls.controller';
import { PortalUrlsService } from './portal-urls.service';

/**
 * The patient portal: portal URLs (`POST /v2/user/{user_id}/create_portal_url`, revocation) and
 * the hosted pages patients open from them (/p/<code>, /portal/...).
 */
@Module({
  imports: [UsersModule, OrdersModule, AppointmentsModule, TenancyModule, NotificationsModule],
  controllers: [PortalUrlsController, PortalPagesController],
  providers: [
    {
      provide: PORTAL_TOKENS,
      inject: [LABFLOW_CONFIG],
      useFactory: (config: LabflowConfig) => new PortalTokens(config.phiEncryptionKey, config.phiPreviousKeys),
    },
    PortalLinksRepository,
    PortalUrlsService,
    PortalAccessService,
    PortalOrdersService,
    PortalPageFilter,
    PortalBrandService,
  ],
  // For patient reminders (src/reminders): the same links, contacts and brand as the portal's own messages.
  exports: [PortalUrlsService, PortalAccessService, PortalBrandService],
})
export class PortalModule {}
