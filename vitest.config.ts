import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // packages/*/test: the workspace packages' tests run against the real app, beside the server's.
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
