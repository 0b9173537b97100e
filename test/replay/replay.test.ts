import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tracingWorkflowSinks } from '../../src/temporal/tracing';

/**
 * Replays every recorded history in test/fixtures/histories against today's workflow code.
 * A non-deterministic change (a step added, removed or reordered without `patched()`) fails here.
 */
const directory = join(__dirname, '..', 'fixtures', 'histories');
const fixtures = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('replay of recorded workflow histories', () => {
  it('has recorded histories to replay', () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });

  it.each(fixtures)('%s replays deterministically', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(directory, file), 'utf8')));
    const codePath = process.env.LABFLOW_WORKFLOW_BUNDLE;
    if (!codePath) throw new Error('LABFLOW_WORKFLOW_BUNDLE is not set: run through jest (global setup).');
    await Worker.runReplayHistory({ workflowBundle: { codePath }, sinks: tracingWorkflowSinks() }, history, file.replace(/\.json$/, ''));
  });
});
