// The floor bench:webhooks measures deliveries against: BENCH_EVENTS no-op jobs through BullMQ on
// REDIS_URL, BENCH_CONCURRENCY at a time, added in bulks of 1,000 — the ceiling the queue alone
// allows. Plain JavaScript on plain node, like the delivery process it is compared with (ts-node
// loads node:domain, whose async hooks tax every promise). Prints one JSON line:
// {"perSecond": …, "cpuMicros": …, "redisMicros": …, "machineMicros": …} (CPU time over the
// measured part: this process's, the Redis server's when it runs on this machine, and all CPUs'
// busy time, as bench/lib/cpu.ts reads it for the delivery side; null where /proc cannot tell).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { Queue, Worker } = require('bullmq');
const Redis = require('ioredis');

const events = Number(process.env.BENCH_EVENTS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const name = `bench-noop-${randomUUID().slice(0, 8)}`;
// As the delivery worker's connections (src/events/delivery-queue.ts workerConnection).
const connection = () => new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: null });

const warmup = Number(process.env.BENCH_WARMUP ?? 0);
const queue = new Queue(name, { connection: connection() });
let done = 0;
let target = 0;
let finish;
const worker = new Worker(
  name,
  async () => {
    if (++done === target) finish();
  },
  { connection: connection(), concurrency, autorun: false },
);
void worker.run();

/** `count` jobs added in bulks of 1,000 while the worker runs them; resolves when all ran. */
async function batch(count) {
  target = done + count;
  const finished = new Promise((resolve) => (finish = resolve));
  for (let i = 0; i < count; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({
        name: 'noop',
        data: { i: i + j },
        opts: { jobId: randomUUID(), removeOnComplete: true, removeOnFail: true },
      })),
    );
  }
  await finished;
}

/** Clock ticks: /proc/<pid>/stat's utime + stime, or /proc/stat's busy fields (as bench/lib/cpu.ts). */
function ticks(pid) {
  try {
    if (pid === 'machine') {
      const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      return user + nice + system + irq + softirq + steal;
    }
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}
const info = await (await queue.client).info('server');
const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
// /proc counts in USER_HZ, 100 a second on Linux (bench/lib/cpu.ts asks getconf CLK_TCK).
const microsSince = (before, after) => (before === null || after === null ? null : ((after - before) * 1e6) / 100);

// Warm-up (BENCH_WARMUP jobs, not measured; run.ts gives the delivery process the same).
if (warmup > 0) await batch(warmup);
const cpu = process.cpuUsage();
const redisBefore = redisPid ? ticks(redisPid) : null;
const machineBefore = ticks('machine');
const started = performance.now();
await batch(events);
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
const redisMicros = redisPid ? microsSince(redisBefore, ticks(redisPid)) : null;
const machineMicros = microsSince(machineBefore, ticks('machine'));
console.log(JSON.stringify({ perSecond: events / seconds, cpuMicros: used.user + used.system, redisMicros, machineMicros }));
await worker.close();
await queue.obliterate({ force: true });
await queue.close();
process.exit(0);
