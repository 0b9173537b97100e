import { UnrecoverableError, Worker } from 'bullmq';
import Redis from 'ioredis';
import { errorListener } from '../../common/logger';
import { signPartnerWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../partner-signature';
import type { SandboxCallbackJobData } from './sandbox-callbacks';

export interface SandboxCallbackProcessorOptions {
  redisUrl: string;
  queueName: string;
  /** labflow's API base URL (PUBLIC_API_URL; tests pass the URL their API listens on). */
  baseUrl: string;
  /** PARTNER_WEBHOOK_SECRET: callbacks are signed like a real partner's. */
  secret: string;
  /** Per-request timeout. */
  timeoutMs?: number;
  concurrency?: number;
  logger?: { warn(message: string): void };
}

export interface SandboxCallbackProcessor {
  /** Stops taking jobs and waits for running ones (`force`: abandons them, as a crash would). */
  stop(force?: boolean): Promise<void>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Thrown for answers worth retrying (network errors, 5xx, 429): BullMQ retries with backoff. */
class RetryableCallbackError extends Error {}

/**
 * Sends due sandbox callbacks: POSTs each job's body (with the job id as its `event_id`) to
 * `baseUrl + path`, signed with the partner webhook signature. Network errors, 5xx and 429 are retried with the job's backoff; any other
 * 4xx is logged and the job given up (the callback was refused for good, e.g. the order is gone).
 * Delayed jobs wait in Redis, so callbacks scheduled before a restart are sent after it.
 */
export function startSandboxCallbackProcessor(options: SandboxCallbackProcessorOptions): SandboxCallbackProcessor {
  const logger = options.logger ?? console;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', errorListener(logger, 'Redis (sandbox callbacks)'));
  const worker = new Worker<SandboxCallbackJobData>(
    options.queueName,
    async (job) => {
      const timestamp = Math.floor(Date.now() / 1000);
      // The job id (one per callback, the same on every retry) is the report's event_id: a retry
      // after labflow took the report but the answer was lost changes nothing.
      const body = job.id !== undefined && isObject(job.data.body) ? { event_id: `sandbox-callback-${job.id}`, ...job.data.body } : job.data.body;
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${job.data.path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [TIMESTAMP_HEADER]: String(timestamp),
            [SIGNATURE_HEADER]: signPartnerWebhook(options.secret, timestamp, body),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
      } catch (error) {
        throw new RetryableCallbackError(`sandbox callback ${job.id} to ${job.data.path} failed: ${String(error)}`);
      }
      const text = await response.text().catch(() => '');
      if (response.ok) return;
      if (response.status >= 500 || response.status === 429) {
        throw new RetryableCallbackError(`sandbox callback ${job.id} to ${job.data.path}: ${response.status} ${text.slice(0, 200)}`);
      }
      logger.warn(`[labflow] sandbox callback ${job.id} to ${job.data.path} refused (${response.status}), giving up: ${text.slice(0, 200)}`);
      throw new UnrecoverableError(`refused with ${response.status}`);
    },
    { connection, concurrency: options.concurrency ?? 10, autorun: false },
  );
  worker.on('error', errorListener(logger, 'BullMQ sandbox callback worker'));
  worker.on('failed', (job, error) => {
    if (job && !(error instanceof UnrecoverableError) && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      logger.warn(`[labflow] sandbox callback ${job.id} gave up after ${job.attemptsMade} attempts: ${error.message}`);
    }
  });
  void worker.run().catch(errorListener(logger, 'BullMQ sandbox callback worker stopped'));
  let stopped: Promise<void> | null = null;
  return {
    stop(force = false) {
      stopped ??= (async () => {
        await worker.close(force).catch(() => undefined);
        connection.disconnect();
      })();
      return stopped;
    },
  };
}
