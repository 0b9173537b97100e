import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Gauge, type Registry } from 'prom-client';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * `labflow_queue_jobs{queue,state}`: BullMQ jobs per queue and state, read from Redis at each
 * scrape. While Redis does not answer the series are left out (readiness reports Redis down).
 */
export function registerQueueDepths(registry: Registry, redisUrl: string, queueNames: string[]): { close(): Promise<void> } {
  // Fails at once while Redis is down, so a scrape never hangs on it.
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  connection.on('error', () => undefined);
  const queues = queueNames.map((name) => new Queue(name, { connection }));
  for (const queue of queues) queue.on('error', () => undefined);
  new Gauge({
    name: 'labflow_queue_jobs',
    help: 'BullMQ jobs by queue and state (waiting, active, delayed, failed).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (connection.status === 'wait') await withinScrapeTime(connection.connect()).catch(() => undefined);
      await Promise.all(
        queues.map(async (queue) => {
          const counts = await withinScrapeTime(queue.getJobCounts(...STATES)).catch(() => null);
          if (counts) for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }),
      );
    },
  });
  return {
    async close() {
      await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
      connection.disconnect();
    },
  };
}

/** A paused or slow Redis must not hold the whole scrape. */
async function withinScrapeTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('Redis did not answer in time')), 2000);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
