import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { WebhookMessagesController } from './webhook-messages.controller';
import { WebhookMessagesService } from './webhook-messages.service';
import { WebhookPortalSessionsController } from './webhook-portal-sessions.controller';
import { WebhookPortalSessionsRepository } from './webhook-portal-sessions.repository';
import { WebhookPortalSessionsService } from './webhook-portal-sessions.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [TeamsModule],
  controllers: [WebhooksController, WebhookMessagesController, WebhookPortalSessionsController],
  providers: [WebhooksRepository, WebhooksService, WebhookMessagesService, WebhookPortalSessionsRepository, WebhookPortalSessionsService],
  exports: [WebhooksRepository, WebhookPortalSessionsService],
})
export class WebhooksModule {}
