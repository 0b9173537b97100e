/**
 * What bench:hl7 reads around each slice besides the servers' own CPU, to tell where a message's
 * round trip goes: how busy the whole machine was (are both CPUs full?), the CPU of the other
 * processes a message wakes (the hand-off, the Temporal server, the load generator), and the
 * listener's group commit as its metrics count it (rows per INSERT, how long a message waited for
 * its INSERT, how long the INSERT took to commit).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { cpuTicks, finishedChildrenTicks, machineBusyTicks, micros } from '../lib/cpu';

/**
 * The pid of the Temporal server (`temporal server start-dev`) that TEMPORAL_ADDRESS names (its
 * `--port`), else the first one found; null if none. The machine's is shared with whatever else uses it.
 */
export function temporalPid(): number | null {
  const port = /:(\d+)$/.exec(process.env.TEMPORAL_ADDRESS ?? '')?.[1];
  let first: number | null = null;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (!command.includes('temporal server start-dev') && !command.includes('temporal-server')) continue;
      if (port && command.includes(`--port ${port} `)) return Number(entry);
      first ??= Number(entry);
    } catch {
      // The process ended meanwhile.
    }
  }
  return first;
}

export interface Mark {
  at: number;
  machine: number | null;
  handOff: number | null;
  temporal: number | null;
  generator: number | null;
  store: StoreCounts | null;
  /** The hand-off's orders signalled (labflow_hl7_handoff_order_messages: count) and the messages they carried (sum). */
  signals: { orders: number; messages: number } | null;
}

/** Sums and counts of the listener's group-commit histograms (labflow_hl7_store_*). */
export interface StoreCounts {
  batches: number;
  rows: number;
  waitSeconds: number;
  commitSeconds: number;
}

async function metricValues(metricsUrl: string | null): Promise<((name: string) => number) | null> {
  if (!metricsUrl) return null;
  try {
    const text = await (await fetch(metricsUrl)).text();
    return (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  } catch {
    return null;
  }
}

async function signalCounts(metricsUrl: string | null): Promise<Mark['signals']> {
  const value = await metricValues(metricsUrl);
  if (!value) return null;
  const counts = { orders: value('labflow_hl7_handoff_order_messages_count'), messages: value('labflow_hl7_handoff_order_messages_sum') };
  return Number.isNaN(counts.orders) || Number.isNaN(counts.messages) ? null : counts;
}

async function storeCounts(metricsUrl: string | null): Promise<StoreCounts | null> {
  const value = await metricValues(metricsUrl);
  if (!value) return null;
  const counts = {
    batches: value('labflow_hl7_store_batch_rows_count'),
    rows: value('labflow_hl7_store_batch_rows_sum'),
    waitSeconds: value('labflow_hl7_store_wait_seconds_sum'),
    commitSeconds: value('labflow_hl7_store_commit_seconds_sum'),
  };
  return Object.values(counts).some(Number.isNaN) ? null : counts;
}

/** `metricsUrl`: the listener's metrics; `handOffMetricsUrl`: the process that hands over (the listener's own, or the hand-off's). */
export async function mark(handOffPid: number | null, temporal: number | null, metricsUrl: string | null, handOffMetricsUrl: string | null): Promise<Mark> {
  return {
    at: Date.now(),
    machine: machineBusyTicks(),
    handOff: handOffPid === null ? null : cpuTicks(handOffPid),
    temporal: temporal === null ? null : cpuTicks(temporal),
    generator: finishedChildrenTicks(),
    store: await storeCounts(metricsUrl),
    signals: await signalCounts(handOffMetricsUrl),
  };
}

/** Sums over the slices of one side: what the marks around each slice say. */
export class Observed {
  private wallMs = 0;
  private machine = 0;
  private handOff = 0;
  private temporal = 0;
  private generator = 0;
  private store: StoreCounts = { batches: 0, rows: 0, waitSeconds: 0, commitSeconds: 0 };
  private signals = { orders: 0, messages: 0 };
  private acked = 0;
  private loadSeconds = 0;

  /** `seconds`: how long the generator sent (the slice's wall time less its start-up). */
  add(before: Mark, after: Mark, acked: number, seconds: number): void {
    const delta = (a: number | null, b: number | null) => (a === null || b === null ? 0 : b - a);
    this.wallMs += after.at - before.at;
    this.machine += delta(before.machine, after.machine);
    this.handOff += delta(before.handOff, after.handOff);
    this.temporal += delta(before.temporal, after.temporal);
    this.generator += delta(before.generator, after.generator);
    if (before.store && after.store) {
      this.store.batches += after.store.batches - before.store.batches;
      this.store.rows += after.store.rows - before.store.rows;
      this.store.waitSeconds += after.store.waitSeconds - before.store.waitSeconds;
      this.store.commitSeconds += after.store.commitSeconds - before.store.commitSeconds;
    }
    if (before.signals && after.signals) {
      this.signals.orders += after.signals.orders - before.signals.orders;
      this.signals.messages += after.signals.messages - before.signals.messages;
    }
    this.acked += acked;
    this.loadSeconds += seconds;
  }

  /** One line for the report. */
  describe(connections: number): string {
    const per = (ticks: number) => `${Math.round(micros(ticks) / Math.max(1, this.acked))} µs`;
    const busy = (micros(this.machine) / 1000 / (this.wallMs * cpus().length)) * 100;
    const parts = [
      `machine busy ${busy.toFixed(0)}% of its ${cpus().length} CPUs`,
      `CPU per message: load generator ${per(this.generator)}, hand-off ${per(this.handOff)}, Temporal server ${per(this.temporal)}, whole machine ${per(this.machine)}`,
    ];
    if (this.signals.orders > 0) {
      parts.push(
        `hand-off: ${(this.signals.messages / this.signals.orders).toFixed(2)} messages per order signalled (${this.signals.orders} orders signalled), Temporal server ${Math.round(micros(this.temporal) / this.signals.orders)} µs per order signalled`,
      );
    }
    if (this.store.batches > 0) {
      parts.push(
        `group commit: ${(this.store.rows / this.store.batches).toFixed(2)} rows per INSERT, a message waited ${((this.store.waitSeconds / this.store.rows) * 1000).toFixed(2)} ms for its INSERT, an INSERT took ${((this.store.commitSeconds / this.store.batches) * 1000).toFixed(2)} ms to commit, round trip ${(((this.loadSeconds * 1000) / Math.max(1, this.acked)) * connections).toFixed(2)} ms per message over ${connections} connections`,
      );
    }
    return parts.join('; ');
  }
}
