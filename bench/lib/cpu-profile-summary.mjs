// Summarises V8 CPU profiles (node --cpu-prof; bench:reads writes the API's with
// BENCH_CPU_PROFILE=<dir>): the share of samples by function (self time) and by where the code
// lives (labflow's dist/ file, a package under node_modules, node's internals, GC, idle), so that
// "where the read time goes" is a table, not a flame graph to squint at.
//
//   node bench/lib/cpu-profile-summary.mjs <file.cpuprofile | dir> [top N (30)] [last S]
//
// `last S`: only the samples of the profile's last S seconds. bench:reads measures its slices at
// the end of the API's life, after start-up (module loading, the OpenAPI document) and after
// creating the users and orders it reads, which would otherwise dominate the table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';

const [target, topArg, lastArg] = process.argv.slice(2);
if (!target) {
  console.error('usage: node bench/lib/cpu-profile-summary.mjs <file.cpuprofile | dir> [top N]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const lastMicros = lastArg === undefined ? Infinity : Number(lastArg) * 1e6;
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(target, name))
  : [target];

/** Where a frame's code lives: a package, a dist/ file, node's internals, or V8's pseudo-frames. */
function placeOf(url, functionName) {
  if (!url) return `(${functionName || 'program'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/dist\/(.*)$/.exec(url);
  if (dist) return dist[1];
  if (url.startsWith('node:')) return 'node:internal';
  return url.replace(/^file:\/\//, '');
}

const byFunction = new Map();
const byPlace = new Map();
let total = 0;
let idle = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const deltas = profile.timeDeltas;
  // Sample i was taken at startTime + the deltas up to i; it stands for the time until the next one.
  const times = [];
  let at = profile.startTime;
  for (const delta of deltas) times.push((at += delta));
  const from = profile.endTime - lastMicros;
  profile.samples.forEach((id, index) => {
    if (times[index] < from) return;
    const { callFrame } = nodes.get(id);
    const micros = deltas[index + 1] ?? 0;
    total += micros;
    if (callFrame.functionName === '(idle)') {
      idle += micros;
      return;
    }
    const place = placeOf(callFrame.url, callFrame.functionName);
    const name = `${callFrame.functionName || '(anonymous)'}  ${place}:${callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
  });
}
const busy = total - idle;
const pct = (micros) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%`;
console.log(`${files.length} profile(s): ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (shares below are of the busy time)`);
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(micros)}  ${name}`);
};
print('by where the code lives (self time)', byPlace);
print('by function (self time)', byFunction);
