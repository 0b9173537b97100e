// The floor bench:orders measures order creation against: raw Temporal workflow starts of a
// no-op workflow type (no worker polls its task queue) for BENCH_SECONDS with BENCH_CONNECTIONS
// starts in flight, from a plain-node process of its own (as the API process is), through the
// same Temporal server (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE) on BENCH_TASK_QUEUE. Each start is
// shaped as an order's (BENCH_START_SHAPE: the input and keyword search attributes of one the API
// started, and the same id policies), so the server does the same work for either.
// Prints one JSON line: {"perSecond": …, "p50": …, "p99": …, "started": …, "warmUpStarts": …,
// "cpuPerStart": this process's CPU µs per start}.
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { Client, Connection, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } = require('@temporalio/client');
const { defineSearchAttributeKey, SearchAttributeType } = require('@temporalio/common');

const seconds = Number(process.env.BENCH_SECONDS);
const inFlight = Number(process.env.BENCH_CONNECTIONS);
const taskQueue = process.env.BENCH_TASK_QUEUE;
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const shape = JSON.parse(process.env.BENCH_START_SHAPE);
const orderInput = {
  metadata: Object.fromEntries(Object.entries(shape.input.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
  data: Buffer.from(shape.input.data, 'base64'),
};
// The start's one argument goes out as the order's input went out (already encrypted): a codec
// that puts those bytes in its place.
const asOrderInput = { encode: async (payloads) => payloads.map(() => orderInput), decode: async (payloads) => payloads };
const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'labflow', dataConverter: { payloadCodecs: [asOrderInput] } });
const typedSearchAttributes = Object.entries(shape.keywords).map(([name, value]) => ({
  key: defineSearchAttributeKey(name, SearchAttributeType.KEYWORD),
  value,
}));

async function run(forMs) {
  const latencies = [];
  const until = performance.now() + forMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await client.workflow.start('benchNoop', {
          workflowId: `bench-raw:${randomUUID()}`,
          taskQueue,
          args: [null],
          typedSearchAttributes,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        });
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
