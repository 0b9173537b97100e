import { basename, join } from 'node:path';

/**
 * One batch of e2e suites in one test file (LABFLOW_E2E_BATCHES, see jest.config.js): each suite
 * runs in a describe block named by its path, so its hooks and tests stay its own, and the
 * batch loads the app's modules once where each file alone loads them again.
 */
export function describeE2eBatch(batchFile: string): void {
  const batches = (globalThis as { labflowE2eBatches?: Record<string, string[]> }).labflowE2eBatches ?? {};
  const suites = batches[basename(batchFile, '.batch.ts')] ?? [];
  if (suites.length === 0) test.todo('no e2e suites in this batch');
  for (const suite of suites) {
    describe(suite, () => {
      // Loaded inside the describe callback: the suite's top-level hooks and tests register in this block.
      jest.requireActual(join(__dirname, '../..', suite));
    });
  }
}
