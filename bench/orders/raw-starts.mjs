// The floor bench:orders measures order creation against: raw Temporal workflow starts of a
// no-op workflow type (no worker polls its task queue) for BENCH_SECONDS with BENCH_CONNECTIONS
// starts in flight, from a plain-node process of its own (as the API process is), through the
// same Temporal server (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE) on BENCH_TASK_QUEUE.
// Prints one JSON line: {"perSecond": …, "p50": …, "p99": …, "started": …, "warmUpStarts": …,
// "cpuPerStart": this process's CPU µs per start}.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { Client, Connection } = require('@temporalio/client');

const seconds = Number(process.env.BENCH_SECONDS);
const inFlight = Number(process.env.BENCH_CONNECTIONS);
const taskQueue = process.env.BENCH_TASK_QUEUE;
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'labflow' });

async function run(forMs) {
  const latencies = [];
  const until = performance.now() + forMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await client.workflow.start('benchNoop', { workflowId: `bench-raw:${randomUUID()}`, taskQueue, args: [] });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { elapsed: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b) };
}

const warmUp = await run(1000); // warm-up: connection, JIT
const cpuBefore = process.cpuUsage();
const { elapsed, latencies } = await run(seconds * 1000);
const cpu = process.cpuUsage(cpuBefore);
const quantile = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
console.log(
  JSON.stringify({
    perSecond: latencies.length / elapsed,
    p50: quantile(0.5),
    p99: quantile(0.99),
    started: latencies.length,
    warmUpStarts: warmUp.latencies.length,
    cpuPerStart: Math.round((cpu.user + cpu.system) / latencies.length),
  }),
);
await connection.close();
