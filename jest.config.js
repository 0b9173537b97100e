/**
 * One Jest run for every tier: unit (test/unit, src/**.spec.ts), workflow (test/workflows,
 * against the real dev server), replay (test/replay) and e2e (test/e2e). Type checking is done
 * once by `tsc --noEmit` in scripts/test.sh, so ts-jest only transpiles.
 */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // @fastify/static (Swagger UI assets) pulls in content-disposition, which ships only as ESM.
    '^.+/node_modules/content-disposition/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  testTimeout: 90_000,
  maxWorkers: 2,
  verbose: false,
};
