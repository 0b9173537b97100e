import { DelayedError, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { SpanKind } from '@opentelemetry/api';
import { inSpanUnder } from '../common/tracing/trace-context';
import { errorListener, type WarnLogger } from '../common/logger';
import type { EventsConfig } from '../config/config';
import type { DeliveryJobData } from './delivery-queue';
import { workerConnection } from './delivery-queue';
import type { DeliveryProcessor } from './delivery.processor';

/**
 * The BullMQ side of delivery: runs DeliveryProcessor for each job, `concurrency` at a time.
 * A job due later (a retry, or a delivery held back by its endpoint's rate limit) is moved to
 * `delayed` with its id unchanged. A job held by a worker that died is found stalled once its
 * lock (EVENTS_JOB_LOCK) expires and runs again: delivery is at-least-once, and the repeat
 * carries the same webhook id.
 */
export class DeliveryWorker {
  private readonly worker: Worker<DeliveryJobData>;
  private readonly connection: Redis;

  constructor(
    processor: DeliveryProcessor,
    redisUrl: string,
    config: EventsConfig,
    private readonly logger: WarnLogger = console,
  ) {
    this.connection = workerConnection(redisUrl, logger);
    this.worker = new Worker<DeliveryJobData>(
      config.queueName,
      async (job, token) => {
        // A span of the trace that wrote the event (the order's, for an order event).
        const result = await inSpanUnder(
          job.data.traceParent,
          'event delivery',
          { kind: SpanKind.CONSUMER, attributes: { 'labflow.delivery_id': job.data.deliveryId, 'messaging.destination.name': config.queueName } },
          () => processor.process(job.data.deliveryId),
        );
        if (result.kind === 'later') {
          await job.moveToDelayed(result.atMs, token);
          throw new DelayedError();
        }
      },
      {
        connection: this.connection,
        concurrency: config.concurrency,
        lockDuration: config.jobLockMs,
        stalledInterval: config.jobLockMs,
        // A crash-looping worker should not fail jobs for good: the delivery stays pending in
        // Postgres, and the relay's sweep re-enqueues it anyway.
        maxStalledCount: 20,
        autorun: false,
      },
    );
    this.worker.on('error', errorListener(logger, 'BullMQ delivery worker'));
  }

  start(): void {
    void this.worker.run().catch(errorListener(this.logger, 'BullMQ delivery worker stopped'));
  }

  /** Stops taking jobs and waits for running ones (`force`: abandons them, as a crash would). */
  async close(force = false): Promise<void> {
    await this.worker.close(force).catch(() => undefined);
    this.connection.disconnect();
  }
}
