import { Module } from '@nestjs/common';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { WebhookMessagesService } from '../management/webhooks/webhook-messages.service';
import { WebhookPortalSessionsRepository } from '../management/webhooks/webhook-portal-sessions.repository';
import { WebhooksRepository } from '../management/webhooks/webhooks.repository';
import { PortalModule } from '../portal/portal.module';
import { WEBHOOK_PORTAL_TOKENS, WebhookPortalAccessService, webhookPortalTokens } from './webhook-portal-access.service';
import { WebhookPortalPageFilter } from './webhook-portal-page.filter';
import { WebhookPortalPagesController } from './webhook-portal-pages.controller';
import { WebhookPortalUrlsController } from './webhook-portal-urls.controller';
import { WebhookPortalService } from './webhook-portal.service';

/**
 * The hosted webhook portal: `GET /v2/team/svix/url` and the pages behind it (/webhook-portal).
 * It provides the management API's webhook repository and message service itself rather than
 * importing that module, whose controllers the main API must not serve.
 */
@Module({
  imports: [PortalModule],
  controllers: [WebhookPortalUrlsController, WebhookPortalPagesController],
  providers: [
    { provide: WEBHOOK_PORTAL_TOKENS, inject: [LABFLOW_CONFIG], useFactory: (config: LabflowConfig) => webhookPortalTokens(config) },
    WebhookPortalAccessService,
    WebhookPortalService,
    WebhookPortalPageFilter,
    WebhooksRepository,
    WebhookMessagesService,
    WebhookPortalSessionsRepository,
  ],
})
export class WebhookPortalModule {}
