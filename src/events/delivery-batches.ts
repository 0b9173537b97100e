import type { EventsConfig } from '../config/config';
import type { DeliveriesRepository } from './deliveries.repository';
import type { Claim, FinishedAttempt } from './delivery-attempts.types';
import { MicroBatcher } from '../common/micro-batcher';

/**
 * What DeliveryProcessor needs of Postgres (grouped: DeliveryBatches), and how long its claims
 * reserve a delivery: the processor ends a request before that lease runs out, so both must
 * come from one place.
 */
export type DeliveryStore = Pick<DeliveriesRepository, 'claim' | 'finishAttempt' | 'endpointRecovered' | 'endpointFailed' | 'disableEndpoint'> & {
  readonly leaseMs: number;
};

/**
 * How long a claimed delivery is reserved for its attempt: the whole attempt (the delivery
 * timeout, and a margin for recording the outcome), but never longer than a job lock, after
 * which BullMQ gives a dead worker's job to another.
 */
export function claimLeaseMs(config: Pick<EventsConfig, 'deliveryTimeoutMs' | 'jobLockMs'>): number {
  return Math.min(config.deliveryTimeoutMs + 5_000, config.jobLockMs);
}

/** Claims or outcomes per statement at most. */
export const DELIVERY_BATCH = 100;

/**
 * The delivery worker's DeliveriesRepository with claims and outcomes grouped across its
 * concurrent jobs (MicroBatcher): each job still claims before it sends and records the outcome
 * before it completes, but a statement and its commit serve every job that got there meanwhile.
 * Two statements of each kind may run at once, so a batch is filled while the previous commits.
 */
export class DeliveryBatches implements DeliveryStore {
  private readonly claims: MicroBatcher<{ deliveryId: string; rateLimitCleared: boolean }, Claim>;
  private readonly outcomes: MicroBatcher<FinishedAttempt, boolean>;

  /** How long a claimed delivery is not due for anyone else (claimMany). */
  readonly leaseMs: number;

  constructor(
    private readonly repo: DeliveriesRepository,
    config: Pick<EventsConfig, 'deliveryTimeoutMs' | 'jobLockMs'>,
    options: { maxBatch?: number; maxInFlight?: number } = {},
  ) {
    const leaseMs = claimLeaseMs(config);
    this.leaseMs = leaseMs;
    const batching = { maxBatch: options.maxBatch ?? DELIVERY_BATCH, maxInFlight: options.maxInFlight ?? 2 };
    this.claims = new MicroBatcher((requests) => repo.claimMany(requests, leaseMs), { ...batching, key: (request) => request.deliveryId });
    this.outcomes = new MicroBatcher(
      async (attempts) => {
        const manualWaiting = await repo.finishAttempts(attempts);
        return attempts.map((attempt) => manualWaiting.has(attempt.claimed.id));
      },
      { ...batching, key: (attempt) => attempt.claimed.id },
    );
  }

  claim(deliveryId: string, options: { rateLimitCleared?: boolean } = {}): Promise<Claim> {
    return this.claims.submit({ deliveryId, rateLimitCleared: options.rateLimitCleared === true });
  }

  finishAttempt(attempt: FinishedAttempt): Promise<boolean> {
    return this.outcomes.submit(attempt);
  }

  endpointRecovered(endpointId: string): Promise<void> {
    return this.repo.endpointRecovered(endpointId);
  }

  endpointFailed(endpointId: string, disableAfterMs: number): Promise<boolean> {
    return this.repo.endpointFailed(endpointId, disableAfterMs);
  }

  disableEndpoint(endpointId: string, reason: string): Promise<boolean> {
    return this.repo.disableEndpoint(endpointId, reason);
  }
}
