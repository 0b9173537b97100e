import { writeFileSync } from 'node:fs';
import { bundleWorkflows, PREBUILT_WORKFLOW_BUNDLES } from '../src/temporal/workflow-bundle';

/**
 * `npm run build:workflows` (the last step of `npm run build`): bundles the compiled workflows
 * (dist/workflows) with their interceptor modules into dist/workflow-bundle.js, and with
 * OpenTelemetry's too into dist/workflow-bundle-traced.js, which production workers
 * (NODE_ENV=production) load instead of bundling at start, as they trace or not.
 * `node dist/scripts/build-workflows.js <file>`: only the untraced bundle, into <file> (the fault
 * runs' one bundle for all their worker processes, WORKFLOW_BUNDLE).
 */
async function main(): Promise<void> {
  // Webpack's module list is noise here; its warnings and errors are not.
  const quiet = () => undefined;
  const logger = { trace: quiet, debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error };
  const only = process.argv[2];
  const bundles = only
    ? [{ traced: false, file: only }]
    : ([false, true] as const).map((traced) => ({ traced, file: PREBUILT_WORKFLOW_BUNDLES[traced ? 'traced' : 'untraced'] }));
  for (const { traced, file } of bundles) {
    const code = await bundleWorkflows(traced, logger);
    writeFileSync(file, code);
    console.log(`wrote ${file} (${Math.round(code.length / 1024)} KiB)`);
  }
}

main().catch((error: unknown) => {
  console.error('bundling the workflows failed:', error);
  process.exit(1);
});
