import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tracingWorkflowSinks } from '../../src/temporal/tracing';

/**
 * Replays every recorded history in test/fixtures/histories against today's workflow code.
 * A non-deterministic change (a step added, removed or reordered without `patched()`) fails here.
 * One replay worker replays them all, one after another (Worker.runReplayHistories): a worker
 * per history loaded the bundle 81 times; each history is still its own test.
 */
const directory = join(__dirname, '..', 'fixtures', 'histories');
const fixtures = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .sort();
const workflowId = (file: string) => file.replace(/\.json$/, '');

describe('replay of recorded workflow histories', () => {
  const results = new Map<string, ReplayResult>();
  /** What stopped the replays before every history had its result, if anything did. */
  let stopped: unknown;

  beforeAll(async () => {
    const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
    if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run through jest (global setup).');
    const histories = fixtures.map((file) => ({
      workflowId: workflowId(file),
      history: historyFromJSON(JSON.parse(readFileSync(join(directory, file), 'utf8'))),
    }));
    try {
      for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath }, sinks: tracingWorkflowSinks() }, histories)) {
        results.set(result.workflowId, result);
      }
    } catch (error) {
      stopped = error;
    }
  });

  it('has recorded histories to replay', () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });

  it.each(fixtures)('%s replays deterministically', (file) => {
    const result = results.get(workflowId(file));
    if (!result) throw stopped ?? new Error(`${file} was not replayed`);
    if (result.error) throw result.error;
  });
});
