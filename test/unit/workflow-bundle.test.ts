import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH, workflowCodeOptions } from '../../src/temporal/workflow-bundle';

describe('which workflow code a worker loads', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'labflow-bundle-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('production: the bundle npm run build wrote, never bundling at start', () => {
    const bundle = join(dir, 'workflow-bundle.js');
    writeFileSync(bundle, '// bundle');
    const options = workflowCodeOptions('production', undefined, bundle);
    expect(options.workflowBundle).toEqual({ codePath: bundle });
    expect(options.workflowsPath).toBeUndefined();
  });

  it('production without the bundle: stops with a message saying how to make it', () => {
    expect(() => workflowCodeOptions('production', undefined, join(dir, 'missing.js'))).toThrow(/missing\.js is missing: .*npm run build/);
  });

  it('development: workflows/ bundled at start with the interceptor modules', () => {
    const options = workflowCodeOptions('development', undefined, join(dir, 'missing.js'));
    expect(options.workflowsPath).toBe(WORKFLOWS_PATH);
    expect(options.interceptors?.workflowModules).toEqual(WORKFLOW_INTERCEPTOR_MODULES);
    expect(options.workflowBundle).toBeUndefined();
  });

  it('a bundle handed over (tests) wins in every environment', () => {
    expect(workflowCodeOptions('production', { codePath: '/tmp/x.js' }, join(dir, 'missing.js')).workflowBundle).toEqual({ codePath: '/tmp/x.js' });
  });
});
