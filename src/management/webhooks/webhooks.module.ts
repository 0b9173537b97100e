import { Module } from '@nestjs/common';
import { TeamsModule } from '../teams/teams.module';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [TeamsModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService],
  exports: [WebhooksRepository],
})
export class WebhooksModule {}
