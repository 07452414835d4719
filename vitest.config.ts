import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure functions: ranking, understanding, parsing, retry schedule, config, crypto,
 * money, endpoint classification, the catalog generator, the compose file; no database, no Temporal,
 * runs in seconds with `npm run test:unit`) and `integration` (everything else, against
 * a real Postgres and a real Temporal dev server started once per run by test/global-setup.ts).
 */
export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure functions hold no state between files, so the files share one module graph: the run's
          // cost is mostly module loading, and this halves it.
          isolate: false,
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', '**/node_modules/**'],
          // Temporal's workflow bundler crashes under worker threads; forks are safe.
          pool: 'forks',
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/setup-runtime.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
