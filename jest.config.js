/**
 * The test tiers as Jest projects, each runnable alone (`--selectProjects <name>`, or
 * `npm run test:<name>` for the stack bring-up first); `npm test` runs them all.
 *   unit       test/unit, src/**.spec.ts: pure rules, nothing real
 *   workflows  test/workflows: the real Temporal dev server, activities real or faked
 *   replay     test/replay: recorded histories in test/fixtures/histories, nothing real
 *   e2e        test/e2e: the whole stack over HTTP and through the SDK
 *   browser    test/browser: the patient portal in Debian's Chromium (playwright-core), screenshots in test-output/
 *   capture    test/capture: records responses to CAPTURE_RESPONSES for before/after diffs of a
 *              refactor; a tool, so the project exists only while that variable is set
 * With LABFLOW_E2E_BATCHES set (.ci/run sets it), the e2e tier runs its suites in that many
 * batches (test/e2e/batches/*.batch.ts, test/helpers/e2e-batch.ts), each batch one test file:
 * every e2e file alone loads the app's modules through Jest's module registry again (~2.3
 * CPU-seconds) and boots its first stack cold. The suites are split by their recorded times
 * (test/e2e/batches/timings.json), so the batches end together and none runs alone at the end. E2E_ALONE lists the suites that still run as files
 * of their own, because they assert process-wide state (metrics, tracing, log capture) or patch
 * shared prototypes.
 * The three tiers that run workflow code share one bundle of workflows/, made once per run by
 * test/helpers/global-setup.ts. Type checking is done once by `tsc --noEmit` in scripts/test.sh,
 * so Jest only transpiles, with swc (@swc/jest): on an empty cache (a fresh clone) it costs a
 * quarter less CPU than ts-jest.
 */
const fs = require('node:fs');
const path = require('node:path');

/** swc as tsc compiles for the build (tsconfig.json): CommonJS, ES2022, legacy decorators with their metadata (Nest's DI reads the constructor parameter types). */
const swcTypeScript = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};
/** Plain JavaScript of ESM-only packages, made CommonJS (swc turns import() into require()). */
const swcEsmPackage = { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } };
const shared = {
  rootDir: __dirname,
  // Jest's node environment in a vanilla V8 context: global lookups at full speed (the file says why).
  testEnvironment: '<rootDir>/test/helpers/node-environment.mjs',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcTypeScript],
    // @fastify/static (Swagger UI assets) pulls in content-disposition, which ships only as ESM.
    '^.+/node_modules/content-disposition/.+\\.js$': ['@swc/jest', swcEsmPackage],
    // The OTLP exporter loads http with import(), which Jest's VM refuses without
    // --experimental-vm-modules; compiled as CommonJS it becomes a require().
    '^.+/node_modules/@opentelemetry/otlp-exporter-base/.+\\.js$': ['@swc/jest', swcEsmPackage],
    // The FHIR e2e's consumer client ships only as ESM.
    '^.+/node_modules/fhir-kit-client/.+\\.js$': ['@swc/jest', swcEsmPackage],
  },
  // fhir-kit-client's package exports name only an `import` entry, which Jest's require does not match.
  moduleNameMapper: { '^fhir-kit-client$': '<rootDir>/node_modules/fhir-kit-client/dist/index.js' },
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|@opentelemetry/otlp-exporter-base|fhir-kit-client)/)'],
};
const withWorkflowBundle = { ...shared, globalSetup: '<rootDir>/test/helpers/global-setup.ts' };

const E2E_ALONE = [
  'connection-reconciler', // spies on Logger.prototype
  'hl7-lab', // asserts process-wide metrics
  'log-leaks', // captures the process's logs
  'logging',
  'observability', // metrics and tracing
  'ops-cli', // runs the CLI in-process
  'order-reconciler', // spies on Logger.prototype, reads process-wide metrics
  'phi-key-rotation', // replaces the PHI key
  'rate-limits', // reads process-wide metrics
  'request-logging-context', // reads what Nest's process-wide Logger writes
  'traces', // the process's tracer provider
];
/**
 * Each batched e2e suite's expected seconds: its time in test/e2e/batches/timings.json (recorded
 * by a batch run, `npm run e2e:timings`), or, for a suite not recorded yet, its file size at the
 * recorded suites' seconds per byte. File size alone says little: a short suite may wait a minute.
 */
