/**
 * labflow's import rules, checked by dependency-cruiser in `npm run lint` (so in `npm test` and
 * CI) through scripts/check-dependencies.mjs, which adds the folder-level cycle check (see there).
 * src/README.md explains the rules.
 *
 * Known violations that other work still has to remove are listed one by one in
 * .dependency-cruiser-known-violations.json (`--ignore-known`); any other violation fails lint.
 * When one is fixed, regenerate that file so it cannot come back:
 *   npx depcruise-baseline src workflows activities scripts --config .dependency-cruiser.cjs --output-to .dependency-cruiser-known-violations.json
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Packages that must never reach workflow code (it runs in Temporal's deterministic sandbox). */
const NOT_IN_WORKFLOWS = [
  '^node_modules/@nestjs/',
  '^node_modules/typeorm/',
  '^node_modules/pg/',
  '^node_modules/ioredis/',
  '^node_modules/bullmq/',
  '^node_modules/amqplib/',
  '^node_modules/@temporalio/(client|worker|activity)/',
];

module.exports = {
  forbidden: [
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'Two files import each other, directly or through others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflows-import-only-workflows',
      severity: 'error',
      comment:
        'Workflow code is deterministic and bundled on its own: it imports only workflows/ and ' +
        '@temporalio/workflow|common, never src/, activities/ or scripts/ (not even types).',
      from: { path: '^workflows/' },
      to: { path: '^(src|activities|scripts)/' },
    },
    {
      name: 'workflows-no-node-nest-or-io',
      severity: 'error',
      comment: 'Workflow code must stay deterministic: no Node built-ins, Nest or I/O clients.',
      from: { path: '^workflows/' },
      to: { dependencyTypesNot: ['type-only'], path: NOT_IN_WORKFLOWS },
    },
    {
      name: 'workflows-no-node-builtins',
      severity: 'error',
      comment: 'Workflow code must stay deterministic: no Node built-ins.',
      from: { path: '^workflows/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'activities-use-src-through-interfaces',
      severity: 'error',
      comment:
        'Activities get their services from the factory (activities/index.ts, wired by the worker) ' +
        'and name them by interfaces they declare; from src/ they import types only (`import type`).',
      from: { path: '^activities/' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'activities-no-repositories-or-entities',
      severity: 'error',
      comment: 'Activities talk to services (through interfaces), never to repositories or entities, not even their types.',
      from: { path: '^activities/' },
      to: { path: '^src/.+[.](repository|entity|entities)[.]ts$' },
    },
    {
      name: 'controllers-no-repositories',
      severity: 'error',
      comment: 'A controller parses, authorizes, calls a service and shapes the response; queries belong to services and repositories.',
      from: { path: '[.]controller[.]ts$' },
      to: { path: '[.]repository[.]ts$' },
    },
    {
      name: 'no-imports-of-roots',
      severity: 'error',
      comment:
        'The files directly in src/ (entry points and root modules) import the modules; a module never ' +
        'imports them back. DI tokens of CoreModule are in src/core.tokens.ts, the one root file a module may import.',
      from: { path: '^(src/[^/]+/|workflows/|activities/)' },
      to: { path: '^src/[^/]+[.]ts$', pathNot: '^src/core[.]tokens[.]ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import cannot be resolved (a typo, or a package missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage|[.]labflow)/' },
    // Type-only imports count: a type import still couples the two folders.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
