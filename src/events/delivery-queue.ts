import { type JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { errorListener, type WarnLogger } from '../common/logger';

/** A BullMQ job = one delivery; its id is the delivery id, so enqueueing twice is harmless. */
export interface DeliveryJobData {
  deliveryId: string;
  /** W3C traceparent of the event's writer: the delivery is a span of that trace. */
  traceParent?: string;
}

export const DELIVERY_JOB = 'deliver';

/**
 * Job options: no BullMQ retry schedule (the schedule lives in Postgres and the processor moves
 * the job to `delayed` itself); a few quick retries only for infrastructure errors (Postgres
 * unreachable). Finished jobs are removed at once, so a later enqueue of the same id (a sweep, a
 * manual retry) creates a fresh job instead of being swallowed by a completed one.
 */
const JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
};

export function deliveryJob(deliveryId: string, traceParent?: string) {
  const data: DeliveryJobData = traceParent ? { deliveryId, traceParent } : { deliveryId };
  return { name: DELIVERY_JOB, data, opts: { ...JOB_OPTIONS, jobId: deliveryId } };
}

/** Redis for a BullMQ producer: fails at once while Redis is down (the relay retries later). */
export function producerConnection(redisUrl: string, logger: WarnLogger = console): Redis {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', errorListener(logger, 'Redis (delivery queue)'));
  return redis;
}

/** Redis for a BullMQ worker (BullMQ requires maxRetriesPerRequest: null there). */
export function workerConnection(redisUrl: string, logger: WarnLogger = console): Redis {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  redis.on('error', errorListener(logger, 'Redis (delivery worker)'));
  return redis;
}

/** The producer side of the delivery queue. */
export class DeliveryQueue {
  readonly queue: Queue<DeliveryJobData>;
  private readonly connection: Redis;

  constructor(redisUrl: string, queueName: string, logger: WarnLogger = console) {
    this.connection = producerConnection(redisUrl, logger);
    this.queue = new Queue<DeliveryJobData>(queueName, { connection: this.connection });
    this.queue.on('error', errorListener(logger, 'BullMQ delivery queue'));
  }

  /** Adds one job per delivery id (with its traceparent, if known); ids that already have a job are left as they are. */
  async enqueue(deliveryIds: string[], traceParents?: ReadonlyMap<string, string>): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(deliveryIds.map((id) => deliveryJob(id, traceParents?.get(id))));
  }

  /**
   * Like enqueue, but a job waiting in `delayed` (a scheduled retry) is promoted to run now:
   * used for deliveries made due early (manual retry).
   */
  async enqueueNow(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    const jobs = await Promise.all(deliveryIds.map((id) => this.queue.getJob(id)));
    await Promise.all(
      jobs.map(async (job) => {
        if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
      }),
    );
    await this.enqueue(deliveryIds);
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
