import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processWorkflowBundle, WORKFLOWS_PATH, workflowCodeOptions } from '../../src/temporal/workflow-bundle';
import { WORKFLOW_TRACING_MODULE } from '../../src/temporal/tracing';

describe('which workflow code a worker loads', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'labflow-bundle-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('production: the bundle npm run build wrote, never bundling at start', () => {
    const bundle = join(dir, 'workflow-bundle.js');
    writeFileSync(bundle, '// bundle');
    const options = workflowCodeOptions('production', undefined, false, bundle);
    expect(options.workflowBundle).toEqual({ codePath: bundle });
    expect(options.workflowsPath).toBeUndefined();
  });

  it('production: the traced bundle only for a worker that traces', () => {
    expect(workflowCodeOptions('production', { codePath: '/x.js' }, false).workflowBundle).toEqual({ codePath: '/x.js' });
    expect(() => workflowCodeOptions('production', undefined, true, join(dir, 'workflow-bundle-traced.js'))).toThrow(/workflow-bundle-traced\.js is missing/);
  });

  it('production without the bundle: stops with a message saying how to make it', () => {
    expect(() => workflowCodeOptions('production', undefined, false, join(dir, 'missing.js'))).toThrow(/missing\.js is missing: .*npm run build/);
  });

  it("development: workflows/ bundled at start with the interceptor modules, OpenTelemetry's only when tracing", () => {
    const options = workflowCodeOptions('development', undefined, false, join(dir, 'missing.js'));
    expect(options.workflowsPath).toBe(WORKFLOWS_PATH);
    expect(options.interceptors?.workflowModules).toEqual([require.resolve('../../workflows/request-id-interceptors')]);
    expect(options.workflowBundle).toBeUndefined();
    const traced = workflowCodeOptions('development', undefined, true, join(dir, 'missing.js'));
    expect(traced.interceptors?.workflowModules).toEqual([WORKFLOW_TRACING_MODULE, require.resolve('../../workflows/request-id-interceptors')]);
  });

  it('a production worker process bundles nothing at start: its workers load the prebuilt bundle', async () => {
    await expect(processWorkflowBundle('production', true)).resolves.toBeUndefined();
  });

  it('outside production a worker process loads the bundle file it is given (WORKFLOW_BUNDLE), bundling nothing; production ignores it', async () => {
    await expect(processWorkflowBundle('test', false, undefined, '/tmp/bundle.js')).resolves.toEqual({ codePath: '/tmp/bundle.js' });
    await expect(processWorkflowBundle('development', true, undefined, '/tmp/bundle.js')).resolves.toEqual({ codePath: '/tmp/bundle.js' });
    await expect(processWorkflowBundle('production', false, undefined, '/tmp/bundle.js')).resolves.toBeUndefined();
  });

  it('a bundle handed over (tests) wins in every environment', () => {
    expect(workflowCodeOptions('production', { codePath: '/tmp/x.js' }, true, join(dir, 'missing.js')).workflowBundle).toEqual({ codePath: '/tmp/x.js' });
  });
});
