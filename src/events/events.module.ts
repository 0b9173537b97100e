import { Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';
import { EventResendService } from './resend.service';
import { WebhookMessagesService } from './webhook-messages.service';

/**
 * Events for the Nest side: OutboxService (record events inside a state change's transaction),
 * the management view of deliveries, and resending orders' latest events (EventResendService).
 * The relay and the delivery worker are not providers: the worker process starts them
 * (src/events/event-processing.ts), so importing this module never starts background work.
 */
@Module({
  providers: [OutboxService, WebhookMessagesService, EventResendService],
  exports: [OutboxService, WebhookMessagesService, EventResendService],
})
export class EventsModule {}
