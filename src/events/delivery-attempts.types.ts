import type { DeliveryStatus } from './delivery-status';

/**
 * What deliveries and their attempts are made of, as DeliveriesRepository claims and finishes them
 * and the delivery worker, the metrics and the logs read them.
 */

export type DeliveryTarget = 'webhook' | 'rabbitmq';
export type AttemptStatus = 'sending' | 'succeeded' | 'failed' | 'interrupted';
export type AttemptTrigger = 'scheduled' | 'manual';

/** Everything one attempt needs, from the claim statement. */
export interface DeliveryContext {
  id: string;
  event_id: string;
  target: DeliveryTarget;
  endpoint_id: string | null;
  pipeline_id: string | null;
  /** The number of the attempt just started. */
  attempt_number: number;
  trigger: AttemptTrigger;
  /**
   * When the attempt was claimed (the delivery's last_attempt_at, Postgres's own text, microseconds
   * included): its row's created_at, written with the outcome.
   */
  claimed_at: string;
  event_type: string;
  team_id: string;
  environment: string;
  user_id: string;
  client_user_id: string;
  data_enc: string;
  event_created_at: Date;
  url: string | null;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  headers_enc: string | null;
  failing_since: Date | null;
  destinations_enc: string | null;
  /** The request the event goes back to (event_outbox.request_id), for the delivery's log line. */
  request_id: string | null;
}

/** What claiming a delivery found. */
export type Claim =
  /** Attempt started (counted; its row is written with the outcome, finishAttempts). */
  | { kind: 'claimed'; context: DeliveryContext }
  /** Pending but due later (a job that fired early, e.g. re-enqueued by a sweep). */
  | { kind: 'not_due'; atMs: number }
  /**
   * Due, but its webhook endpoint has a `rate_limit` the caller has not cleared yet: nothing was
   * changed. Take a slot from the limiter, then claim again with `rateLimitCleared`.
   */
  | { kind: 'rate_limited'; endpointId: string; rateLimit: number }
  /** Nothing to do: unknown, no longer pending, cancelled now (target disabled), or taken by another worker. */
  | { kind: 'none' };

/** What the claim fixed about an attempt, kept in memory until its row is written with the outcome. */
export type ClaimedAttempt = Pick<
  DeliveryContext,
  'id' | 'event_id' | 'target' | 'endpoint_id' | 'pipeline_id' | 'attempt_number' | 'trigger' | 'claimed_at' | 'url'
>;

export interface FinishedAttempt {
  claimed: ClaimedAttempt;
  /** Where it went, when not known at claim time (event destinations: masked URI + exchange). */
  url?: string;
  status: Exclude<AttemptStatus, 'sending' | 'interrupted'>;
  statusCode: number | null;
  /** What the endpoint answered, its first characters, sealed (PhiCipher.encrypt): it may echo the patient. */
  sealedResponseExcerpt: string | null;
  error: string | null;
  latencyMs: number;
  /** The delivery afterwards: still pending (retry after delayMs) or final. */
  delivery: { status: 'pending'; delayMs: number } | { status: Exclude<DeliveryStatus, 'pending'>; reason: string | null };
}
