import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config/config';
import { codecOf, type EncryptionCodec, isEncrypted } from '../src/temporal/payload-codec';

/**
 * `npm run history:export -- <workflowId> [fixture-name]` saves a workflow's history under
 * test/fixtures/histories/, where the replay test picks up every file. Payloads are decrypted
 * with this environment's key first, so a fixture replays anywhere (fixtures hold test data
 * only — never export a production history containing real patients).
 */
async function main(): Promise<void> {
  const [workflowId, name] = process.argv.slice(2);
  if (!workflowId) {
    console.error('usage: npm run history:export -- <workflowId> [fixture-name]');
    process.exit(2);
  }
  const config = loadConfig();
  const codec = codecOf(config);
  const connection = await Connection.connect(config.temporal.connection);
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    await decryptPayloads(history, codec);
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

/** Replaces, in place, every encrypted payload anywhere in the history by its plaintext. */
async function decryptPayloads(node: unknown, codec: EncryptionCodec): Promise<void> {
  if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (value && typeof value === 'object' && 'metadata' in value && isEncrypted(value as Payload)) {
      const [plain] = await codec.decode([value as Payload]);
      (node as Record<string, unknown>)[key] = plain;
    } else {
      await decryptPayloads(value, codec);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
