import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module';
import { TeamsModule } from '../teams/teams.module';
import { WebhookMessagesController } from './webhook-messages.controller';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [TeamsModule, EventsModule],
  controllers: [WebhooksController, WebhookMessagesController],
  providers: [WebhooksRepository, WebhooksService],
  exports: [WebhooksRepository],
})
export class WebhooksModule {}
