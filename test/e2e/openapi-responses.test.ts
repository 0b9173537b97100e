import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as ts from 'typescript';
import { call, startStack, type TestStack } from '../helpers/stack';
import type { RecordedResponse } from '../helpers/response-recorder';
import { type OpenApiDocument, undocumentedSuccesses } from '../helpers/openapi-check';

/**
 * The documents themselves (docs/development.md, "Documenting a route"): every operation documents
 * a success response, and openapi-typescript makes compiling types of them. Real answers are
 * checked against them by `npm run check:openapi-answers` (test/check-openapi-answers.ts) over a
 * recording of a whole e2e run.
 */

describe('OpenAPI documents against real answers', () => {
  let stack: TestStack;
  const documents: Partial<Record<RecordedResponse['app'], OpenApiDocument>> = {};
  beforeAll(async () => {
    stack = await startStack({ worker: false, management: true });
    documents.api = (await call(stack.apiUrl, 'GET', '/openapi.json')).body as OpenApiDocument;
    documents.management = (await call(stack.managementUrl, 'GET', '/openapi.json')).body as OpenApiDocument;
  });
  afterAll(() => stack.close());

  it('documents a success response for every operation of both APIs', () => {
    const missing = [...undocumentedSuccesses(documents.api!, 'api'), ...undocumentedSuccesses(documents.management!, 'management')];
    expect(missing).toEqual([]);
  });

  it('generates TypeScript types from both documents (openapi-typescript) without a warning, and they compile', () => {
    // Its CLI, in a process of its own: the package is ESM inside, which Jest does not load.
    const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin/cli.js');
    const folder = mkdtempSync(join(tmpdir(), 'labflow-openapi-'));
    const files: string[] = [];
    for (const [name, document] of Object.entries(documents)) {
      const source = join(folder, `${name}.json`);
      const file = join(folder, `${name}.d.ts`);
      writeFileSync(source, JSON.stringify(document));
      const run = spawnSync(process.execPath, [cli, source, '-o', file], { encoding: 'utf8' });
      const said = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line.trim() && !/openapi-typescript \d|🚀/.test(line));
      expect({ name, status: run.status, said }).toEqual({ name, status: 0, said: [] });
      files.push(file);
    }
    const program = ts.createProgram(files, { strict: true, noEmit: true, types: [] });
    expect(ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).toEqual([]);
    expect(readFileSync(files[0], 'utf8')).toContain('UserResponse');
  });
});
