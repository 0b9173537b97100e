import { Module } from '@nestjs/common';
import { EventBatchesService } from './event-batches';
import { OutboxService } from './outbox.service';
import { EventResendService } from './resend.service';

/**
 * Events for the Nest side: OutboxService (record events inside a state change's transaction),
 * EventBatchesService (items gathered across requests into one event, e.g. timeseries samples)
 * and resending orders' latest events (EventResendService). The management view of deliveries is
 * src/management/webhooks/webhook-messages.service.ts.
 * The relay and the delivery worker are not providers: the worker process starts them
 * (src/events/event-processing.ts), so importing this module never starts background work.
 */
@Module({
  providers: [OutboxService, EventBatchesService, EventResendService],
  exports: [OutboxService, EventBatchesService, EventResendService],
})
export class EventsModule {}
