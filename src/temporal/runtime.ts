import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { freeLoopbackPort } from '../common/free-port';
import type { Logger } from '../common/logger';

export interface TemporalRuntimeOptions {
  /**
   * The process logger: the SDK's own messages, workflow `log` calls, activity context logs and
   * the native core's forwarded lines go here. Absent: the SDK's default (stderr).
   */
  logger?: Logger;
  /**
   * Serve the SDK's own metrics (task slots, poll and schedule-to-start latencies, sticky cache)
   * through the core's Prometheus exporter on this loopback port; 0 picks a free one. Absent: no
   * SDK metrics. The worker's /metrics fetches and appends them (src/worker-observability.ts), so
   * ops scrape one port per process and the exporter itself is never reachable from outside.
   */
  prometheusPort?: number;
}

export interface InstalledTemporalRuntime {
  /** Where the SDK's Prometheus exporter answers, or null without one. */
  prometheusUrl: string | null;
  /**
   * Stops the runtime if no Worker or NativeConnection did (the SDK stops it after the last one
   * closes). A process that made neither (a worker of the hl7 or relay roles alone) would
   * otherwise never exit: the runtime's log forwarding holds the event loop open.
   */
  shutdown(): Promise<void>;
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Temporal's Logger interface over pino. Workflow and activity attributes (workflowId, runId,
 * activityType, requestId, …) become fields of the line; `sdkComponent` says which part spoke.
 */
export function temporalLoggerFor(logger: Logger): TemporalLogger {
  const temporal = logger.child({ component: 'temporal' });
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fields: Record<string, unknown> = {};
    // Symbol keys (the SDK's internal markers) are not log fields.
    for (const [key, value] of Object.entries(meta ?? {})) fields[key === 'error' || key === 'failure' ? 'err' : key] = value;
    temporal[PINO_LEVEL[level]](fields, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/** Core's own debug and trace output is a firehose of polls: INFO at most (at debug and trace), WARN otherwise. */
function coreLogLevel(logger: Logger): LogLevel {
  return logger.isLevelEnabled('debug') ? 'INFO' : 'WARN';
}

/**
 * Installs the process's Temporal Runtime (logging and telemetry) before the first
 * NativeConnection or Worker is made; once per process. Every setting of the core runtime is
 * decided here.
 */
export async function installTemporalRuntime(options: TemporalRuntimeOptions = {}): Promise<InstalledTemporalRuntime> {
  const port = options.prometheusPort === undefined ? null : options.prometheusPort || (await freeLoopbackPort());
  const runtime = Runtime.install({
    ...(options.logger ? { logger: temporalLoggerFor(options.logger) } : {}),
    telemetryOptions: {
      ...(options.logger ? { logging: { filter: { core: coreLogLevel(options.logger), other: 'ERROR' }, forward: {} } } : {}),
      metrics:
        port === null
          ? undefined
          : {
              // Durations in seconds named _seconds, counters ending in _total: Prometheus conventions, as labflow's own metrics.
              prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true, unitSuffix: true, countersTotalSuffix: true },
            },
    },
  });
  return {
    prometheusUrl: port === null ? null : `http://127.0.0.1:${port}/metrics`,
    // Runtime.shutdown is marked internal in the SDK's typings but is its only way to stop an idle runtime; a second call does nothing.
    shutdown: () => runtime.shutdown(),
  };
}
