import { writeFileSync } from 'node:fs';
import { bundleWorkflows, PREBUILT_WORKFLOW_BUNDLES } from '../src/temporal/workflow-bundle';

/**
 * `npm run build:workflows` (the last step of `npm run build`): bundles the compiled workflows
 * (dist/workflows) with their interceptor modules into dist/workflow-bundle.js, and with
 * OpenTelemetry's too into dist/workflow-bundle-traced.js, which production workers
 * (NODE_ENV=production) load instead of bundling at start, as they trace or not.
 */
async function main(): Promise<void> {
  // Webpack's module list is noise here; its warnings and errors are not.
  const quiet = () => undefined;
  const logger = { trace: quiet, debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error };
  for (const traced of [false, true]) {
    const file = PREBUILT_WORKFLOW_BUNDLES[traced ? 'traced' : 'untraced'];
    const code = await bundleWorkflows(traced, logger);
    writeFileSync(file, code);
    console.log(`wrote ${file} (${Math.round(code.length / 1024)} KiB)`);
  }
}

main().catch((error: unknown) => {
  console.error('bundling the workflows failed:', error);
  process.exit(1);
});