function suiteSeconds(files) {
  const tablePath = path.join(__dirname, 'test/e2e/batches/timings.json');
  const table = fs.existsSync(tablePath) ? JSON.parse(fs.readFileSync(tablePath, 'utf8')) : {};
  const measured = files.filter(({ file }) => typeof table[file] === 'number');
  const bytes = measured.reduce((sum, { size }) => sum + size, 0);
  const perByte = bytes > 0 ? measured.reduce((sum, { file }) => sum + table[file], 0) / bytes : 1;
  return new Map(files.map(({ file, size }) => [file, typeof table[file] === 'number' ? table[file] : size * perByte]));
}

/** The e2e project's files: each suite, or the batches and the suites run alone. */
function e2eProject() {
  const batchCount = Number(process.env.LABFLOW_E2E_BATCHES ?? 0);
  // labflowRecordAnswers: this tier's stacks record their answers when OPENAPI_RESPONSES is set (test/helpers/response-recorder.ts).
  const project = {
    ...withWorkflowBundle,
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/e2e/*.test.ts'],
    globals: { labflowRecordAnswers: true },
    setupFilesAfterEnv: ['<rootDir>/test/helpers/e2e-timeout.ts'],
  };
  if (!(batchCount > 0)) return project;
  const alone = new Set(E2E_ALONE.map((name) => `${name}.test.ts`));
  const files = fs
    .readdirSync(path.join(__dirname, 'test/e2e'))
    .filter((file) => file.endsWith('.test.ts') && !alone.has(file))
    .map((file) => ({ file: `test/e2e/${file}`, size: fs.statSync(path.join(__dirname, 'test/e2e', file)).size }));
  const seconds = suiteSeconds(files);
  // Longest first into the lightest batch, so the batches take about as long as each other.
  const batches = Array.from({ length: batchCount }, () => ({ suites: [], seconds: 0 }));
  for (const { file } of files.sort((a, b) => seconds.get(b.file) - seconds.get(a.file) || a.file.localeCompare(b.file))) {
    const lightest = batches.reduce((least, batch) => (batch.seconds < least.seconds ? batch : least));
    lightest.suites.push(file);
    lightest.seconds += seconds.get(file);
  }
  return {
    ...project,
    testMatch: [
      ...E2E_ALONE.map((name) => `<rootDir>/test/e2e/${name}.test.ts`),
      ...batches.map((_, index) => `<rootDir>/test/e2e/batches/${index + 1}.batch.ts`),
    ],
    globals: {
      ...project.globals,
      labflowE2eBatches: Object.fromEntries(batches.map((batch, index) => [String(index + 1), batch.suites])),
      // test/helpers/slow-first-sequencer.mjs starts the longest batch first.
      labflowE2eBatchSeconds: Object.fromEntries(batches.map((batch, index) => [String(index + 1), Math.round(batch.seconds)])),
    },
  };
}

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/src/**/*.spec.ts'] },
    { ...withWorkflowBundle, displayName: 'workflows', testMatch: ['<rootDir>/test/workflows/**/*.test.ts'] },
    { ...withWorkflowBundle, displayName: 'replay', testMatch: ['<rootDir>/test/replay/**/*.test.ts'] },
    { ...shared, displayName: 'repositories', testMatch: ['<rootDir>/test/repositories/**/*.test.ts'] },
    e2eProject(),
    { ...withWorkflowBundle, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'] },
    ...(process.env.CAPTURE_RESPONSES ? [{ ...withWorkflowBundle, displayName: 'capture', testMatch: ['<rootDir>/test/capture/**/*.capture.ts'] }] : []),
  ],
  // Longest suites first on a fresh clone too (Jest's cache of durations is empty there).
  testSequencer: '<rootDir>/test/helpers/slow-first-sequencer.mjs',
  testTimeout: 90_000,
  maxWorkers: 2,
  verbose: false,
};
