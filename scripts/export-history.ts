import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `npm run history:export -- <workflowId> [fixture-name]` saves a workflow's history under
 * test/fixtures/histories/, where the replay test picks up every file. Reads TEMPORAL_ADDRESS
 * and TEMPORAL_NAMESPACE (default 127.0.0.1:7233 / labflow).
 */
async function main(): Promise<void> {
  const [workflowId, name] = process.argv.slice(2);
  if (!workflowId) {
    console.error('usage: npm run history:export -- <workflowId> [fixture-name]');
    process.exit(2);
  }
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  try {
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'labflow' });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    // npm runs scripts from the package root, which holds the fixtures folder.
    const target = resolve(process.cwd(), 'test', 'fixtures', 'histories');
    mkdirSync(target, { recursive: true });
    const file = join(target, `${(name ?? workflowId).replace(/[^A-Za-z0-9._-]+/g, '_')}.json`);
    writeFileSync(file, `${historyToJSON(history)}\n`);
    console.log(`saved ${history.events?.length ?? 0} events of ${workflowId} to ${file}`);
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
