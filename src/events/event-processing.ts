import type { DataSource } from 'typeorm';
import type { PhiCipher } from '../common/crypto';
import type { LabflowConfig } from '../config/config';
import { DeliveryQueue } from './delivery-queue';
import { type DeliveryLogger, DeliveryProcessor } from './delivery.processor';
import { DeliveryWorker } from './delivery.worker';
import { DeliveriesRepository } from './deliveries.repository';
import { claimLeaseMs, DeliveryBatches } from './delivery-batches';
import { EventBatchFlusher } from './event-batches';
import { EventBatchesRepository } from './event-batches.repository';
import { RabbitMqPublisher } from './rabbitmq.publisher';
import { type EndpointRateLimiter, RedisEndpointRateLimiter } from './rate-limiter';
import { OutboxRepository } from './outbox.repository';
import { type DeliveryHandOff, EventRelay } from './relay';
import { WebhookSender } from './webhook-sender';

export interface EventProcessingOptions {
  /** Run the outbox relay (default true). */
  relay?: boolean;
  /** Run the BullMQ delivery worker (default true). */
  delivery?: boolean;
  /** The process logger (warnings; with pino, a line per delivery attempt too). */
  logger?: DeliveryLogger;
  /** Relay only these teams' events (a live set; tests sharing a database). Default: all. */
  teams?: ReadonlySet<string>;
}

export interface EventProcessing {
  relay: EventRelay | null;
  delivery: DeliveryWorker | null;
  /** Stops both (once; later calls wait for the first); `force` abandons running deliveries as a crash would. */
  stop(force?: boolean): Promise<void>;
}

/**
 * The background side of events, run by the worker process (src/worker.ts, roles `relay` and
 * `delivery`) and in-process by tests (test/helpers/stack.ts `events: true`) and the benchmark.
 */
export function startEventProcessing(
  deps: { db: DataSource; cipher: PhiCipher; config: LabflowConfig },
  options: EventProcessingOptions = {},
): EventProcessing {
  const { db, cipher, config } = deps;
  const logger = options.logger ?? console;

  let delivery: DeliveryWorker | null = null;
  let sender: WebhookSender | null = null;
  let rabbit: RabbitMqPublisher | null = null;
  let rateLimiter: EndpointRateLimiter | null = null;
  if (options.delivery !== false) {
    sender = new WebhookSender({
      timeoutMs: config.events.deliveryTimeoutMs,
      allowPrivate: config.events.allowPrivateWebhookUrls,
      maxSockets: config.events.concurrency,
    });
    rabbit = new RabbitMqPublisher(config.events.deliveryTimeoutMs, config.events.allowPrivateWebhookUrls, logger);
    // Endpoint rate limits live on the queue's Redis, shared by every delivery worker.
    rateLimiter = new RedisEndpointRateLimiter(config.redisUrl, logger);
    const processor = new DeliveryProcessor(
      new DeliveryBatches(new DeliveriesRepository(db), config.events),
      cipher,
      sender,
      rabbit,
      rateLimiter,
      config.events,
      logger,
    );
    delivery = new DeliveryWorker(processor, config.redisUrl, config.events, logger);
    delivery.start();
  }

  let queue: DeliveryQueue | null = null;
  let relay: EventRelay | null = null;
  if (options.relay !== false) {
    queue = new DeliveryQueue(config.redisUrl, config.events.queueName, logger);
    const batches = new EventBatchFlusher(new EventBatchesRepository(db), cipher);
    // With a delivery worker in this process, first attempts go to it without a BullMQ job.
    const worker = delivery;
    const handOff: DeliveryHandOff | undefined = worker
      ? { deliver: (id, traceParent) => worker.deliverNow(id, traceParent), capacity: 2 * config.events.concurrency, leaseMs: claimLeaseMs(config.events) }
      : undefined;
    relay = new EventRelay(new OutboxRepository(db), queue, config.events, config.databaseUrl, { logger, teams: options.teams, batches, handOff });
    relay.start();
  }

  // Once: disconnecting an ioredis client a second time arms a 2 s timer that keeps the process up.
  let stopped: Promise<void> | null = null;
  return {
    relay,
    delivery,
    stop(force = false) {
      stopped ??= (async () => {
        await relay?.stop();
        await queue?.close();
        await delivery?.close(force);
        sender?.close();
        await rabbit?.close();
        await rateLimiter?.close();
      })();
      return stopped;
    },
  };
}
