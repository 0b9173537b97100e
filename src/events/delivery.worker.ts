import { DelayedError, Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { SpanKind } from '@opentelemetry/api';
import { inSpanUnder } from '../common/tracing/trace-context';
import { errorListener, type WarnLogger } from '../common/logger';
import type { EventsConfig } from '../config/config';
import { type AnyDeliveryJobData, type DeliveryBundleJobData, deliveryJob, producerConnection, workerConnection } from './delivery-queue';
import type { DeliveryProcessor, ProcessResult } from './delivery.processor';

/**
 * The BullMQ side of delivery: runs DeliveryProcessor for each delivery of a job (the processor
 * bounds how many run at once, whether they come one per job or in bundles).
 *
 * A job of one delivery due later (a retry, or a delivery held back by its endpoint's rate limit)
 * is moved to `delayed` with its id unchanged. A delivery of a bundle due later continues as a
 * job of its own (id = delivery id), added before the bundle completes; deliveries of a bundle
 * not started when the worker stops are handed on the same way. A job held by a worker that died
 * is found stalled once its lock (EVENTS_JOB_LOCK) expires and runs again: delivery is
 * at-least-once, and the repeat carries the same webhook id; deliveries of a bundle already
 * finished are not sent again (their claim finds nothing to do).
 */
export class DeliveryWorker {
  private readonly worker: Worker<AnyDeliveryJobData>;
  private readonly connection: Redis;
  private readonly followUps: Queue;
  private readonly followUpConnection: Redis;
  private closing = false;

  constructor(
    private readonly processor: DeliveryProcessor,
    redisUrl: string,
    private readonly config: EventsConfig,
    private readonly logger: WarnLogger = console,
  ) {
    this.connection = workerConnection(redisUrl, logger);
    this.followUpConnection = producerConnection(redisUrl, logger);
    this.followUps = new Queue(config.queueName, { connection: this.followUpConnection });
    this.followUps.on('error', errorListener(logger, 'BullMQ delivery queue'));
    this.worker = new Worker<AnyDeliveryJobData>(
      config.queueName,
      async (job, token) => {
        if ('deliveryIds' in job.data) return this.runBundle(job.data);
        const { deliveryId, traceParent } = job.data;
        const result = await this.deliver(deliveryId, traceParent);
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
    this.closing = true;
    await this.worker.close(force).catch(() => undefined);
    await this.followUps.close().catch(() => undefined);
    this.followUpConnection.disconnect();
    this.connection.disconnect();
  }

  /**
   * One delivery without a job: the relay of this process hands it fresh deliveries. Not started
   * once the worker is stopping (`not_started`); what must wait (`later`) is the caller's to enqueue.
   */
  deliverNow(deliveryId: string, traceParent: string | undefined): Promise<ProcessResult> {
    return this.deliver(deliveryId, traceParent, true);
  }

  private deliver(deliveryId: string, traceParent: string | undefined, unlessStopping = false): Promise<ProcessResult> {
    // A span of the trace that wrote the event (the order's, for an order event).
    return inSpanUnder(
      traceParent,
      'event delivery',
      { kind: SpanKind.CONSUMER, attributes: { 'labflow.delivery_id': deliveryId, 'messaging.destination.name': this.config.queueName } },
      () => this.processor.process(deliveryId, unlessStopping ? { stopping: () => this.closing } : {}),
    );
  }

  /**
   * The deliveries of a bundle, each as a job of one would run. Those due later, and those not
   * started because the worker is stopping, become jobs of their own before the bundle completes;
   * if that fails (Redis), the bundle fails and BullMQ runs it again.
   */
  private async runBundle(data: DeliveryBundleJobData): Promise<void> {
    const followUps: Array<ReturnType<typeof deliveryJob>> = [];
    const outcomes = await Promise.allSettled(
      data.deliveryIds.map(async (deliveryId) => {
        const traceParent = data.traceParents?.[deliveryId];
        const result = await this.deliver(deliveryId, traceParent, true);
        if (result.kind === 'not_started') followUps.push(deliveryJob(deliveryId, traceParent));
        else if (result.kind === 'later') followUps.push(deliveryJob(deliveryId, traceParent, result.atMs - Date.now()));
      }),
    );
    if (followUps.length > 0) await this.followUps.addBulk(followUps);
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
