import { appendFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * One batch of e2e suites in one test file (LABFLOW_E2E_BATCHES, see jest.config.js): each suite
 * runs in a describe block named by its path, so its hooks and tests stay its own, and the
 * batch loads the app's modules once where each file alone loads them again.
 * With LABFLOW_E2E_TIMINGS set to a file, each suite appends a JSON line of its wall and this
 * process's CPU seconds there, from its first hook to its last; `npm run e2e:timings` turns
 * those lines into test/e2e/batches/timings.json, which jest.config.js splits the batches by.
 */
export function describeE2eBatch(batchFile: string): void {
  const batches = (globalThis as { labflowE2eBatches?: Record<string, string[]> }).labflowE2eBatches ?? {};
  const suites = batches[basename(batchFile, '.batch.ts')] ?? [];
  const timings = process.env.LABFLOW_E2E_TIMINGS;
  if (suites.length === 0) test.todo('no e2e suites in this batch');
  if (timings) mkdirSync(dirname(timings), { recursive: true });
  for (const suite of suites) {
    describe(suite, () => {
      let started = 0;
      let cpu = process.cpuUsage();
      // Registered before the suite's own hooks and after them: Jest runs each kind in the order declared.
      if (timings) beforeAll(() => ((started = performance.now()), (cpu = process.cpuUsage())));
      // Loaded inside the describe callback: the suite's top-level hooks and tests register in this block.
      jest.requireActual(join(__dirname, '../..', suite));
      if (timings) {
        afterAll(() => {
          const used = process.cpuUsage(cpu);
          const line = { suite, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
          appendFileSync(timings, `${JSON.stringify(line)}\n`);
        });
      }
    });
  }
}
