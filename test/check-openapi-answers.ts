/**
 * `npm run check:openapi-answers -- <answers.jsonl>`: checks a recording of real answers against
 * both OpenAPI documents (docs/development.md, "Documenting a route"). Record it first with a broad
 * e2e run (test/helpers/response-recorder.ts):
 *
 *   OPENAPI_RESPONSES=/tmp/answers.jsonl npx jest --selectProjects e2e
 *   npm run check:openapi-answers -- /tmp/answers.jsonl
 *
 * Every operation of both documents must have answered 2xx at least once, every answer's status
 * must be documented, and every JSON body must match its documented schema; each problem is
 * printed and the exit code is 1. A command rather than a Jest test, because it reads what a whole
 * other run recorded: inside `npm test` it could only ever be skipped.
 */
import { readFileSync } from 'node:fs';
import { call, startStack } from './helpers/stack';
import type { RecordedResponse } from './helpers/response-recorder';
import { type OpenApiDocument, responseProblems } from './helpers/openapi-check';

async function main(): Promise<void> {
  const recording = process.argv[2];
  if (!recording) throw new Error('Usage: npm run check:openapi-answers -- <answers.jsonl> (recorded with OPENAPI_RESPONSES)');
  const answers = readFileSync(recording, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedResponse);
  const stack = await startStack({ worker: false, management: true });
  try {
    const problems: string[] = [];
    for (const [app, url] of [
      ['api', stack.apiUrl],
      ['management', stack.managementUrl],
    ] as const) {
      const document = (await call(url, 'GET', '/openapi.json')).body as OpenApiDocument;
      problems.push(
        ...responseProblems(
          document,
          answers.filter((answer) => answer.app === app),
          app,
        ),
      );
    }
    console.log(`${answers.length} recorded answers checked against both documents: ${problems.length} problems`);
    for (const problem of problems) console.log(`  ${problem}`);
    if (problems.length) process.exitCode = 1;
  } finally {
    await stack.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
