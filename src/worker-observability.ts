import type { INestApplicationContext } from '@nestjs/common';
import type { Worker } from '@temporalio/worker';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { registerQueueDepths } from './common/metrics/queue-depths';
import type { MetricsRegistry } from './common/metrics/registry';
import type { LabflowConfig, WorkerRole } from './config/config';
import { registerOutboxGauges } from './events/event-metrics';
import { OutboxRepository } from './events/outbox.repository';
import type { Dependency, Readiness } from './probes/readiness';
import { serveWorkerEndpoints } from './probes/worker-endpoints';

/** What a worker with these roles cannot work without: Postgres always, Redis for BullMQ roles. */
export function workerNeeds(roles: readonly WorkerRole[]): Dependency[] {
  const bullmq = roles.some((role) => role === 'relay' || role === 'delivery' || role === 'sandbox');
  return bullmq ? ['postgres', 'redis'] : ['postgres'];
}

export interface WorkerObservabilityOptions {
  roles: readonly WorkerRole[];
  readiness: Readiness;
  metrics: MetricsRegistry;
  /** The Temporal SDK's Prometheus exporter (installTemporalRuntime), appended to /metrics. */
  temporalMetricsUrl: string | null;
  /** Overrides WORKER_HEALTH_PORT (tests: 0). */
  port?: number;
}

/** The Temporal workers a worker process may run, by role, each a readiness check of its own. */
const TEMPORAL_WORKER_CHECKS = { temporal: 'temporal_worker', 'lab-reports': 'lab_report_worker' } as const;
export type TemporalWorkerCheck = (typeof TEMPORAL_WORKER_CHECKS)[keyof typeof TEMPORAL_WORKER_CHECKS];

export interface WorkerObservability {
  port: number;
  /**
   * Readiness asks it from now on: ready only while it is RUNNING. `check` names the readiness
   * check: `temporal_worker` (the order worker, `temporal` role) or `lab_report_worker`.
   */
  watchTemporalWorker(worker: Worker, check?: TemporalWorkerCheck): void;
  close(): Promise<void>;
}

/**
 * The worker's probes and metrics on WORKER_HEALTH_PORT: readiness over its roles' dependencies
 * (and, with the `temporal` role, the Temporal worker running), the outbox lag and BullMQ queue
 * gauges, the process's counters, and the Temporal SDK's own metrics scraped from its loopback
 * exporter into the same page, so one scrape target per worker carries them all.
 */
export async function startWorkerObservability(
  app: INestApplicationContext,
  config: LabflowConfig,
  options: WorkerObservabilityOptions,
): Promise<WorkerObservability> {
  const roles = new Set(options.roles);
  const temporalWorkers = new Map<TemporalWorkerCheck, Worker>();
  for (const [role, check] of Object.entries(TEMPORAL_WORKER_CHECKS)) {
    if (!roles.has(role as WorkerRole)) continue;
    options.readiness.add(check, async () => {
      const worker = temporalWorkers.get(check);
      const state = worker?.getState() ?? 'STARTING';
      if (state !== 'RUNNING') throw new Error(`The Temporal worker (${check}) is ${state.toLowerCase()}.`);
      return { state, taskQueue: worker?.options.taskQueue };
    });
  }

  const registry = options.metrics.registry;
  const closers: Array<() => Promise<void>> = [];
  if (config.metrics.enabled) {
    if (roles.has('relay') || roles.has('delivery')) registerOutboxGauges(registry, new OutboxRepository(app.get(DataSource)));
    const queues = [
      ...(roles.has('relay') || roles.has('delivery') ? [config.events.queueName] : []),
      ...(roles.has('sandbox') && config.sandboxCallbacks.enabled ? [config.sandboxCallbacks.queueName] : []),
    ];
    if (queues.length > 0) {
      const depths = registerQueueDepths(registry, config.redisUrl, queues);
      closers.push(() => depths.close());
    }
  }
  const temporalUp = new Gauge({
    name: 'labflow_temporal_metrics_up',
    help: "1 when the Temporal SDK's metrics exporter answered this scrape (its temporal_* series follow), else 0.",
    registers: config.metrics.enabled && options.temporalMetricsUrl ? [registry] : [],
  });

  const scrape = async (): Promise<string> => {
    const sdk = options.temporalMetricsUrl ? await fetchText(options.temporalMetricsUrl) : null;
    temporalUp.set(sdk === null ? 0 : 1);
    return `${await options.metrics.text()}${sdk ? `\n${sdk.endsWith('\n') ? sdk : `${sdk}\n`}` : ''}`;
  };
  const endpoints = await serveWorkerEndpoints({
    readiness: options.readiness,
    metrics: config.metrics.enabled ? scrape : null,
    metricsToken: config.metrics.token,
    host: config.api.host,
    port: options.port ?? config.workerHealthPort,
  });
  closers.push(() => endpoints.close());

  return {
    port: endpoints.port,
    watchTemporalWorker(worker, check = 'temporal_worker') {
      temporalWorkers.set(check, worker);
    },
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

async function fetchText(url: string): Promise<string | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok ? await response.text() : null;
  } catch {
    return null;
  }
}
