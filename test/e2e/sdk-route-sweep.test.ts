import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, type TestStack } from '../helpers/stack';

/**
 * Which of the HTTP routes the official SDK (`@tryvital/vital-node`) calls labflow serves: every
 * route its clients build (`api/resources/<resource>/client/Client.js`: the path it joins to the
 * base URL and the method beside it), each looked up in the main API's router with its path
 * parameters filled. The ones not served are listed by name, so a route that goes missing, or
 * one newly served, changes this test.
 */
const SDK_RESOURCES = join(require.resolve('@tryvital/vital-node/package.json'), '..', 'dist', 'cjs', 'api', 'resources');

/** Not served, and why. */
const NOT_SERVED = [
  'GET /v3/insurance/search/diagnosis', // no ICD-10-CM code set can be had here
  'POST /v3/insurance/validate_icd_codes',
];

function sdkRoutes(): string[] {
  const routes = new Set<string>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'Client.js') {
        const source = readFileSync(path, 'utf8');
        for (const match of source.matchAll(/VitalEnvironment\.Production, ([`"])([^`"]+)\1\),\s*method: "(\w+)"/g)) {
          routes.add(`${match[3]} /${match[2].replace(/\$\{core\.url\.encodePathParam\([^)]*\)\}/g, '{}')}`);
        }
      }
    }
  };
  walk(SDK_RESOURCES);
  return [...routes].sort();
}

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ worker: false });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

test('the SDK route sweep: 195 of the 197 routes the SDK calls are served', () => {
  const routes = sdkRoutes();
  expect(routes).toHaveLength(197);
  const fastify = stack.api.getHttpAdapter().getInstance();
  const missing = routes.filter((route) => {
    const [method, path] = route.split(' ');
    const url = path.replace(/\{\}/g, '0b9a3e0e-6d5f-4c1a-9a43-8f1b2c3d4e5f');
    return !fastify.findRoute({ method: method as 'GET', url });
  });
  expect(missing).toEqual(NOT_SERVED.slice().sort());
  expect(routes.length - missing.length).toBe(195);
});
