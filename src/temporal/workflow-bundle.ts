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

/** Carries the request id header on to activities and into workflow log lines (every bundle). */
const REQUEST_ID_MODULE = require.resolve('../../workflows/request-id-interceptors');

/**
 * Modules whose `interceptors` factory is bundled with the workflows: the request id's always,
 * OpenTelemetry's only for a worker that traces. Not out of thrift alone: within the workflow
 * sandbox each workflow gets its own copy of every module the bundle evaluates, and
 * OpenTelemetry's made each open order workflow weigh ~2.5 MB instead of ~0.26 MB and each of
 * its tasks slower (bench:open-workflows: 1,400 open orders, worker RSS 3,940 MiB with it, 768
 * MiB without). Neither adds commands to a history, so a workflow may move between traced and
 * untraced workers.
 */
export function workflowInterceptorModules(traced: boolean): string[] {
  return traced ? [WORKFLOW_TRACING_MODULE, REQUEST_ID_MODULE] : [REQUEST_ID_MODULE];
}

/** Where `npm run build` writes the production bundles (dist/workflow-bundle*.js, beside dist/src). */
export const PREBUILT_WORKFLOW_BUNDLES = {
  untraced: join(__dirname, '..', '..', 'workflow-bundle.js'),
  traced: join(__dirname, '..', '..', 'workflow-bundle-traced.js'),
} as const;

type BundleLogger = NonNullable<Parameters<typeof bundleWorkflowCode>[0]['logger']>;

/** Bundles workflows/ with the interceptor modules (`traced`: with OpenTelemetry's): the code of a `workflowBundle`. */
export async function bundleWorkflows(traced: boolean, logger?: BundleLogger): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: workflowInterceptorModules(traced),
    ...(logger ? { logger } : {}),
  });
  return code;
}

/**
 * The bundle a worker process hands all its workers (the order worker and the lab report
 * worker): outside production, the bundle file it was given (WORKFLOW_BUNDLE: the fault runs and
 * tests that start many worker processes bundle once for all), else workflows/ bundled once here,
 * where each worker would otherwise run webpack on its own at start (seconds of CPU each, again
 * at every restart); in production none, each worker loads the bundle `npm run build` made (a
 * file read).
 */
export async function processWorkflowBundle(
  env: 'development' | 'test' | 'production',
  traced: boolean,
  logger?: BundleLogger,
  given: string | null = null,
): Promise<WorkerOptions['workflowBundle'] | undefined> {
  if (env === 'production') return undefined;
  if (given !== null) return { codePath: given };
  return { code: await bundleWorkflows(traced, logger) };
}

export type WorkflowCodeOptions = Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors'>;

/**
 * Which workflow code a worker loads: a bundle it is handed (tests); in production the bundle
 * `npm run build` made, traced or not as the worker traces (a missing one stops the worker:
 * bundling at start would hide a broken build and costs seconds and memory on every start); in
 * development workflows/ bundled at start, so an edit needs no build step.
 */
export function workflowCodeOptions(
  env: 'development' | 'test' | 'production',
  given: WorkerOptions['workflowBundle'] | undefined,
  traced: boolean,
  prebuilt: string = PREBUILT_WORKFLOW_BUNDLES[traced ? 'traced' : 'untraced'],
): WorkflowCodeOptions & { description: string } {
  if (given) return { workflowBundle: given, description: 'codePath' in given ? `the bundle ${given.codePath}` : 'a bundle made in this process' };
  if (env === 'production') {
    if (!existsSync(prebuilt)) {
      throw new Error(`${prebuilt} is missing: production workers load the workflow bundle that npm run build writes`);
    }
    return { workflowBundle: { codePath: prebuilt }, description: `the bundle ${prebuilt}` };
  }
  return {
    workflowsPath: WORKFLOWS_PATH,
    interceptors: { workflowModules: workflowInterceptorModules(traced) },
    description: `${WORKFLOWS_PATH}, bundled at start (NODE_ENV=${env})`,
  };
}
