/* global process, setTimeout */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload for node -r */
// What survives a scavenge, and where it was allocated: a preload (`node -r`) that runs V8's
// sampling heap profiler in the process for a window of its life, counting only the objects that
// outlived a minor GC (`includeObjectsCollectedByMinorGC: false`; the ones a mark-compact frees
// later are kept, `includeObjectsCollectedByMajorGC: true`). Those are what makes scavenges slow
// and fills the old generation: this is how session 43 found that V8's allocation-site pretenuring
// had pg's rows born old in the API (docs/performance.md), which CPU profiles and heap snapshots
// (a snapshot's full GC removes exactly those objects) had not shown.
//
//   BENCH_API_ARGS="-r $PWD/bench/lib/survivors.cjs" SURVIVORS_DIR=/tmp/surv npm run bench:reads
//
// SURVIVORS_DIR (required; nothing is sampled without it): where `survivors-<pid>.heapprofile`
// (open it in Chrome DevTools' Memory tab) and `survivors-<pid>.txt` (the allocation sites by bytes)
// are written. SURVIVORS_START_MS (default 20,000): when the window opens, after start-up and the
// bench's set-up; SURVIVORS_WINDOW_MS (6,000): how long it stays open; SURVIVORS_TOP (25): sites listed.
'use strict';
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.SURVIVORS_DIR;
if (dir) {
  const startMs = Number(process.env.SURVIVORS_START_MS ?? 20_000);
  const windowMs = Number(process.env.SURVIVORS_WINDOW_MS ?? 6_000);
  const top = Number(process.env.SURVIVORS_TOP ?? 25);
  const session = new Session();
  session.connect();
  setTimeout(() => {
    session.post('HeapProfiler.enable');
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMinorGC: false,
      includeObjectsCollectedByMajorGC: true,
    });
    setTimeout(() => {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error) {
          process.stderr.write(`[survivors] ${error.message}\n`);
          return;
        }
        mkdirSync(dir, { recursive: true });
        const base = join(dir, `survivors-${process.pid}`);
        writeFileSync(`${base}.heapprofile`, JSON.stringify(result.profile));
        writeFileSync(`${base}.txt`, summary(result.profile, windowMs, top));
        process.stderr.write(`[survivors] ${base}.txt\n`);
      });
    }, windowMs).unref();
  }, startMs).unref();
}

/** The allocation sites by the bytes of their sampled survivors: the site (its frame) and the two frames that called it. */
function summary(profile, windowMs, top) {
  const sites = new Map();
  let total = 0;
  const walk = (node, stack) => {
    const frame = node.callFrame;
    const here = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    const path = [here, ...stack];
    if (node.selfSize > 0) {
      const key = path.slice(0, 3).join(' < ');
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, path);
  };
  walk(profile.head, []);
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  const lines = [...sites.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([site, bytes]) => `${mb(bytes).padStart(8)} MB  ${site}`);
  return [`survivors of a minor GC over ${windowMs / 1000} s: ${mb(total)} MB sampled`, ...lines, ''].join('\n');
}

function shortUrl(url) {
  if (!url) return '(native)';
  const pkg = /node_modules\/(.*)$/.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/dist\/(.*)$/.exec(url);
  return dist ? dist[1] : url.replace(/^file:\/\//, '');
}
