// The floor bench:webhooks measures labflow's deliveries against: a bare BullMQ worker that, per
// job, does what a delivery must at least do — the job carries the event's envelope; the worker
// serialises it, signs it (Standard Webhooks: labflow's signatureHeaders, the HMAC-SHA256 the
// `standardwebhooks` package computes — test/unit/events.test.ts compares the two — with the same
// webhook-*/svix-* headers) and POSTs it through labflow's WebhookSender (keep-alive agent, the
// same sockets per worker) to the same receiver. One job per delivery; nothing in Postgres, no
// retry schedule, no attempt log. Plain JavaScript on plain node from dist/, like the delivery
// process it is compared with (ts-node loads node:domain, whose async hooks tax every promise).
// Prints READY once its worker runs; SIGTERM stops it (exit code 1 when a POST failed). run.ts adds
// the jobs (BullMQ Queue.addBulk, in bulks of 100 as it commits outbox events) to BENCH_QUEUE.
//
//   REDIS_URL, BENCH_QUEUE, BENCH_CONCURRENCY, BENCH_URL (the receiver), BENCH_SECRET (whsec_…)
import { createRequire } from 'node:module';
import console from 'node:console';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { Worker } = require('bullmq');
const Redis = require('ioredis');
const { signatureHeaders, USER_AGENT, WebhookSender } = require('../../dist/src/events/webhook-sender.js');

const concurrency = Number(process.env.BENCH_CONCURRENCY);
const url = process.env.BENCH_URL;
const secrets = [process.env.BENCH_SECRET];
// As labflow's delivery worker: one socket per job in flight, private addresses allowed for the bench.
const sender = new WebhookSender({ timeoutMs: 15_000, allowPrivate: true, maxSockets: concurrency });
let failed = 0;

const worker = new Worker(
  process.env.BENCH_QUEUE,
  async (job) => {
    const body = JSON.stringify(job.data.envelope);
    const result = await sender.post({
      url,
      body,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signatureHeaders(job.data.id, new Date(), body, secrets) },
    });
    if (result.statusCode === null || result.statusCode >= 300) failed += 1;
  },
  // As the delivery worker's connection (src/events/delivery-queue.ts workerConnection).
  { connection: new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: null }), concurrency, autorun: false },
);
worker.on('failed', () => (failed += 1));
void worker.run();
await worker.waitUntilReady();
console.log('READY');
process.on('SIGTERM', () => {
  if (failed > 0) console.error(`bare sender: ${failed} deliveries failed`);
  void worker.close().finally(() => {
    sender.close();
    process.exit(failed > 0 ? 1 : 0);
  });
});
