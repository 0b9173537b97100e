import { bundleWorkflows } from '../../src/temporal/workflow-bundle';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set once this Jest process has bundled (each project that needs the bundle runs this setup). */
const BUNDLED = Symbol.for('labflow.workflowBundle');

/** Bundles workflows/ (with the interceptor modules) once per run; every test worker loads this bundle instead of re-bundling. */
export default async function globalSetup(): Promise<void> {
  const made = (globalThis as Record<symbol, string | undefined>)[BUNDLED];
  if (made !== undefined) {
    process.env.LABFLOW_WORKFLOW_BUNDLE = made;
    return;
  }
  // Production's traced bundle (OpenTelemetry's interceptors included: the traces test needs
  // them), from the TypeScript sources.
  const code = await bundleWorkflows(true, { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} } as never);
  const codePath = join(tmpdir(), `labflow-workflows-${process.pid}.js`);
  writeFileSync(codePath, code);
  process.env.LABFLOW_WORKFLOW_BUNDLE = codePath;
  (globalThis as Record<symbol, string | undefined>)[BUNDLED] = codePath;
}
