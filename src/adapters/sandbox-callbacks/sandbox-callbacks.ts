import { type JobsOptions, Queue } from 'bullmq';
import Redis from 'ioredis';
import { errorListener, type WarnLogger } from '../../common/logger';

/**
 * Sandbox partners (courier, lab, appointment providers) report back to labflow the way real
 * partners do: by calling labflow's own HMAC-signed partner webhooks, later. A callback is a
 * delayed BullMQ job in Redis, so it survives a restart of the process that scheduled it and of
 * the process that sends it (src/adapters/sandbox-callbacks/sandbox-callback.processor.ts).
 */
export interface SandboxCallback {
  /** Idempotency: BullMQ jobId; scheduling the same id twice schedules once. */
  id: string;
  /** Path on labflow's API, e.g. '/v3/webhooks/courier/sandbox'. */
  path: string;
  body: unknown;
  delayMs: number;
}

export interface SandboxCallbacks {
  schedule(callbacks: SandboxCallback[]): Promise<void>;
}

export const SANDBOX_CALLBACKS = Symbol('SANDBOX_CALLBACKS');

/** What a job carries: where to POST and what (the signature is made when it is sent). */
export interface SandboxCallbackJobData {
  path: string;
  body: unknown;
}

export const SANDBOX_CALLBACK_JOB = 'callback';

/**
 * Retries with exponential backoff (1s, 2s, 4s, … about an hour in all) for network errors and
 * 5xx/429; the processor fails a job for good on any other 4xx. Finished jobs are kept a week so
 * a repeated schedule of the same id (a retried activity, a repeated webhook) stays a no-op.
 */
export const SANDBOX_CALLBACK_JOB_OPTIONS: JobsOptions = {
  attempts: 13,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 7 * 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** BullMQ job ids may not contain ':'-only numbers; keep ids readable but safe. */
export function sandboxCallbackJobId(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The producer: adds one delayed job per callback (jobId = callback id). */
export class BullMqSandboxCallbacks implements SandboxCallbacks {
  readonly queue: Queue<SandboxCallbackJobData>;
  private readonly connection: Redis;

  constructor(redisUrl: string, queueName: string, logger: WarnLogger = console) {
    // Fails at once while Redis is down: the caller (an activity, a webhook) is retried.
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.connection.on('error', errorListener(logger, 'Redis (sandbox callback queue)'));
    this.queue = new Queue<SandboxCallbackJobData>(queueName, { connection: this.connection });
    this.queue.on('error', errorListener(logger, 'BullMQ sandbox callback queue'));
  }

  async schedule(callbacks: SandboxCallback[]): Promise<void> {
    if (callbacks.length === 0) return;
    await this.queue.addBulk(
      callbacks.map((callback) => ({
        name: SANDBOX_CALLBACK_JOB,
        data: { path: callback.path, body: callback.body },
        opts: { ...SANDBOX_CALLBACK_JOB_OPTIONS, jobId: sandboxCallbackJobId(callback.id), delay: Math.max(0, Math.round(callback.delayMs)) },
      })),
    );
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}

/** SANDBOX_CALLBACKS=false (or no PARTNER_WEBHOOK_SECRET to sign with): sandbox partners stay silent. */
export class DisabledSandboxCallbacks implements SandboxCallbacks {
  async schedule(): Promise<void> {}
}
