import { type JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { errorListener, type WarnLogger } from '../common/logger';

/**
 * A BullMQ job of one delivery; its id is the delivery id, so enqueueing twice is harmless.
 * Retries, deliveries held by a rate limit, the lost-job sweep and manual retries use these.
 */
export interface DeliveryJobData {
  deliveryId: string;
  /** W3C traceparent of the event's writer: the delivery is a span of that trace. */
  traceParent?: string;
}

/**
 * A BullMQ job of up to DELIVERY_BUNDLE new deliveries, as the relay fans them out: BullMQ's own
 * cost per job (fetch, lock, complete: a few Redis scripts) was as large as a delivery's other
 * work, so first attempts share a job. Each delivery in it is still claimed, sent and recorded on
 * its own; one that must wait (a retry, a rate limit) continues as a job of its own (DeliveryJobData).
 */
export interface DeliveryBundleJobData {
  deliveryIds: string[];
  /** Delivery id → traceparent, for those that have one. */
  traceParents?: Record<string, string>;
}

export type AnyDeliveryJobData = DeliveryJobData | DeliveryBundleJobData;

export const DELIVERY_JOB = 'deliver';
export const DELIVERY_BUNDLE_JOB = 'deliver-bundle';
/** New deliveries per bundle job at most. */
export const DELIVERY_BUNDLE = 10;

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

/** The job of one delivery, due in `delayMs` (a retry, a delivery held by a rate limit) or now. */
export function deliveryJob(deliveryId: string, traceParent?: string, delayMs = 0) {
  const data: DeliveryJobData = traceParent ? { deliveryId, traceParent } : { deliveryId };
  return { name: DELIVERY_JOB, data, opts: { ...JOB_OPTIONS, jobId: deliveryId, ...(delayMs > 0 ? { delay: delayMs } : {}) } };
}

/** Bundle jobs of new deliveries, DELIVERY_BUNDLE each, in the order given. */
export function deliveryBundleJobs(deliveryIds: readonly string[], traceParents?: ReadonlyMap<string, string>, size = DELIVERY_BUNDLE) {
  const jobs = [];
  for (let i = 0; i < deliveryIds.length; i += size) {
    const ids = deliveryIds.slice(i, i + size);
    if (ids.length === 1) {
      jobs.push(deliveryJob(ids[0], traceParents?.get(ids[0])));
      continue;
    }
    const parents = ids.flatMap((id) => (traceParents?.has(id) ? [[id, traceParents.get(id) as string] as const] : []));
    const data: DeliveryBundleJobData = parents.length > 0 ? { deliveryIds: ids, traceParents: Object.fromEntries(parents) } : { deliveryIds: ids };
    // Named after its first delivery (deterministic); BullMQ job ids may not contain ':'.
    jobs.push({ name: DELIVERY_BUNDLE_JOB, data, opts: { ...JOB_OPTIONS, jobId: `bundle-${ids[0]}` } });
  }
  return jobs;
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
  readonly queue: Queue<AnyDeliveryJobData>;
  private readonly connection: Redis;

  constructor(redisUrl: string, queueName: string, logger: WarnLogger = console) {
    this.connection = producerConnection(redisUrl, logger);
    this.queue = new Queue<AnyDeliveryJobData>(queueName, { connection: this.connection });
    this.queue.on('error', errorListener(logger, 'BullMQ delivery queue'));
  }

  /** Adds one job per delivery id (with its traceparent, if known); ids that already have a job are left as they are. */
  async enqueue(deliveryIds: string[], traceParents?: ReadonlyMap<string, string>): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(deliveryIds.map((id) => deliveryJob(id, traceParents?.get(id))));
  }

  /** Adds the relay's new deliveries as bundle jobs (deliveryBundleJobs). */
  async enqueueNew(deliveryIds: string[], traceParents?: ReadonlyMap<string, string>): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.queue.addBulk(deliveryBundleJobs(deliveryIds, traceParents));
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
