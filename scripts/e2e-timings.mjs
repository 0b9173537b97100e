// npm run e2e:timings [-- FILE]: merges the per-suite times an e2e batch run recorded (FILE, by
// default .labflow/ci/e2e-timings.jsonl, which .ci/run writes through LABFLOW_E2E_TIMINGS) into
// test/e2e/batches/timings.json, the cost jest.config.js splits the e2e batches by. A suite
// recorded more than once keeps its last time; suites not in FILE keep theirs; suites gone are dropped.
import console from 'node:console';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? path.join(root, '.labflow/ci/e2e-timings.jsonl');
const tablePath = path.join(root, 'test/e2e/batches/timings.json');

const table = fs.existsSync(tablePath) ? JSON.parse(fs.readFileSync(tablePath, 'utf8')) : {};
let recorded = 0;
for (const line of fs.readFileSync(source, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const { suite, seconds } = JSON.parse(line);
  table[suite] = Math.round(seconds * 10) / 10;
  recorded++;
}
const sorted = Object.fromEntries(
  Object.keys(table)
    .filter((suite) => fs.existsSync(path.join(root, suite)))
    .sort()
    .map((suite) => [suite, table[suite]]),
);
fs.writeFileSync(tablePath, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${recorded} suite times from ${source}; ${Object.keys(sorted).length} suites in ${path.relative(root, tablePath)}`);
