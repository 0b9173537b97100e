import type { PhiCipher } from '../common/crypto';
import type { EventsConfig } from '../config/config';
import { maskAmqpUri } from './amqp-uri';
import { envelopeJson } from './catalogue';
import type { EtlDestinations } from './destinations';
import { eventMetrics } from './event-metrics';
import type { DeliveryContext, FinishedAttempt } from './delivery-attempts.types';
import type { DeliveryStore } from './delivery-batches';
import type { RabbitMqPublisher } from './rabbitmq.publisher';
import type { EndpointRateLimiter } from './rate-limiter';
import { nextStep } from './retry-policy';
import { signingSecrets } from './signing-secrets';
import { Slots } from './slots';
import { type SendOutcome, TargetSends } from './target-sends';
import { type PostResult, signatureHeaders, USER_AGENT, type WebhookSender } from './webhook-sender';

/**
 * A webhook request or a RabbitMQ publish ends this long before its claim's lease at the latest:
 * room for a late timer on a busy event loop. Past the lease another worker may claim the
 * delivery, so a request still open then could be sent twice at once.
 */
const LEASE_MARGIN_MS = 1_000;

/** The error of an attempt that was not sent: it waited for a free slot until its claim ran out. */
const NOT_SENT = 'Not sent: the attempt waited for a free connection until its claim ran out';

/** What the queue should do with the job next (`not_started`: the worker is stopping, hand it on). */
export type ProcessResult = { kind: 'done' } | { kind: 'later'; atMs: number } | { kind: 'not_started' };

export interface DeliveryLogger {
  warn(message: string): void;
  /** One line per attempt (pino's signature); loggers without it get only the warnings. */
  info?(fields: Record<string, unknown>, message: string): void;
}

/**
 * One delivery attempt, start to finish. Postgres is the truth: the processor reads the
 * delivery, skips it when it is no longer pending or not yet due, counts the attempt before
 * sending (so an attempt of a worker killed mid-flight is recorded `interrupted` by the next
 * claim), sends, then writes the attempt with its outcome and the delivery's next due time in one
 * statement.
 *
 * A webhook endpoint's `rate_limit` is enforced before the claim: a delivery the limiter refuses
 * is handed back to the queue for later (same job, same place in Postgres) without being counted,
 * recorded or rescheduled — it simply runs a little later.
 *
 * The webhook id (webhook-id / svix-id) is the event id: the same for every attempt and every
 * endpoint of an event, so receivers de-duplicate on it.
 */
export class DeliveryProcessor {
  constructor(
    private readonly repo: DeliveryStore,
    private readonly cipher: PhiCipher,
    private readonly sender: WebhookSender,
    private readonly rabbit: RabbitMqPublisher,
    private readonly rateLimiter: EndpointRateLimiter,
    private readonly config: EventsConfig,
    private readonly logger: DeliveryLogger = console,
  ) {
    this.sends = new Slots(config.concurrency);
    this.attempts = new Slots(2 * config.concurrency);
    this.targetSends = new TargetSends(config.concurrency);
  }

  /** A target's share of `sends`, so one that does not answer cannot hold them all. */
  private readonly targetSends: TargetSends;

  /** Requests or publishes in flight: at most EVENTS concurrency (the HTTP agent's sockets). */
  private readonly sends: Slots;
  /**
   * Attempts between their claim and their send: up to twice the concurrency, so the next
   * deliveries are claimed while the previous ones are sent, and an attempt's lease (which runs
   * from its claim) is not spent waiting for a socket.
   */
  private readonly attempts: Slots;

  async process(deliveryId: string, options: { stopping?: () => boolean } = {}): Promise<ProcessResult> {
    const attemptSlot = await this.attempts.acquire();
    try {
      // Deliveries of a bundle that did not start before the worker began to stop are handed on.
      if (options.stopping?.()) return { kind: 'not_started' };
      // Taken before the claim is asked for, so it is no later than the lease's start in Postgres.
      const claimAskedAt = performance.now();
      let claim = await this.repo.claim(deliveryId);
      if (claim.kind === 'rate_limited') {
        const admission = await this.rateLimiter.admit(claim.endpointId, claim.rateLimit);
        if (admission.kind === 'held') return { kind: 'later', atMs: admission.atMs };
        claim = await this.repo.claim(deliveryId, { rateLimitCleared: true });
      }
      if (claim.kind === 'none' || claim.kind === 'rate_limited') return { kind: 'done' };
      if (claim.kind === 'not_due') return { kind: 'later', atMs: claim.atMs };
      const sendBy = claimAskedAt + this.repo.leaseMs - LEASE_MARGIN_MS;
      return claim.context.target === 'webhook'
        ? await this.deliverWebhook(claim.context, attemptSlot, sendBy)
        : await this.publishToRabbitMq(claim.context, attemptSlot, sendBy);
    } finally {
      attemptSlot();
    }
  }

