// The team's server in bench:webhooks, in a process of its own (run.ts pins it to a CPU of its
// own): answers 204 to every POST, keeps each webhook-id's first arrival (epoch milliseconds,
// sub-millisecond: performance.timeOrigin + performance.now(), comparable with run.ts's clock) and
// checks the Standard Webhooks signature of a sample with the `standardwebhooks` package.
// Talks to run.ts over the IPC channel:
//   → {type: 'listening', port}                once it listens
//   ← {type: 'until', count}  → {type: 'reached'}   once `count` distinct ids have arrived
//   ← {type: 'take'}          → {type: 'arrivals', entries: [[id, at], …], verified, failures}
//                                                 the arrivals since the last take
//
//   BENCH_SECRET (whsec_…)
//   BENCH_FAIL_FIRST=1: answers 500 to each webhook-id's first arrival (its retry gets 204);
//                       'until' then counts ids answered 204
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const require = createRequire(import.meta.url);
const { Webhook } = require('standardwebhooks');

const webhook = new Webhook(process.env.BENCH_SECRET);
const failFirst = process.env.BENCH_FAIL_FIRST === '1';
const seen = new Set();
const answered = new Set();
let fresh = [];
let verified = 0;
let failures = 0;
let waiting = null;

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    const first = !seen.has(id);
    if (first) {
      seen.add(id);
      fresh.push([id, performance.timeOrigin + performance.now()]);
    }
    if (verified + failures < 200) {
      try {
        webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
        verified += 1;
      } catch {
        failures += 1;
      }
    }
    if (failFirst && first) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(204).end();
    answered.add(id);
    if (waiting !== null && answered.size >= waiting) {
      waiting = null;
      process.send({ type: 'reached' });
    }
  });
});

process.on('message', (message) => {
  if (message.type === 'until') {
    if (answered.size >= message.count) process.send({ type: 'reached' });
    else waiting = message.count;
  } else if (message.type === 'take') {
    process.send({ type: 'arrivals', entries: fresh, verified, failures });
    fresh = [];
  }
});
process.on('disconnect', () => process.exit(0));
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
