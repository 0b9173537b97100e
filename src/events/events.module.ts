import { Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';
import { EventResendService } from './resend.service';

/**
 * Events for the Nest side: OutboxService (record events inside a state change's transaction)
 * and resending orders' latest events (EventResendService). The management view of deliveries is
 * src/management/webhooks/webhook-messages.service.ts.
 * The relay and the delivery worker are not providers: the worker process starts them
 * (src/events/event-processing.ts), so importing this module never starts background work.
 */
@Module({
  providers: [OutboxService, EventResendService],
  exports: [OutboxService, EventResendService],
})
export class EventsModule {}
