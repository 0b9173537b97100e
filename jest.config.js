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
 * The three tiers that run workflow code share one bundle of workflows/, made once per run by
 * test/helpers/global-setup.ts. Type checking is done once by `tsc --noEmit` in scripts/test.sh,
 * so Jest only transpiles, with swc (@swc/jest): with an empty cache (a fresh clone) two e2e
 * suites took 30 CPU-seconds against ts-jest's 40-45, the unit tier 46 against 54.
 */
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
  testEnvironment: 'node',
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

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/src/**/*.spec.ts'] },
    { ...withWorkflowBundle, displayName: 'workflows', testMatch: ['<rootDir>/test/workflows/**/*.test.ts'] },
    { ...withWorkflowBundle, displayName: 'replay', testMatch: ['<rootDir>/test/replay/**/*.test.ts'] },
    { ...shared, displayName: 'repositories', testMatch: ['<rootDir>/test/repositories/**/*.test.ts'] },
    { ...withWorkflowBundle, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    { ...withWorkflowBundle, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'] },
    ...(process.env.CAPTURE_RESPONSES ? [{ ...withWorkflowBundle, displayName: 'capture', testMatch: ['<rootDir>/test/capture/**/*.capture.ts'] }] : []),
  ],
  // Longest suites first on a fresh clone too (Jest's cache of durations is empty there).
  testSequencer: '<rootDir>/test/helpers/slow-first-sequencer.mjs',
  testTimeout: 90_000,
  maxWorkers: 2,
  verbose: false,
};
