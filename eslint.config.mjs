// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

/** Imports that must never reach workflow code: Node built-ins, Nest, I/O clients, the worker. */
const notInWorkflows = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
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
        { patterns: [{ group: notInWorkflows, message: 'Workflow code must stay deterministic: no Node, Nest or I/O imports.' }] },
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
