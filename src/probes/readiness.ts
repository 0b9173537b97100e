import { type BeforeApplicationShutdown, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, type HealthIndicatorResult, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { REDIS, TEMPORAL_CLIENT } from '../core.tokens';

/** The shared dependencies a process may need to serve: each process names its own (HealthModule.forRoot). */
export type Dependency = 'postgres' | 'redis' | 'temporal';

export const READINESS_NEEDS = Symbol('READINESS_NEEDS');

/** No single check may hold a probe longer than this (a paused Redis would never answer). */
const CHECK_TIMEOUT_MS = 2000;

export interface ReadinessReport {
  status: 'ok' | 'error';
  /** One entry per check: `{status: 'up' | 'down', ...details}`. */
  checks: Record<string, { status: string; [detail: string]: unknown }>;
}

export type Check = () => Promise<HealthIndicatorResult>;

/**
 * Postgres, Redis and Temporal-client checks (terminus indicators), each bounded by CHECK_TIMEOUT_MS.
 * A Temporal call past that bound is reported down but runs on to its own deadline; the app's
 * shutdown waits for it before CoreModule closes the connection (beforeApplicationShutdown).
 */
@Injectable()
export class DependencyHealth implements BeforeApplicationShutdown {
  /** Temporal calls of checks not ended yet, answered or not. */
  private readonly temporalCalls = new Set<Promise<unknown>>();
  private closing = false;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly typeorm: TypeOrmHealthIndicator,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
  ) {}

  check(dependency: Dependency): Check {
    switch (dependency) {
      case 'postgres':
        return () => this.typeorm.pingCheck('postgres', { timeout: CHECK_TIMEOUT_MS });
      case 'redis':
        return () => this.bounded('redis', () => this.redisUp());
      case 'temporal':
        return () => this.bounded('temporal', () => this.temporalUp());
    }
  }

  /** A check under a name of the process's own (the worker's `temporal_worker`). */
  custom(name: string, probe: () => Promise<Record<string, unknown>>): Check {
    return () =>
      this.bounded(name, async () => {
        const check = this.indicators.check(name);
        try {
          return check.up(await probe());
        } catch (error) {
          return check.down({ message: (error as Error).message });
        }
      });
  }

  private async redisUp(): Promise<HealthIndicatorResult> {
    const check = this.indicators.check('redis');
    try {
      // Just after start-up the connection may still be opening: give it a moment.
      if (this.redis.status !== 'ready') await Promise.race([once(this.redis, 'ready'), sleep(1000)]);
      await this.redis.ping();
      return check.up();
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }

  private async temporalUp(): Promise<HealthIndicatorResult> {
    const check = this.indicators.check('temporal');
    try {
      // One call with the check's own deadline, not connection.ensureConnected(): that waits up to
      // the connection's connectTimeout (10 s) with no way to cancel it, keeps its failure for good
      // (Temporal down at the first probe would read as down ever after), and a wait still pending
      // when the connection closes makes grpc-js reconnect the closed channel until that deadline.
      // The client's retries of UNAVAILABLE stop at the deadline (give or take one backoff).
      if (this.closing) throw new Error('shutting down');
      const deadline = Date.now() + CHECK_TIMEOUT_MS;
      const call = this.temporal.connection.withDeadline(deadline, () => this.temporal.workflowService.getSystemInfo({}));
      this.temporalCalls.add(call);
      void call.catch(() => undefined).finally(() => this.temporalCalls.delete(call));
      const { serverVersion } = await call;
      return check.up({ namespace: this.temporal.options.namespace, serverVersion: serverVersion ?? 'unknown' });
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }

  /**
   * Before CoreModule closes the Temporal connection (onApplicationShutdown runs after every
   * beforeApplicationShutdown): waits for the checks' Temporal calls still running, at most their
   * deadline plus one retry backoff. Closed under a call waiting to be retried, the client's retry
   * timer runs on, holding up the process's exit, and then throws "Channel has been shut down"
   * from the timer (an uncaught exception). Temporal checks from now on answer down at once.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.temporalCalls]);
  }

  private async bounded(name: string, run: () => Promise<HealthIndicatorResult>): Promise<HealthIndicatorResult> {
    const timeout = new AbortController();
    try {
      return await Promise.race([
        run(),
        sleep(CHECK_TIMEOUT_MS, undefined, { signal: timeout.signal }).then(() =>
          this.indicators.check(name).down({ message: `no answer within ${CHECK_TIMEOUT_MS} ms` }),
        ),
      ]);
    } finally {
      timeout.abort();
    }
  }
}

/**
 * Readiness of this process: the dependencies it named plus checks it adds itself. Liveness is
 * not here on purpose: a process that runs answers /health/live whatever its dependencies do,
 * so an orchestrator restarts it only when it is stuck, never because Redis is down.
 */
@Injectable()
export class Readiness {
  private readonly checks: Check[];

  constructor(
    private readonly health: HealthCheckService,
    private readonly dependencies: DependencyHealth,
    @Inject(READINESS_NEEDS) needs: Dependency[],
  ) {
    this.checks = needs.map((need) => dependencies.check(need));
  }

  /** Adds a check of the process's own, e.g. the worker's "Temporal worker running". */
  add(name: string, probe: () => Promise<Record<string, unknown>>): void {
    this.checks.push(this.dependencies.custom(name, probe));
  }

  async report(): Promise<ReadinessReport> {
    try {
      const result = await this.health.check(this.checks);
      return { status: 'ok', checks: result.details as ReadinessReport['checks'] };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as { details?: ReadinessReport['checks'] };
      return { status: 'error', checks: result.details ?? {} };
    }
  }
}

/** The failing checks of a report, in words: `redis: Connection is closed.; temporal: ...`. */
export function describeFailures(report: ReadinessReport): string {
  const failing = Object.entries(report.checks).filter(([, check]) => check.status !== 'up');
  return `Not ready: ${failing.map(([name, check]) => (typeof check.message === 'string' ? `${name} (${check.message})` : name)).join(', ')}.`;
}