  /** `sendBy` (performance.now() time): the request is over by then, whatever the delivery timeout. */
  private async deliverWebhook(context: DeliveryContext, releaseAttemptSlot: () => void, sendBy: number): Promise<ProcessResult> {
    const endpointId = context.endpoint_id as string;

    const body = envelopeJson(context, this.cipher.decrypt(context.data_enc));
    const secrets = signingSecrets(
      {
        secretEnc: context.secret_enc as string,
        previousSecretEnc: context.previous_secret_enc,
        previousSecretExpiresAt: context.previous_secret_expires_at,
      },
      this.cipher,
    );
    const custom = context.headers_enc ? this.cipher.decryptJson<Record<string, string>>(context.headers_enc) : {};
    const result = await this.sendTo(
      endpointId,
      sendBy,
      async (timeoutMs) => {
        const post = await this.sender.post({
          url: context.url as string,
          body,
          timeoutMs,
          headers: {
            ...custom,
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            ...signatureHeaders(context.event_id, new Date(), body, secrets),
          },
        });
        return { value: post, outcome: post.statusCode !== null ? 'answered' : 'unanswered' };
      },
      notSent,
    );
    // Sent: recording the outcome (grouped with other deliveries' outcomes) need not hold a slot.
    releaseAttemptSlot();
    const step = nextStep(context.attempt_number, result, this.config.retryScheduleMs);
    const finished: FinishedAttempt = {
      claimed: context,
      status: step.kind === 'succeeded' ? 'succeeded' : 'failed',
      statusCode: result.statusCode,
      sealedResponseExcerpt: result.responseExcerpt === null ? null : this.cipher.encrypt(result.responseExcerpt),
      error: result.error ?? (step.kind === 'succeeded' ? null : `HTTP ${result.statusCode}`),
      latencyMs: result.latencyMs,
      delivery: deliveryState(step),
    };
    const manualWaiting = await this.repo.finishAttempt(finished);
    eventMetrics.attemptFinished('webhook', context.attempt_number, finished);
    this.logAttempt(context, finished);

    if (step.kind === 'succeeded') {
      if (context.failing_since) await this.repo.endpointRecovered(endpointId);
    } else if (step.kind === 'gone') {
      if (await this.repo.disableEndpoint(endpointId, 'gone')) {
        this.logger.warn(`[labflow] webhook endpoint ${endpointId} answered 410 Gone: disabled`);
      }
    } else {
      const failingTooLong = await this.repo.endpointFailed(endpointId, this.config.disableAfterMs);
      if (failingTooLong && (await this.repo.disableEndpoint(endpointId, 'failing'))) {
        this.logger.warn(`[labflow] webhook endpoint ${endpointId} has failed without a success for longer than WEBHOOK_DISABLE_AFTER: disabled`);
      }
      if (step.kind === 'exhausted') {
        this.logger.warn(`[labflow] webhook delivery ${context.id} (event ${context.event_id}) exhausted after ${context.attempt_number} attempts`);
      }
    }
    return afterAttempt(step, manualWaiting);
  }

  /**
   * Runs `send` in one of the target's slots (TargetSends), then one of the worker's (`sends`),
   * with what is left of the lease as its timeout, and tells the target what the send learnt of it.
   * Not sent (`notSentResult` of why): the target is not answering, or the lease ran out while the
   * attempt waited. An attempt may wait for a free connection for up to one delivery timeout (twice
   * as many attempts as connections), then send for another: longer than its lease; so what is left
   * of the lease bounds the request, and with nothing left it is not sent and counts as a failed
   * attempt, retried on the schedule like any other. (The sender never waits longer than the
   * delivery timeout, whatever is left.)
   */
  private async sendTo<T>(
    target: string,
    sendBy: number,
    send: (timeoutMs: number) => Promise<{ value: T; outcome: SendOutcome }>,
    notSentResult: (reason: string) => T,
  ): Promise<T> {
    const release = await this.targetSends.acquire(target);
    if (typeof release !== 'function') return notSentResult(release.refused);
    let outcome: SendOutcome = 'not_sent';
    try {
      return await this.sends.run(async () => {
        const timeoutMs = Math.floor(sendBy - performance.now());
        if (timeoutMs <= 0) return notSentResult(NOT_SENT);
        const sent = await send(timeoutMs);
        outcome = sent.outcome;
        return sent.value;
      });
    } finally {
      release(outcome);
    }
  }

