// @ts-check
import path from 'node:path';
import jestSequencer from '@jest/test-sequencer';

const Sequencer = jestSequencer.default;

/**
 * Jest's own order, except that the suites known to take longest start first when Jest has no
 * timing of its own for them.
 *
 * Jest orders a run by each suite's duration in its cache (longest first, so no worker is left
 * running one long suite alone at the end). A fresh clone, as CI makes, has no cache, and Jest's
 * fallback is file size, which says little of a suite's time: a short file that runs a minute,
 * started last, runs alone on one core after every other suite has ended (the OCR suite is one).
 *
 * The list holds the suites that took 30 s or more in a fresh-clone CI run (2026-11-29, run 8),
 * longest first. It only orders: a suite missing from it, or listed and no longer slow, costs
 * nothing but a less even finish. The e2e batches (LABFLOW_E2E_BATCHES, jest.config.js) go first,
 * the longest batch first by the seconds jest.config.js expects of each (labflowE2eBatchSeconds);
 * then the e2e suites that run alone, the browser suites and the slow files of the other tiers
 * (30-136 s each in that run, the later ones under other work's load: started last, as Jest's
 * file-size order had them, they ran alone at the end).
 */
const SLOWEST_FIRST = [
  ...Array.from({ length: 16 }, (_, index) => `test/e2e/batches/${index + 1}.batch.ts`),
  'test/unit/lab-report-parsing.test.ts',
  'test/e2e/ops-cli.test.ts',
  'test/workflows/events.test.ts',
  'test/e2e/phi-key-rotation.test.ts',
  'test/e2e/order-reconciler.test.ts',
  'test/browser/link.browser.test.ts',
  'test/browser/webhook-portal.browser.test.ts',
  'test/e2e/observability.test.ts',
  'test/e2e/traces.test.ts',
  'test/e2e/logging.test.ts',
  'test/replay/replay.test.ts',
  'test/e2e/connection-reconciler.test.ts',
  'test/repositories/lab-accounts.repository.test.ts',
  'test/repositories/stranded-orders.repository.test.ts',
  'test/unit/requisition-pdf.test.ts',
  'test/unit/lab-report-ocr.test.ts',
  'test/unit/zoned-time.test.ts',
  'test/workflows/order-reminders.test.ts',
  'test/workflows/order-messages.test.ts',
  'test/workflows/connection.test.ts',
];

export default class SlowFirstSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    // Jest's order first: it also sets each test's cached duration (undefined without one).
    const ordered = /** @type {import('@jest/test-result').Test[]} */ (super.sort(tests));
    const file = (/** @type {import('@jest/test-result').Test} */ test) => path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
    const rank = (/** @type {import('@jest/test-result').Test} */ test) => (test.duration == null ? SLOWEST_FIRST.indexOf(file(test)) : -1);
    /** @param {import('@jest/test-result').Test} test */
    const batchSeconds = (test) => {
      const seconds = /** @type {Record<string, number> | undefined} */ (test.context.config.globals.labflowE2eBatchSeconds);
      return seconds?.[path.basename(test.path, '.batch.ts')] ?? 0;
    };
    const known = ordered.filter((test) => rank(test) >= 0).sort((a, b) => rank(a) - rank(b));
    // The batches hold the slots the list gives them, filled longest first.
    const batchSlots = known.flatMap((test, index) => (file(test).endsWith('.batch.ts') ? [index] : []));
    const batchesLongestFirst = batchSlots.map((index) => known[index]).sort((a, b) => batchSeconds(b) - batchSeconds(a));
    batchSlots.forEach((slot, index) => (known[slot] = batchesLongestFirst[index]));
    return [...known, ...ordered.filter((test) => rank(test) < 0)];
  }
}
