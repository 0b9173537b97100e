import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WORKFLOW_TRACING_MODULE } from './tracing';

/**
 * The workflow code a worker runs, bundled the same way everywhere: by `npm run build` for
 * production (dist/workflow-bundle.js), once per Jest run (test/helpers/global-setup.ts), or at
 * start in development.
 */

/** workflows/index.ts (compiled: dist/workflows/index.js), whose exported functions are the workflows. */
export const WORKFLOWS_PATH = require.resolve('../../workflows');

/**
 * Modules whose `interceptors` factory is bundled with the workflows (a bundle cannot take more
 * later: every bundle of labflow's workflows must list them all).
 */
export const WORKFLOW_INTERCEPTOR_MODULES: string[] = [
  WORKFLOW_TRACING_MODULE,
  // Carries the request id header on to activities and into workflow log lines.
  require.resolve('../../workflows/request-id-interceptors'),
];

/** Where `npm run build` writes the production bundle (dist/workflow-bundle.js, beside dist/src). */
export const PREBUILT_WORKFLOW_BUNDLE = join(__dirname, '..', '..', 'workflow-bundle.js');

type BundleLogger = NonNullable<Parameters<typeof bundleWorkflowCode>[0]['logger']>;

/** Bundles workflows/ with the interceptor modules: the code of a `workflowBundle`. */
export async function bundleWorkflows(logger?: BundleLogger): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    ...(logger ? { logger } : {}),
  });
  return code;
}

export type WorkflowCodeOptions = Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'>;

/**
 * Which workflow code a worker loads: a bundle it is handed (tests); in production the bundle
 * `npm run build` made (a missing one stops the worker: bundling at start would hide a broken
 * build and costs seconds and memory on every start); in development workflows/ bundled at
 * start, so an edit needs no build step.
 */
export function workflowCodeOptions(
  env: 'development' | 'test' | 'production',
  given?: WorkerOptions['workflowBundle'],
  prebuilt = PREBUILT_WORKFLOW_BUNDLE,
): WorkflowCodeOptions & { description: string } {
  if (given) return { workflowBundle: given, description: 'codePath' in given ? `the bundle ${given.codePath}` : 'a bundle in memory' };
  if (env === 'production') {
    if (!existsSync(prebuilt)) {
      throw new Error(`${prebuilt} is missing: production workers load the workflow bundle that npm run build writes`);
    }
    return { workflowBundle: { codePath: prebuilt }, description: `the bundle ${prebuilt}` };
  }
  return {
    workflowsPath: WORKFLOWS_PATH,
    interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES },
    description: `${WORKFLOWS_PATH}, bundled at start (NODE_ENV=${env})`,
  };
}
