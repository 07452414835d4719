// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Workflow code runs inside Temporal's deterministic sandbox and is replayed from history: it may not do
 * I/O or pull in a module that does (docs/DECISIONS.md, "Lint and format"). Type-only imports are erased
 * at compile time and stay allowed.
 */
const WHY = 'Workflow code is replayed from history and must stay deterministic';
const workflowRestrictedImports = {
  paths: [
    // Node built-ins by bare name (`fs`, `crypto`, `http`, …); the `node:` spelling is caught by the pattern below.
    ...builtinModules
      .filter((name) => !name.startsWith('_') && !name.startsWith('node:'))
      .map((name) => ({ name, message: `${WHY}: Node built-ins do I/O or read the clock; use an activity.`, allowTypeImports: true })),
    { name: 'pg', message: `${WHY}: database access belongs in an activity.` },
    { name: 'kysely', message: `${WHY}: database access belongs in an activity.`, allowTypeImports: true },
    { name: '@temporalio/client', message: `${WHY}: start other workflows with startChild/executeChild.`, allowTypeImports: true },
    { name: '@temporalio/worker', message: `${WHY}: the worker is not available inside a workflow.`, allowTypeImports: true },
    {
      name: '@temporalio/activity',
      message: `${WHY}: call activities through proxyActivities, never directly.`,
      allowTypeImports: true,
    },
  ],
  patterns: [
    {
      group: ['node:*'],
      message: `${WHY}: Node built-ins do I/O or read the clock; use an activity.`,
      allowTypeImports: true,
    },
    {
      group: ['**/activities', '**/activities/**'],
      message: `${WHY}: activities run outside the sandbox; import their types only (import type) and call them via proxyActivities.`,
      allowTypeImports: true,
    },
    {
      // Domain modules under src/ do I/O; the few pure ones a workflow needs today are the exceptions.
      regex: '^(\\.\\./)+src/(?!(temporal/names|dispatch/retry-schedule|supply/window)$)',
      message: `${WHY}: src/ modules may do I/O; import their types only (import type), or keep a pure helper in workflows/*.shared.ts.`,
      allowTypeImports: true,
    },
  ],
};

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      // Also as plain names: these may be symlinks to a shared copy.
      '.tools',
      '.tools/',
      '.venv',
      '.venv/',
      '.data',
      '.data/',
      '.schemathesis/',
      'test/fixtures/',
      'test/histories/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // A workflow's state is a `let` that its Update/Query handlers (declared above, run later) read
      // before the one assignment below them; `const` there would move the read into the TDZ.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_`-prefixed names mark a deliberately unused parameter or a destructured field left out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Kysely's migration guide types migrations as Kysely<any> on purpose: a migration is frozen at the
    // schema of its day and must not follow today's table types.
    files: ['src/db/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests and benchmarks read JSON bodies of real HTTP responses and use their fields; typing each body
    // would restate the OpenAPI document (which test/openapi.test.ts and the contract fuzz already check).
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', workflowRestrictedImports],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: `${WHY}: configuration reaches a workflow through its input.` },
        { name: 'setInterval', message: `${WHY}: use wf.sleep / wf.condition, which are recorded as timers.` },
        { name: 'fetch', message: `${WHY}: HTTP belongs in an activity.` },
        { name: 'Buffer', message: `${WHY}: Buffer is a Node API; use TextEncoder / Uint8Array.` },
        { name: '__dirname', message: `${WHY}: there is no file system in the workflow sandbox.` },
      ],
    },
  },
  prettier,
);