  private logAttempt(context: DeliveryContext, finished: FinishedAttempt): void {
    this.logger.info?.(attemptLogFields(context, finished), `${context.target} delivery attempt ${finished.status}`);
  }

  /** `sendBy` (performance.now() time): the publish is over by then, as a webhook's request (deliverWebhook). */
  private async publishToRabbitMq(context: DeliveryContext, releaseAttemptSlot: () => void, sendBy: number): Promise<ProcessResult> {
    const destination = context.destinations_enc ? this.cipher.decryptJson<EtlDestinations>(context.destinations_enc).rabbitmq : undefined;

    const body = Buffer.from(envelopeJson(context, this.cipher.decrypt(context.data_enc)), 'utf8');
    const started = performance.now();
    let error: string | null = null;
    if (!destination) error = 'The pipeline has no RabbitMQ configuration.';
    else {
      error = await this.sendTo(
        context.pipeline_id as string,
        sendBy,
        async (timeoutMs) => {
          try {
            await this.rabbit.publish(
              destination.uri,
              {
                exchange: destination.exchange,
                routingKey: context.event_type,
                messageId: context.event_id,
                body,
                timestamp: Math.floor(new Date(context.event_created_at).getTime() / 1000),
                headers: { team_id: context.team_id, environment: context.environment },
              },
              { timeoutMs },
            );
            return { value: null, outcome: 'answered' };
          } catch (failure) {
            return { value: failure instanceof Error ? failure.message : String(failure), outcome: 'unanswered' };
          }
        },
        (reason) => reason,
      );
    }
    releaseAttemptSlot();
    const step = nextStep(context.attempt_number, { statusCode: error ? null : 200, retryAfterMs: null }, this.config.retryScheduleMs);
    const finished: FinishedAttempt = {
      claimed: context,
      url: destination ? `${maskAmqpUri(destination.uri)}#${destination.exchange}` : undefined,
      status: error ? 'failed' : 'succeeded',
      statusCode: null,
      sealedResponseExcerpt: null,
      error,
      latencyMs: Math.round(performance.now() - started),
      delivery: deliveryState(step),
    };
    const manualWaiting = await this.repo.finishAttempt(finished);
    eventMetrics.attemptFinished('rabbitmq', context.attempt_number, finished);
    this.logAttempt(context, finished);
    if (step.kind === 'exhausted') {
      this.logger.warn(`[labflow] event destination delivery ${context.id} (event ${context.event_id}) exhausted`);
    }
    return afterAttempt(step, manualWaiting);
  }
}

function notSent(error: string): PostResult {
  return { statusCode: null, retryAfterMs: null, responseExcerpt: null, error, latencyMs: 0 };
}

/**
 * What the job does after an attempt: runs again at the retry's time, or now when a manual
 * attempt was asked for while this one was in flight (the relay's job for it may have been
 * swallowed by this one, which has the same id), or is done. In a bundle the follow-up job may
 * itself be swallowed by the relay's, which runs when this attempt's lease ends: later, not lost.
 */
function afterAttempt(step: ReturnType<typeof nextStep>, manualWaiting: boolean): ProcessResult {
  if (manualWaiting) return { kind: 'later', atMs: Date.now() };
  return step.kind === 'retry' ? { kind: 'later', atMs: Date.now() + step.delayMs } : { kind: 'done' };
}

/**
 * The log line of an attempt: ids, outcome and timing, and the request the event goes back to.
 * Never the body, the URL (it may carry a token) or the response.
 */
function attemptLogFields(context: DeliveryContext, finished: FinishedAttempt): Record<string, unknown> {
  return {
    deliveryId: context.id,
    eventId: context.event_id,
    eventType: context.event_type,
    target: context.target,
    endpointId: context.endpoint_id ?? undefined,
    pipelineId: context.pipeline_id ?? undefined,
    teamId: context.team_id,
    attempt: context.attempt_number,
    outcome: finished.status,
    statusCode: finished.statusCode ?? undefined,
    latencyMs: finished.latencyMs,
    next: finished.delivery.status,
    ...(context.request_id ? { requestId: context.request_id } : {}),
  };
}

function deliveryState(step: ReturnType<typeof nextStep>): FinishedAttempt['delivery'] {
  switch (step.kind) {
    case 'succeeded':
      return { status: 'succeeded', reason: null };
    case 'gone':
      return { status: 'cancelled', reason: 'endpoint_gone' };
    case 'exhausted':
      return { status: 'exhausted', reason: 'retries_exhausted' };
    case 'retry':
      return { status: 'pending', delayMs: step.delayMs };
  }
}
