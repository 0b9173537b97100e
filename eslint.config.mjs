// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/**
 * Imports that must never reach workflow code: Node built-ins (by exact name, so a workflow file
 * named like one, e.g. ./events, stays allowed), Nest, I/O clients, the worker, src/, activities/.
 * dependency-cruiser checks the same (.dependency-cruiser.cjs), on resolved paths.
 */
const builtinsNotInWorkflows = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const notInWorkflows = [
  'node:*',
  '@nestjs/*',
  'typeorm',
  'pg',
  'ioredis',
  'bullmq',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '../src/*',
  '../activities/*',
  '../../src/*',
  '../../activities/*',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.labflow/**', 'jest.config.js'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinsNotInWorkflows.map((name) => ({ name, message: 'Workflow code must stay deterministic: no Node built-ins.' })),
          patterns: [{ group: notInWorkflows, message: 'Workflow code must stay deterministic: no Node, Nest or I/O imports.' }],
        },
      ],
    },
  },
  {
    // Controllers take @Body, @Query and @Param from src/common/request-params.ts, which scope the
    // request pipe (ZodRequestPipe) to them: Nest's own would leave a parameter unvalidated.
    files: ['src/**/*.ts', 'test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/common',
              importNames: ['Body', 'Query', 'Param'],
              message: 'Use Body, Query and Param from src/common/request-params.ts (validated by ZodRequestPipe).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // .dependency-cruiser.cjs: CommonJS (module.exports, require).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
