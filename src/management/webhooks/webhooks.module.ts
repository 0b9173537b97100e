import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { WebhookMessagesController } from './webhook-messages.controller';
import { WebhookMessagesService } from './webhook-messages.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [TeamsModule],
  controllers: [WebhooksController, WebhookMessagesController],
  providers: [WebhooksRepository, WebhooksService, WebhookMessagesService],
  exports: [WebhooksRepository],
})
export class WebhooksModule {}
