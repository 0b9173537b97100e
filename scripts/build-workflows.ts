import { writeFileSync } from 'node:fs';
import { bundleWorkflows, PREBUILT_WORKFLOW_BUNDLE } from '../src/temporal/workflow-bundle';

/**
 * `npm run build:workflows` (the last step of `npm run build`): bundles the compiled workflows
 * (dist/workflows) with their interceptor modules into dist/workflow-bundle.js, which production
 * workers (NODE_ENV=production) load instead of bundling at start.
 */
async function main(): Promise<void> {
  // Webpack's module list is noise here; its warnings and errors are not.
  const quiet = () => undefined;
  const code = await bundleWorkflows({ trace: quiet, debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error });
  writeFileSync(PREBUILT_WORKFLOW_BUNDLE, code);
  console.log(`wrote ${PREBUILT_WORKFLOW_BUNDLE} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((error: unknown) => {
  console.error('bundling the workflows failed:', error);
  process.exit(1);
});
