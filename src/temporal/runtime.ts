import { Runtime } from '@temporalio/worker';
import { freeLoopbackPort } from '../common/free-port';

export interface TemporalRuntimeOptions {
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
}

/**
 * Installs the process's Temporal Runtime (telemetry) before the first NativeConnection or Worker
 * is made; once per process. Every setting of the core runtime is decided here.
 */
export async function installTemporalRuntime(options: TemporalRuntimeOptions = {}): Promise<InstalledTemporalRuntime> {
  const port = options.prometheusPort === undefined ? null : options.prometheusPort || (await freeLoopbackPort());
  Runtime.install({
    telemetryOptions: {
      metrics:
        port === null
          ? undefined
          : {
              // Durations in seconds named _seconds, counters ending in _total: Prometheus conventions, as labflow's own metrics.
              prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true, unitSuffix: true, countersTotalSuffix: true },
            },
    },
  });
  return { prometheusUrl: port === null ? null : `http://127.0.0.1:${port}/metrics` };
}
